// Package site is the public HTML site beside the API: the home page with its lookup form, the
// verification pages, the share links and the site's icon, with their error pages.
package site

import (
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/httperr"
	"github.com/certhub/credentiald/internal/httpmw"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/verification"
	"github.com/certhub/credentiald/internal/wallet"
)

// The pages at the site root: the home page with its lookup form, the verification page, and
// the share links. They are operations of the contract (path-level servers in
// openapi/v1.json), served by these Echo handlers rather than the generated server, which
// registers everything under /api/v1. Their errors are HTML pages too. The site's icon is
// served beside them (favicon.svg, which the pages name, and favicon.ico, the path browsers
// and unfurlers try by convention).

// Echo routes of the site's pages.
const (
	routeHome   = "/"
	routePage   = "/verify/:code"
	routeShare  = "/verify/:code/share/:network"
	routeCopied = "/verify/:code/share/copy"
	routeIcon   = "/favicon.svg"
	routeICO    = "/favicon.ico"
	routeSheet  = "/assets/:file"
)

// cacheIcon lets browsers keep the site's icon for a day: it changes with a release at most.
const cacheIcon = "public, max-age=86400"

// cacheSheet lets browsers keep the style sheet for a year: its name changes with its content.
const cacheSheet = "public, max-age=31536000, immutable"

// sheetNames are the names a style sheet has had and will have (sheetName).
var sheetNames = regexp.MustCompile(`^page\.[0-9a-f]{16}\.css$`)

var siteRoutes = map[string]bool{routeHome: true, routePage: true, routeShare: true, routeCopied: true, routeInteraction: true}

// maxTokenLen is the contract's maxLength of a recipient token (the `t` parameter).
const maxTokenLen = 128

// Site serves the public HTML site.
type Site struct {
	verification *verification.Service
	wallet       *wallet.Service
	pages        *pageRenderer
	kept         *keptPages
	logger       *slog.Logger
	links        links.Site
}

// New builds the site: its pages are compiled in (templ), its style, script and icons embedded.
// l makes the pages' absolute links (the page's own URL, for sharing).
func New(v *verification.Service, w *wallet.Service, l links.Site, logger *slog.Logger) (*Site, error) {
	pages, err := newPageRenderer()
	if err != nil {
		return nil, err
	}
	return &Site{verification: v, wallet: w, pages: pages, kept: newKeptPages(), logger: logger, links: l}, nil
}

// Router adds a route, by its full path, with the middleware of the part of the service that
// serves it (an *echo.Echo adds it with none of its own).
type Router interface {
	Add(method, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route
}

// RegisterWallet adds the wallet page (an offer's interaction URL) to r.
func (s *Site) RegisterWallet(r Router) {
	r.Add(http.MethodGet, routeInteraction, s.walletInteraction)
}

// Register adds the site's routes: the home page to pages, the pages that look a code up (the
// verification page and its share links, which count against the verification rate limit) to
// lookups, and the icons to assets.
func (s *Site) Register(pages, lookups, assets Router) {
	pages.Add(http.MethodGet, routeHome, s.homePage)
	lookups.Add(http.MethodGet, routePage, s.verificationPage)
	lookups.Add(http.MethodGet, routeShare, s.share)
	lookups.Add(http.MethodPost, routeCopied, s.copiedLink)
	assets.Add(http.MethodGet, routeIcon, icon("image/svg+xml", s.pages.faviconSVG))
	assets.Add(http.MethodGet, routeICO, icon("image/x-icon", s.pages.faviconICO))
	assets.Add(http.MethodGet, routeSheet, s.styleSheet)
}

// styleSheet answers the pages' style sheet at the name its content gives it, kept a year. A
// page of another release (a cached home page, a replica not yet updated in a rolling
// deploy) names its own sheet: it gets this one, not to be kept, rather than no style at all.
// A name of another shape is not found.
func (s *Site) styleSheet(c echo.Context) error {
	name := c.Param("file")
	if !sheetNames.MatchString(name) {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	h.Set("Cache-Control", cacheSheet)
	if "/assets/"+name != s.pages.sheetPath {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(s.pages.sheet)))
	return c.Blob(http.StatusOK, "text/css; charset=utf-8", s.pages.sheet)
}

// icon answers the site's icon, the same bytes for every request.
func icon(media string, body []byte) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Cache-Control", cacheIcon)
		h.Set("X-Content-Type-Options", "nosniff")
		return c.Blob(http.StatusOK, media, body)
	}
}

// homePage is the lookup form, in the language asked (?lang=, else Accept-Language, else
// English); a language asked by ?lang= is kept through the lookup to the credential's page.
func (s *Site) homePage(c echo.Context) error {
	raw, typed := c.QueryParam("code"), c.QueryParams().Has("code")
	l := pageLang(c, "")
	view := homeView{KeepLang: locale.Parse(c.QueryParam("lang")) != ""}
	view.L, view.Langs = l, switcher(c, l)
	if !typed {
		return s.pages.render(c, http.StatusOK, &view, homePage(&view), "public, max-age=300")
	}
	if code, ok := verification.NormalizeTypedCode(raw); ok && len(raw) <= 256 {
		target := links.EscapedVerificationPage(code)
		if view.KeepLang {
			target += "?" + url.Values{"lang": {l.Code()}}.Encode()
		}
		return c.Redirect(http.StatusFound, target)
	}
	view.Code, view.Error = raw, l.T("page.home.notACode")
	if len(raw) > 80 {
		view.Code = ""
	}
	return s.pages.render(c, http.StatusBadRequest, &view, homePage(&view), "no-store")
}

