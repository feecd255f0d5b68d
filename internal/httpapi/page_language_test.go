package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// The verification page speaks the language asked by ?lang=, else by Accept-Language, else
// the certificate's own (its event's); it says so in <html lang>, tells caches it varies with
// Accept-Language, and links itself in every language. The user's words stay as typed.
func TestTheVerificationPageSpeaksTheLanguageAsked(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
		"templateId": tmpl, "locale": "de"})
	var ev eventBody
	res.JSON(t, &ev)
	s := issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: tmpl}
	a := acct.Attendee(t, s.event, "Grete", "Müller", "grete@example.org")
	var c certificateBody
	acct.Client.Post("/api/v1/certificates/generate", s.generate(a, nil)).JSON(t, &c)
	page := "/verify/" + c.Data.VerificationCode

	for _, tc := range []pageLanguageCase{
		{"the certificate's own locale", "", "", "de",
			[]string{"Dieses Zertifikat ist gültig", "Ausgestellt am", "12. November 2026", "Gophertage 2026"}},
		{"Accept-Language", "", "ja-JP,ja;q=0.9,en;q=0.5", "ja",
			[]string{"この証明書は有効です", "発行日", "2026年11月12日", "Gophertage 2026", "Grete Müller"}},
		{"?lang= before Accept-Language", "?lang=fr", "ja", "fr",
			[]string{"Ce certificat est valide", "Délivré le", "12 novembre 2026"}},
		{"a region of a supported language", "?lang=zh-CN", "", "zh-Hans", []string{"此证书有效", "2026年11月12日"}},
		{"an unsupported ?lang= is ignored", "?lang=tlh", "en-GB", "en",
			[]string{"This certificate is valid", "Issued on", "12 November 2026"}},
		{"tracking parameters stay out of the switcher's links", "?utm_source=" + strings.Repeat("x", 2000) + "&fbclid=1", "", "de",
			[]string{"Dieses Zertifikat ist gültig"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPageSpeaks(t, env, page, tc) })
	}
}

// pageLanguageCase is a page opened with a query and an Accept-Language header, the language
// it must answer in, and phrases it must hold.
type pageLanguageCase struct {
	name, query, accept, lang string
	want                      []string
}

// wantPageSpeaks opens page as tc asks and checks <html lang>, Vary, tc's phrases, and a
// language switcher that links every language, marks the current one and leaves tracking
// parameters out.
func wantPageSpeaks(t *testing.T, env *testkit.Env, page string, tc pageLanguageCase) {
	t.Helper()
	req := env.Client.Request(http.MethodGet, page+tc.query, nil)
	if tc.accept != "" {
		req.Header.Set("Accept-Language", tc.accept)
	}
	res := env.Client.Do(req)
	body := string(res.Body)
	require.Equal(t, 200, res.StatusCode, "status:\n%.600s", body)
	require.Contains(t, body, `<html lang="`+tc.lang+`">`, "<html lang>")
	if !strings.Contains(res.Header.Get("Vary"), "Accept-Language") {
		t.Errorf("Vary: %q", res.Header.Values("Vary"))
	}
	for _, want := range tc.want {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, code := range []string{"en", "de", "ja", "zh-Hans"} {
		if !strings.Contains(body, `href="`+page+`?lang=`+code+`"`) {
			t.Errorf("the switcher lacks %s", code)
		}
	}
	assert.NotContains(t, body, "utm_source", "the page repeats the tracking parameters")
	assert.NotContains(t, body, "fbclid", "the page repeats the tracking parameters")
	if !strings.Contains(body, `hreflang="`+tc.lang+`" lang="`+tc.lang+`" aria-current="true"`) {
		t.Errorf("the switcher does not mark %s as current", tc.lang)
	}
}
