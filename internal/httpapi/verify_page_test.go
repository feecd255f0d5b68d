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
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %v", res.StatusCode, res.Header)
	}
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
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") || regexp.MustCompile(`\b(https?|data):`).MatchString(csp) {
		t.Errorf("CSP is not strict: %s", csp)
	}
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
		if res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(res.Body), "No credential with this code") || !strings.Contains(string(res.Body), `<form action="/"`) {
			t.Errorf("%s: %d %s", code, res.StatusCode, res.Body)
		}
	}
	res := env.Client.Get("/verify/7K2M9QXRT4VZ1/share/linkedin")
	if res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("share of an unknown code: %d", res.StatusCode)
	}
}

func TestHomePageLooksCodesUp(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	res := env.Client.Get("/")
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), "credentiald") || !strings.Contains(string(res.Body), `name="code"`) ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "form-action 'self'") || !strings.Contains(string(res.Body), `href="/docs"`) {
		t.Fatalf("home: %d %s", res.StatusCode, res.Body)
	}
	res = env.Client.Get("/?code=" + url.QueryEscape(" 7k2m-9qxr-t4vz1 "))
	if res.StatusCode != 302 || res.Header.Get("Location") != "/verify/7K2M9QXRT4VZ1" {
		t.Fatalf("lookup: %d %v", res.StatusCode, res.Header)
	}
	res = env.Client.Get("/?code=" + url.QueryEscape("<script>"))
	if res.StatusCode != 400 || !strings.Contains(string(res.Body), "That is not a verification code") || strings.Contains(string(res.Body), "<script>") {
		t.Fatalf("malformed: %d %s", res.StatusCode, res.Body)
	}
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
	if v, d := recipientEvents(); v != 0 || d != 0 {
		t.Fatalf("without the recipient: viewed %d, downloaded %d", v, d)
	}
	res := s.env.Client.Get(page + "?t=" + token)
	body := string(res.Body)
	if !strings.Contains(body, "This is your certificate, Ada.") || !strings.Contains(body, `certificate.pdf?t=`+token) ||
		res.Header.Get("Cache-Control") != "private, no-store" || !strings.Contains(body, `<meta name="robots" content="noindex">`) {
		t.Fatalf("portal: %v\n%s", res.Header, body)
	}
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
	if v, d := recipientEvents(); v != 1 || d != 1 {
		t.Fatalf("viewed %d, downloaded %d; want 1 and 1", v, d)
	}
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
		if res.StatusCode != http.StatusFound || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %v", network, res.StatusCode, res.Header)
		}
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
	if li.Host != "www.linkedin.com" || li.Path != "/profile/add" || q.Encode() != want.Encode() || !strings.HasPrefix(q.Get("organizationName"), "Account ") {
		t.Fatalf("linkedin: %s", li)
	}
	if x := location("x"); x.Host != "x.com" || x.Query().Get("url") != pageURL || !strings.Contains(x.Query().Get("text"), "Go Conference") {
		t.Fatalf("x: %s", x)
	}
	if fb := location("facebook"); fb.Host != "www.facebook.com" || fb.Query().Get("u") != pageURL {
		t.Fatalf("facebook: %s", fb)
	}
	if m := location("email"); m.Scheme != "mailto" || !strings.Contains(m.Query().Get("body"), pageURL) || strings.Contains(m.RawQuery, "+") {
		t.Fatalf("email: %s", m)
	}
	if res := s.env.Client.Get(share + "myspace"); res.StatusCode != 404 {
		t.Fatalf("unknown network: %d", res.StatusCode)
	}
	if res := s.env.Client.Post(share+"copy", nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("copy: %d %s", res.StatusCode, res.Body)
	}
	if res := s.env.Client.Get(share + "copy"); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
		t.Fatalf("GET of the copy beacon: %d %v", res.StatusCode, res.Header)
	}
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
	if rows := activity(t, s.env, s.acct.ID); len(rows) != 1 || rows[0].Issued != 2 || rows[0].IssuedVerified != 0 ||
		rows[0].Views+rows[0].Verifications+rows[0].Downloads+rows[0].Shares != 0 {
		t.Fatalf("crawlers were counted: %+v", rows)
	}
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
	rows := activity(t, s.env, s.acct.ID)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	if len(rows) != 1 || rows[0].Views != 1 || rows[0].Verifications != 2 || rows[0].Downloads != 1 || rows[0].Shares != 2 ||
		rows[0].Issued != 2 || rows[0].IssuedVerified != 1 || rows[0].EventID != s.event || rows[0].CredentialKind != "certificate" || !rows[0].Day.Equal(today) {
		t.Fatalf("activity: %+v", rows)
	}
	if firstVerified(c.Data.ID) == nil || firstVerified(untouched.Data.ID) != nil {
		t.Fatal("first_verified_at does not say which certificate was verified")
	}
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