func (s *Site) verificationPage(c echo.Context) error {
	ctx := c.Request().Context()
	token := c.QueryParam("t")
	if utf8.RuneCountInString(token) > maxTokenLen { // the contract's maxLength counts characters
		token = "" // not a token of ours: the public page
	}
	p, err := s.verification.View(ctx, c.Param("code"), token, httpmw.Visitor(ctx))
	if err != nil {
		return err
	}
	cache := "no-cache" // a revocation shows at the next visit
	if p.Recipient() {
		cache = "private, no-store"
	}
	l := pageLang(c, p.Credential.Locale)
	var kept *keptPages
	var key string
	if token == "" && p.Kind == verification.KindCertificate {
		// The public page of a certificate is the same for every visitor in a language: kept
		// as sent (keptPages). One asked with a token that is not the recipient's is made
		// each time, so that made-up tokens cannot crowd the kept pages out. Its body varies
		// with Accept-Encoding (its language with Accept-Language, see pageLang).
		c.Response().Header().Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
		kept, key = s.kept, pageKey(p.Credential, l, c.Request().URL.EscapedPath(), keptParams(c).Encode())
		if page, ok := kept.get(key); ok {
			return sendKept(c, http.StatusOK, page, cache)
		}
	}
	view := s.newVerificationView(p, l)
	view.Langs = switcher(c, l)
	if p.Recipient() && p.Status == verification.Valid {
		view.Wallet = s.recipientWallet(c, p.Credential, l)
	}
	return s.pages.renderKept(c, http.StatusOK, &view, verifyPage(&view), cache, kept, key)
}

func (s *Site) share(c echo.Context) error {
	if c.Param("network") == "copy" { // Echo routes GET .../share/copy here; only POST is one
		c.Response().Header().Set(echo.HeaderAllow, http.MethodPost)
		return echo.ErrMethodNotAllowed
	}
	ctx := c.Request().Context()
	target, err := s.verification.Share(ctx, c.Param("code"), c.Param("network"), httpmw.Visitor(ctx))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store") // every click is a share
	return c.Redirect(http.StatusFound, target)
}

func (s *Site) copiedLink(c echo.Context) error {
	ctx := c.Request().Context()
	if err := s.verification.CopiedLink(ctx, c.Param("code"), httpmw.Visitor(ctx)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// Errors answers the failures of the site's pages as HTML pages: not found (an unknown code, a
// malformed one, a draft), too many requests, and anything unexpected. What the pages do not
// document (405 on a route of theirs), and every failure elsewhere, goes to api, the API's
// handler and its envelope.
func (s *Site) Errors(api echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	pages, logger := s.pages, s.logger
	return func(err error, c echo.Context) {
		e := httperr.From(err)
		if !siteRoutes[c.Path()] || c.Response().Committed || e.Code == apperr.MethodNotAllowed ||
			(c.Path() == routeInteraction && httpmw.Prefers(c.Request().Context(), echo.MIMEApplicationJSON, echo.MIMETextHTML)) {
			api(err, c)
			return
		}
		ctx := c.Request().Context()
		// No credential was found, so the page speaks the language asked, else English.
		l := pageLang(c, "")
		view := errorView{Lookup: true}
		view.L, view.Langs = l, switcher(c, l)
		status := http.StatusNotFound
		switch e.Code {
		case apperr.NotFound, apperr.ValidationError:
			view.Title = l.T("page.error.notFoundTitle")
			if c.Path() == routeInteraction {
				view.Lookup = false
				view.Title, view.Message = l.T("page.error.walletTitle"), l.T("page.error.wallet")
				logger.WarnContext(ctx, "page not found", "status", status, "code", e.Code, "message", e.Message)
				break
			}
			view.Message = l.T("page.error.notFound", "Code", clip(c.Param("code"), 64))
			if c.Path() == routeShare {
				view.Title, view.Message = l.T("page.error.shareTitle"), l.T("page.error.share")
			}
			logger.WarnContext(ctx, "page not found", "status", status, "code", e.Code, "message", e.Message)
		case apperr.RateLimited:
			status, view.Lookup = http.StatusTooManyRequests, false
			view.Title = l.T("page.error.tooManyTitle")
			view.Message = l.T("page.error.tooMany", "Seconds", c.Response().Header().Get("Retry-After"))
			logger.WarnContext(ctx, "request refused", "status", status, "code", e.Code, "message", e.Message)
		default:
			status, view.Lookup = http.StatusInternalServerError, false
			view.Title = l.T("page.error.faultTitle")
			view.Message = l.T("page.error.fault")
			view.RequestID = logging.RequestID(ctx)
			logger.ErrorContext(ctx, "request failed", "status", status, "code", e.Code, "error", err)
		}
		if werr := pages.render(c, status, &view, errorPage(&view), "no-store"); werr != nil {
			logger.ErrorContext(ctx, "writing error page", "error", werr)
		}
	}
}

// clip shortens what a visitor typed before a page repeats it.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
