package httpapi_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

const linkedInBot = "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)"

func getAs(c *contract.Client, path, userAgent string) *contract.Response {
	req := c.Request(http.MethodGet, path, nil)
	req.Header.Set("User-Agent", userAgent)
	return c.Do(req)
}

func TestVerificationPageShowsTheCertificateAndUnfurls(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	res := s.env.Client.Get("/verify/" + strings.ToLower(c.Data.VerificationCode))
	page := string(res.Body)
	require.Equal(t, 200, res.StatusCode, "page: status")
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"), "page: %q should start with %q", res.Header.Get("Content-Type"), "text/html")
	site := s.env.Config.SiteURL.String()
	for _, want := range []string{
		`<html lang="en">`, "This certificate is valid", "Ada Lovelace", "Go Conference", c.Data.CertificateNumber,
		`<meta property="og:image" content="` + site + `/api/v1/verify/` + c.Data.VerificationCode + `/share.png">`,
		`<meta property="og:url" content="` + site + `/verify/` + c.Data.VerificationCode + `">`,
		`<meta property="og:title"`, `<meta property="og:description"`, `<meta name="twitter:card" content="summary_large_image">`,
		`src="/api/v1/verify/` + c.Data.VerificationCode + `/preview.png"`, `alt="Certificate Go Conference awarded to Ada Lovelace`,
		`href="/api/v1/verify/` + c.Data.VerificationCode + `/certificate.pdf"`,
		`href="/verify/` + c.Data.VerificationCode + `/share/linkedin"`, `href="/verify/` + c.Data.VerificationCode + `/share/x"`,
		`href="/verify/` + c.Data.VerificationCode + `/share/facebook"`, `href="/verify/` + c.Data.VerificationCode + `/share/email"`,
		`<main id="main"`, `<header class="topbar">`, `<footer>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "@example.org") {
		t.Error("the page shows the recipient's email")
	}
	// Nothing from another host; style and script only by hash (and the site's own style
	// sheet); no eval, no wildcard.
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "img-src 'self'", "style-src 'self' 'sha256-", "script-src 'sha256-", "base-uri 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	assert.NotContains(t, csp, "unsafe", "CSP is not strict")
	assert.NotContains(t, csp, "*", "CSP is not strict")
	assert.False(t, regexp.MustCompile(`\b(https?|data):`).MatchString(csp), "CSP is not strict: it names a scheme: %s", csp)
	loads := regexp.MustCompile(`(?i)<(script|img)[^>]+src="(https?:)?//|<link rel="(stylesheet|icon|preload|modulepreload)"[^>]+href="(https?:)?//`)
	if m := loads.FindString(page); m != "" {
		t.Errorf("the page loads from another host: %s", m)
	}
}

func TestUnknownCodeAnswersAHelpfulPage(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	for _, code := range []string{"7K2M9QXRT4VZ1", "not_a_code"} {
		res := env.Client.Get("/verify/" + code)
		assert.Equal(t, 404, res.StatusCode, "%s: status (body %s)", code, res.Body)
		assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"), "%s: %q should start with %q", code, res.Header.Get("Content-Type"), "text/html")
		assert.Contains(t, string(res.Body), "No credential with this code", "%s: body", code)
		assert.Contains(t, string(res.Body), `<form action="/"`, "%s: body", code)
	}
	res := env.Client.Get("/verify/7K2M9QXRT4VZ1/share/linkedin")
	require.Equal(t, 404, res.StatusCode, "share of an unknown code: status")
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"), "share of an unknown code: %q should start with %q", res.Header.Get("Content-Type"), "text/html")
}

func TestHomePageLooksCodesUp(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	res := env.Client.Get("/")
	require.Equal(t, 200, res.StatusCode, "home: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), "credentiald", "home: body")
	require.Contains(t, string(res.Body), `name="code"`, "home: body")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self'", "home: Content-Security-Policy")
	require.Contains(t, string(res.Body), `href="/docs"`, "home: body")
	res = env.Client.Get("/?code=" + url.QueryEscape(" 7k2m-9qxr-t4vz1 "))
	require.Equal(t, 302, res.StatusCode, "lookup: status")
	require.Equal(t, "/verify/7K2M9QXRT4VZ1", res.Header.Get("Location"), "lookup: Location")
	res = env.Client.Get("/?code=" + url.QueryEscape("<script>"))
	require.Equal(t, 400, res.StatusCode, "malformed: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), "That is not a verification code", "malformed: body")
	require.NotContains(t, string(res.Body), "<script>", "malformed: body")
}

// The delivery email's link carries the recipient token: its first open sends
// certificate.viewed, once; a PDF download through it sends certificate.downloaded. Strangers,
// wrong tokens and link unfurlers send nothing.
func TestRecipientPortalSendsViewedOnceAndDownloaded(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	const token = "portal-token-of-the-delivery-email"
	hash := sha256.Sum256([]byte(token))
	if err := s.env.Store.SetRecipientToken(t.Context(), uuid.MustParse(c.Data.ID), hash[:]); err != nil {
		t.Fatal(err)
	}
	page := "/verify/" + c.Data.VerificationCode
	recipientEvents := func() (viewed, downloaded int) {
		events, err := s.env.Store.OutboxEvents(t.Context(), s.acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkOutbox(t, events)
		for _, e := range events {
			switch e.EventType {
			case "certificate.viewed":
				viewed++
			case "certificate.downloaded":
				downloaded++
			}
		}
		return viewed, downloaded
	}

	s.env.Client.Get(page)
	s.env.Client.Get(page + "?t=wrong-token")
	getAs(s.env.Client, page+"?t="+token, linkedInBot)
	v, d := recipientEvents()
	require.Equal(t, 0, v, "without the recipient: viewed")
	require.Equal(t, 0, d, "without the recipient: downloaded")
	res := s.env.Client.Get(page + "?t=" + token)
	body := string(res.Body)
	require.Contains(t, body, "This is your certificate, Ada.", "portal")
	require.Contains(t, body, `certificate.pdf?t=`+token, "portal")
	require.Equal(t, "private, no-store", res.Header.Get("Cache-Control"), "portal: Cache-Control")
	require.Contains(t, body, `<meta name="robots" content="noindex">`, "portal")
	if strings.Contains(body, `share-url" type="text" value="`+s.env.Config.SiteURL.String()+page+`?`) {
		t.Fatal("the link offered for sharing carries the token")
	}
	s.env.Client.Get(page + "?t=" + token)
	if v, _ := recipientEvents(); v != 1 {
		t.Fatalf("viewed %d times, want once", v)
	}

	pdf := "/api/v1/verify/" + c.Data.VerificationCode + "/certificate.pdf"
	s.env.Client.Get(pdf)
	getAs(s.env.Client, pdf+"?t="+token, linkedInBot)
	if res := s.env.Client.Get(pdf + "?t=" + token); res.StatusCode != 200 {
		t.Fatalf("portal download: %d", res.StatusCode)
	}
	v, d = recipientEvents()
	require.Equal(t, 1, v, "viewed")
	require.Equal(t, 1, d, "downloaded")
}

func TestShareLinksGoToTheNetworks(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop()
	// Issued in January: LinkedIn's months are 1..12, not JavaScript's 0..11.
	clock.Advance(time.Date(2027, time.January, 15, 12, 0, 0, 0, time.UTC).Sub(clock.Now()))
	s := newIssuing(t, testkit.WithClock(clock.Now))
	c := s.issue(t, "Ada", "Lovelace", nil)
	share := "/verify/" + c.Data.VerificationCode + "/share/"
	pageURL := s.env.Config.SiteURL.String() + "/verify/" + c.Data.VerificationCode

	location := func(network string) *url.URL {
		t.Helper()
		res := s.env.Client.Get(share + network)
		require.Equal(t, http.StatusFound, res.StatusCode, "%s: status", network)
		require.Equal(t, "no-store", res.Header.Get("Cache-Control"), "%s: Cache-Control", network)
		u, err := url.Parse(res.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	li := location("linkedin")
	q := li.Query()
	want := url.Values{"startTask": {"CERTIFICATION_NAME"}, "name": {"Go Conference"}, "organizationName": {q.Get("organizationName")},
		"issueYear": {"2027"}, "issueMonth": {"1"}, "expirationYear": {"2028"}, "expirationMonth": {"1"},
		"certUrl": {pageURL}, "certId": {c.Data.CertificateNumber}}
	require.Equal(t, "www.linkedin.com", li.Host, "linkedin: li.Host")
	require.Equal(t, "/profile/add", li.Path, "linkedin: li.Path")
	require.Equal(t, want.Encode(), q.Encode(), "linkedin: q.Encode()")
	require.True(t, strings.HasPrefix(q.Get("organizationName"), "Account "), "linkedin: %q should start with %q", q.Get("organizationName"), "Account ")
	x := location("x")
	require.Equal(t, "x.com", x.Host, "x: x.Host")
	require.Equal(t, pageURL, x.Query().Get("url"), `x: x.Query().Get("url")`)
	require.Contains(t, x.Query().Get("text"), "Go Conference", `x: x.Query().Get("text")`)
	fb := location("facebook")
	require.Equal(t, "www.facebook.com", fb.Host, "facebook: fb.Host")
	require.Equal(t, pageURL, fb.Query().Get("u"), `facebook: fb.Query().Get("u")`)
	m := location("email")
	require.Equal(t, "mailto", m.Scheme, "email: m.Scheme")
	require.Contains(t, m.Query().Get("body"), pageURL, `email: m.Query().Get("body")`)
	require.NotContains(t, m.RawQuery, "+", "email: m.RawQuery")
	if res := s.env.Client.Get(share + "myspace"); res.StatusCode != 404 {
		t.Fatalf("unknown network: %d", res.StatusCode)
	}
	if res := s.env.Client.Post(share+"copy", nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("copy: %d %s", res.StatusCode, res.Body)
	}
	res := s.env.Client.Get(share + "copy")
	require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, "GET of the copy beacon: status")
	require.Equal(t, "POST", res.Header.Get("Allow"), "GET of the copy beacon: Allow")
}

// Views, verifications, downloads and shares are counted per account, day, event and kind, in
// batches; crawlers and link unfurlers are answered but not counted. The first counted
// verification marks the certificate verified.
func TestVerificationActivityIsCountedWithoutCrawlers(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	untouched := s.issue(t, "Charles", "Babbage", nil)
	code := c.Data.VerificationCode
	crawlers := []string{linkedInBot, "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		"Twitterbot/1.0", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "Discordbot/2.0", "WhatsApp/2.23.20.0"}
	for _, ua := range crawlers {
		for _, path := range []string{"/verify/" + code, "/api/v1/verify/" + code, "/verify/" + code + "/share/x"} {
			if res := getAs(s.env.Client, path, ua); res.StatusCode >= 400 {
				t.Fatalf("%s %s: %d", ua, path, res.StatusCode)
			}
		}
	}
	flush(t, s.env)
	rows := activity(t, s.env, s.acct.ID)
	require.Len(t, rows, 1, "crawlers were counted: rows")
	require.Equal(t, 2, rows[0].Issued, "crawlers were counted: rows[0].Issued")
	require.Equal(t, 0, rows[0].IssuedVerified, "crawlers were counted: rows[0].IssuedVerified")
	require.Equal(t, 0, rows[0].Views+rows[0].Verifications+rows[0].Downloads+rows[0].Shares, "crawlers were counted: views, verifications, downloads and shares (%+v)", rows[0])
	firstVerified := func(id string) (at *time.Time) {
		testkit.QueryRow(t, s.env, `SELECT first_verified_at FROM certificates WHERE id = $1`, []any{id}, &at)
		return at
	}
	if firstVerified(c.Data.ID) != nil {
		t.Fatal("a crawler's visit marked the certificate verified")
	}

	person := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
	getAs(s.env.Client, "/verify/"+code, person)                           // a view and a verification
	getAs(s.env.Client, "/api/v1/verify/"+code, person)                    // a verification
	getAs(s.env.Client, "/api/v1/verify/"+code+"/certificate.pdf", person) // a download
	getAs(s.env.Client, "/verify/"+code+"/share/linkedin", person)         // a share
	s.env.Client.Post("/verify/"+code+"/share/copy", nil)                  // a share
	getAs(s.env.Client, "/api/v1/verify/"+code+"/qr", person)              // nothing
	flush(t, s.env)
	rows = activity(t, s.env, s.acct.ID)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	require.Len(t, rows, 1, "activity: rows")
	require.Equal(t, 1, rows[0].Views, "activity: rows[0].Views")
	require.Equal(t, 2, rows[0].Verifications, "activity: rows[0].Verifications")
	require.Equal(t, 1, rows[0].Downloads, "activity: rows[0].Downloads")
	require.Equal(t, 2, rows[0].Shares, "activity: rows[0].Shares")
	require.Equal(t, 2, rows[0].Issued, "activity: rows[0].Issued")
	require.Equal(t, 1, rows[0].IssuedVerified, "activity: rows[0].IssuedVerified")
	require.Equal(t, s.event, rows[0].EventID, "activity: rows[0].EventID")
	require.Equal(t, "certificate", rows[0].CredentialKind, "activity: rows[0].CredentialKind")
	require.True(t, rows[0].Day.Equal(today), "activity: day %v, want %v", rows[0].Day, today)
	require.NotNil(t, firstVerified(c.Data.ID), "first_verified_at of the verified certificate")
	require.Nil(t, firstVerified(untouched.Data.ID), "first_verified_at of the certificate never verified")
	// Counters add up across flushes, and a flush that fails keeps its counts for the next.
	getAs(s.env.Client, "/api/v1/verify/"+code, person)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.env.Service.Verification.Activity.Flush(cancelled); err == nil {
		t.Fatal("a flush without a database succeeded")
	}
	getAs(s.env.Client, "/api/v1/verify/"+code, person)
	flush(t, s.env)
	if rows := activity(t, s.env, s.acct.ID); rows[0].Verifications != 4 {
		t.Fatalf("after a failed and a good flush: %+v", rows)
	}
}

func flush(t *testing.T, env *testkit.Env) {
	t.Helper()
	if err := env.Service.Verification.Activity.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func activity(t *testing.T, env *testkit.Env, account uuid.UUID) []store.DailyActivity {
	t.Helper()
	rows, err := env.Store.VerificationActivity(t.Context(), account)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
