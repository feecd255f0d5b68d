package site

import (
	"html/template"
	"net/url"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/locale"
)

// lang is the language a page speaks; its components ask it for their texts (d.L.T("id")).
type lang string

// pageLang chooses a page's language: ?lang= (an unsupported value is ignored), then the
// browser's Accept-Language, then the credential's own locale. The answer varies with the
// header, which Vary tells caches.
func pageLang(c echo.Context, credential string) lang {
	c.Response().Header().Add("Vary", "Accept-Language")
	return lang(locale.Choose(c.QueryParam("lang"), c.Request().Header.Get("Accept-Language"), credential))
}

// Code is the BCP 47 tag of <html lang>.
func (l lang) Code() string { return string(l) }

// T is message id in the page's language; kv are its fields, name then value.
func (l lang) T(id string, kv ...any) string { return locale.Text(string(l), id, fields(kv)) }

// H is message id as HTML: the catalog's text is ours, and every field is escaped unless it is
// template.HTML already (a link the page built).
func (l lang) H(id string, kv ...any) template.HTML {
	for i := 1; i < len(kv); i += 2 {
		if _, ok := kv[i].(template.HTML); !ok {
			kv[i] = template.HTMLEscapeString(toString(kv[i]))
		}
	}
	return template.HTML(locale.Text(string(l), id, fields(kv)))
}

func fields(kv []any) map[string]any {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			m[k] = kv[i+1]
		}
	}
	return m
}

func toString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case template.HTML:
		return string(s)
	}
	return ""
}

// langLink is one language of the page's switcher.
type langLink struct {
	Code, Name, Href string
	Current          bool
}

// switcherKeeps are the query parameters a page's language links carry over: the recipient's
// token (t) and the home page's looked-up code. Others (tracking parameters) are left out: each
// link would repeat them, ten times over, whatever their length.
var switcherKeeps = []string{"t", "code"}

// switcher links the page in every language, keeping the recipient's token and the looked-up
// code when they have the length of one (maxTokenLen).
func switcher(c echo.Context, current lang) []langLink {
	q := keptParams(c)
	out := make([]langLink, 0, len(locale.Codes))
	for _, code := range locale.Codes {
		q.Set("lang", code)
		out = append(out, langLink{Code: code, Name: locale.Names[code], Href: c.Request().URL.EscapedPath() + "?" + q.Encode(), Current: code == string(current)})
	}
	return out
}

// keptParams are the request's parameters that the language links carry over (switcherKeeps),
// those of the length of one.
func keptParams(c echo.Context) url.Values {
	q := url.Values{}
	for _, k := range switcherKeeps {
		if v := c.QueryParam(k); v != "" && utf8.RuneCountInString(v) <= maxTokenLen {
			q.Set(k, v)
		}
	}
	return q
}

// JWTLink is the link to the credential as a JWT, for the sentence that names it.
func (v *verificationView) JWTLink() template.HTML {
	return template.HTML(`<a href="` + template.HTMLEscapeString(v.CredentialJWTURL) + `" type="application/vc+jwt">JWT</a>`)
}

// NameHTML is the credential's name, emphasised, for the sentence that names it.
func (v *walletView) NameHTML() template.HTML {
	return template.HTML("<strong>" + template.HTMLEscapeString(v.Name) + "</strong>")
}
