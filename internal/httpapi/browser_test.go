package httpapi_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

// What a person sees of the verification page, read in the browser.
type seenPage struct {
	Status        string   `json:"status"`
	Badge         string   `json:"badge"`
	Reason        string   `json:"reason"`
	Name          string   `json:"name"`
	Recipient     string   `json:"recipient"`
	Issuer        string   `json:"issuer"`
	PreviewLoaded bool     `json:"previewLoaded"`
	LogoLoaded    bool     `json:"logoLoaded"`
	CopyButton    bool     `json:"copyButton"`
	ShareLinks    []string `json:"shareLinks"`
	Overflow      bool     `json:"overflow"`
	Violations    []string `json:"violations"`
	// Accessibility are axe-core's violations (WCAG 2.1 A and AA), one line each.
	Accessibility []string `json:"-"`
}

const readPage = `(() => {
  const text = (sel) => (document.querySelector(sel) || {}).textContent?.trim() || "";
  const loaded = (sel) => { const i = document.querySelector(sel); return !!i && i.complete && i.naturalWidth > 0; };
  const copy = document.getElementById("copy-link");
  return {
    status: text(".status h1"), badge: text(".status .badge"), reason: text(".reason"),
    name: text("#credential-title"), recipient: text(".awarded strong"), issuer: text(".issuer span"),
    previewLoaded: loaded(".preview img"), logoLoaded: loaded(".issuer img"),
    copyButton: !!copy && !copy.hidden && copy.offsetWidth > 0,
    shareLinks: [...document.querySelectorAll(".share-links a")].map(a => a.getAttribute("href")),
    overflow: document.documentElement.scrollWidth > window.innerWidth,
    violations: window.__cspViolations || [],
  };
})()`

// Recorded before any script of the page runs: every CSP violation the page causes.
const watchCSP = `window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));`

// A real browser loads the page of a valid and of a revoked certificate, at a phone's width
// and a desktop's, and sees what a person would: the status, the recipient, the issuer, the
// preview loaded, share links that carry the right parameters; and no console error, no
// blocked resource, no CSP violation. UPDATE_SCREENSHOTS=1 writes the desktop screenshots
// shown in the README (docs/verify-valid.png, docs/verify-revoked.png); SCREENSHOT_DIR=dir
// writes all four there.
func TestVerificationPageInABrowser(t *testing.T) {
	chrome := browser.Binary(t)
	clock := &testkit.Clock{}
	clock.Stop()
	clock.Advance(time.Date(2026, time.November, 13, 10, 0, 0, 0, time.UTC).Sub(clock.Now()))
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	logo := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(sampleLogo))
	if res := acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "website": "https://gophers.example.org",
		"logo": logo, "primaryColor": "#1F2A44"}); res.StatusCode != 200 {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Go Conference 2026", "eventDate": "2026-11-12T09:00:00Z",
		"location": "Berlin", "templateId": "00000000-0000-7000-8000-00000000c001", "certificateValidityDays": 730})
	var ev eventBody
	res.JSON(t, &ev)
	s := issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: uuid.MustParse("00000000-0000-7000-8000-00000000c001")}
	valid := s.issue(t, "Łukasz", "Żółć", nil)
	revoked := s.issue(t, "Grace", "Hopper", nil)
	acct.Client.Post("/api/v1/certificates/"+revoked.Data.ID+"/revoke", map[string]any{
		"reason": "The certificate named the wrong workshop; a corrected one was issued.", "reasonCode": "superseded"})
	erased := s.issue(t, "Erika", "Mustermann", nil)
	var erasedCert struct{ Data struct{ AttendeeID string } }
	acct.Client.Get("/api/v1/certificates/"+erased.Data.ID).JSON(t, &erasedCert)
	if res := acct.Client.Post("/api/v1/attendees/"+erasedCert.Data.AttendeeID+"/erase", nil); res.StatusCode != 200 {
		t.Fatalf("erase: %d %s", res.StatusCode, res.Body)
	}
	axe := axeSource(t)

	browserCtx := startBrowser(t, chrome)

	viewports := []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 900, false}}
	cases := []struct {
		name string
		cert certificateBody
		want seenPage
	}{
		{"valid", valid, seenPage{Status: "This certificate is valid", Badge: "Valid", Recipient: "Łukasz Żółć"}},
		{"revoked", revoked, seenPage{Status: "This certificate has been revoked", Badge: "Revoked", Recipient: "Grace Hopper",
			Reason: "Reason: Superseded by a newer credential"}},
		{"erased", erased, seenPage{Status: "This certificate has been revoked", Badge: "Revoked",
			Recipient: "(name withheld at the holder's request)", Reason: "Reason: Erased at the holder's request"}},
	}
	if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" { // the other pages, to look at
		for name, path := range map[string]string{"home": "/", "not-found": "/verify/7K2M9QXRT4VZ1", "home-error": "/?code=%3F%3F"} {
			tab, cancel := chromedp.NewContext(browserCtx)
			err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(env.URL+path))
			shot, serr := chromedp.Run(tab, chromedp.FullScreenshot(100))
			cancel()
			require.NoError(t, err, "%s: navigating", name)
			require.NoError(t, serr, "%s: the screenshot", name)
			if err := os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range cases {
		for _, vp := range viewports {
			t.Run(tc.name+"/"+vp.name, func(t *testing.T) {
				code := tc.cert.Data.VerificationCode
				seen, problems, shot := loadInBrowser(t, browserCtx, env.URL+"/verify/"+code, vp.width, vp.height, vp.mobile, axe)
				if len(problems) > 0 {
					t.Errorf("the browser reported:\n  %s", strings.Join(problems, "\n  "))
				}
				assert.Equal(t, tc.want.Status, seen.Status, "seen.Status")
				assert.Equal(t, tc.want.Badge, seen.Badge, "seen.Badge")
				assert.Equal(t, tc.want.Recipient, seen.Recipient, "seen.Recipient")
				assert.Equal(t, "Go Conference 2026", seen.Name, "seen.Name")
				assert.Equal(t, "Gophers e.V.", seen.Issuer, "seen.Issuer")
				assert.True(t, strings.HasPrefix(seen.Reason, tc.want.Reason), "%q should start with %q", seen.Reason, tc.want.Reason)
				if tc.name != "erased" { // an erased holder's page shows no preview
					assert.True(t, seen.PreviewLoaded, "images not loaded: seen.PreviewLoaded")
				}
				assert.True(t, seen.LogoLoaded, "images not loaded: seen.LogoLoaded")
				if seen.Overflow {
					t.Errorf("the page is wider than the %s's screen", vp.name)
				}
				if len(seen.Violations) > 0 {
					t.Errorf("CSP violations: %v", seen.Violations)
				}
				if len(seen.Accessibility) > 0 {
					t.Errorf("axe-core reports:\n  %s", strings.Join(seen.Accessibility, "\n  "))
				}
				if tc.name != "valid" {
					assert.Empty(t, seen.ShareLinks, "a revoked certificate offers sharing: seen.ShareLinks")
					assert.False(t, seen.CopyButton, "a revoked certificate offers sharing: seen.CopyButton")
				} else {
					checkShareLinks(t, env, tc.cert, seen.ShareLinks)
					if !seen.CopyButton {
						t.Error("the copy button is not shown")
					}
				}
				if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" { // every screenshot, to look at
					if err := os.WriteFile(filepath.Join(dir, tc.name+"-"+vp.name+".png"), shot, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if vp.name == "desktop" && os.Getenv("UPDATE_SCREENSHOTS") == "1" {
					out := filepath.Join(coverage.ModuleRoot(), "docs", "verify-"+tc.name+".png")
					if err := os.WriteFile(out, shot, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// runAxe runs axe-core's WCAG 2.1 A and AA rules on the page and answers one line per
// violation: the rule, what it asks, and the elements at fault.
const runAxe = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then((r) =>
  r.violations.map((v) => v.id + ": " + v.help + " — " + v.nodes.map((n) => n.target.join(" ")).join(", ")))`

// axeSource is Deque's axe-core (test/a11y, installed from its lock file by test/prereqs.sh).
func axeSource(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(coverage.ModuleRoot(), "test", "a11y")
	testkit.Node(t, dir, "axe-core")
	src, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	require.NoError(t, err)
	return string(src)
}

// loadInBrowser opens url in a new tab at the given size and returns what the page shows,
// what the browser complained about, and a full-page screenshot.
func loadInBrowser(t *testing.T, browserCtx context.Context, pageURL string, width, height int64, mobile bool, axe string) (seenPage, []string, []byte) {
	t.Helper()
	var mu sync.Mutex
	var problems []string
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	// The listener sees every event of the tab from its start (chromedp enables the Log and
	// Network domains for each tab): console errors and warnings, exceptions, the browser's
	// own log (CSP violations, failed loads), blocked or failed requests, error statuses.
	tab, cancel := chromedp.NewContext(browserCtx, chromedp.WithListener(func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				report("console.%s", ev.Type)
			}
		case *runtime.EventExceptionThrown:
			report("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				report("%s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventLoadingFailed:
			report("loading failed: %s %s (blocked: %s)", ev.Type, ev.ErrorText, ev.BlockedReason)
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				report("%d for %s", ev.Response.Status, ev.Response.URL)
			}
		}
	}))
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(tab, 60*time.Second)
	defer cancelTimeout()
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if mobile {
		opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile}
	}
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchCSP})
			return err
		}),
		chromedp.EmulateViewport(width, height, opts...),
		chromedp.Navigate(pageURL),
		chromedp.WaitVisible(chromedp.CSS(".status h1")),
	)
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`[...document.images].every((i) => i.complete)`, chromedp.WithPollingTimeout(30*time.Second)))
	}
	var seen seenPage
	if err == nil {
		seen, err = chromedp.Run(ctx, chromedp.Evaluate[seenPage](readPage))
	}
	if err == nil && axe != "" {
		// axe-core is evaluated by the browser's tools, as an extension would run it: the
		// page's Content-Security-Policy allows no script of another origin, and needs not to.
		_, err = chromedp.Run(ctx, chromedp.EvaluateAsDevTools[bool](axe+";true"))
		if err == nil {
			seen.Accessibility, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](runAxe, chromedp.EvalAwaitPromise))
		}
	}
	var shot []byte
	if err == nil {
		shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	}
	if err != nil {
		t.Fatalf("%s: %v", pageURL, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return seen, problems, shot
}

// checkShareLinks follows the page's share links one step: each goes through the share
// redirect to its network with the parameters the network expects.
func checkShareLinks(t *testing.T, env *testkit.Env, c certificateBody, links []string) {
	t.Helper()
	base := "/verify/" + c.Data.VerificationCode + "/share/"
	want := []string{base + "linkedin", base + "x", base + "facebook", base + "email"}
	if strings.Join(links, " ") != strings.Join(want, " ") {
		t.Fatalf("share links %v, want %v", links, want)
	}
	pageURL := env.Config.SiteURL.String() + "/verify/" + c.Data.VerificationCode
	for _, link := range links {
		res := env.Client.Get(link)
		to, err := url.Parse(res.Header.Get("Location"))
		require.Equal(t, 302, res.StatusCode, "%s: status", link)
		require.NoError(t, err, "%s: err", link)
		q := to.Query()
		switch {
		case strings.HasSuffix(link, "/linkedin"):
			assert.Equal(t, "CERTIFICATION_NAME", q.Get("startTask"), `linkedin: q.Get("startTask")`)
			assert.Equal(t, "Go Conference 2026", q.Get("name"), `linkedin: q.Get("name")`)
			assert.Equal(t, "Gophers e.V.", q.Get("organizationName"), `linkedin: q.Get("organizationName")`)
			assert.Equal(t, "2026", q.Get("issueYear"), `linkedin: q.Get("issueYear")`)
			assert.Equal(t, "11", q.Get("issueMonth"), `linkedin: q.Get("issueMonth")`)
			assert.Equal(t, "2028", q.Get("expirationYear"), `linkedin: q.Get("expirationYear")`)
			assert.Equal(t, "11", q.Get("expirationMonth"), `linkedin: q.Get("expirationMonth")`)
			assert.Equal(t, pageURL, q.Get("certUrl"), `linkedin: q.Get("certUrl")`)
			assert.Equal(t, c.Data.CertificateNumber, q.Get("certId"), `linkedin: q.Get("certId")`)
		case strings.HasSuffix(link, "/x"):
			assert.Equal(t, "x.com", to.Host, "x: to.Host")
			assert.Equal(t, pageURL, q.Get("url"), `x: q.Get("url")`)
		case strings.HasSuffix(link, "/facebook"):
			assert.Equal(t, "www.facebook.com", to.Host, "facebook: to.Host")
			assert.Equal(t, pageURL, q.Get("u"), `facebook: q.Get("u")`)
		case strings.HasSuffix(link, "/email"):
			assert.Equal(t, "mailto", to.Scheme, "email: to.Scheme")
			assert.Contains(t, q.Get("body"), pageURL, `email: q.Get("body")`)
		}
	}
}

// sampleLogo is the issuer's mark in the screenshots (the one the template previews use).
const sampleLogo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 120">
<polygon points="60,6 107,33 107,87 60,114 13,87 13,33" fill="#1F2A44"/>
<polygon points="60,24 91,42 91,78 60,96 29,78 29,42" fill="#C9A227"/>
<circle cx="60" cy="60" r="14" fill="#FFFFFF"/></svg>`

// startBrowser starts Chromium headless with a fresh profile for the test (stopped with it),
// for tests that open several tabs of their own sizes in one browser.
func startBrowser(t *testing.T, chrome string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("FONTCONFIG_FILE=" + fontconfigWithCJK(t))}, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", chrome, err)
	}
	return ctx
}
