package httpapi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
)

// appTab is one tab of Chromium on the application (/app/), at one size, that records what
// the browser complained about: console errors, exceptions, CSP violations, failed loads.
// Answers of 4xx the application expects (a refused sign-in, the first refresh without a
// cookie) are the page's business, not a complaint: it shows them in words, which the tests
// read.
type appTab struct {
	t        *testing.T
	env      *testkit.Env
	tab      context.Context
	axe      string
	mu       sync.Mutex
	problems []string
}

// stepTimeout bounds each step of a test in the application (a page to show, a field to fill).
const stepTimeout = 20 * time.Second

// appSizes are the widths the application is tried at: a small phone and a desktop.
var appSizes = []struct {
	name          string
	width, height int64
	mobile        bool
}{{"phone", 360, 740, true}, {"desktop", 1280, 800, false}}

// newAppServer starts the service with its site at its own address (the cookie is then not
// Secure, as on `make run`), checking every call the application makes against the contract,
// and a browser for the application.
func newAppServer(t *testing.T, opts ...testkit.Option) (*testkit.Env, context.Context, string) {
	t.Helper()
	chrome := browser.Binary(t)
	env := testkit.NewServer(t, append([]testkit.Option{testkit.WithSiteAtServer(), testkit.WithEveryAnswerChecked()}, opts...)...)
	return env, startBrowser(t, chrome), axeSource(t)
}

// openApp opens path of the application in a new tab of browserCtx at size.
func openApp(t *testing.T, env *testkit.Env, browserCtx context.Context, axe, path string, width, height int64, mobile bool) *appTab {
	t.Helper()
	a := &appTab{t: t, env: env, axe: axe}
	// Each tab is a person of its own: a browser context of its own, with its own cookies.
	tab, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				a.report("console.%s", ev.Type)
			}
		case *runtime.EventExceptionThrown:
			a.report("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			// The browser logs a failed fetch (a 401 the application expects) as an error of
			// source network; the rest (CSP, security) is a complaint.
			if (ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning) && ev.Entry.Source != log.EntrySourceNetwork {
				a.report("%s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventLoadingFailed:
			if ev.Type == network.ResourceTypeFetch && ev.ErrorText == "net::ERR_ABORTED" {
				return // a call in flight when the test reloaded the page
			}
			a.report("loading failed: %s %s (blocked: %s)", ev.Type, ev.ErrorText, ev.BlockedReason)
		case *network.EventResponseReceived:
			if ev.Response.Status >= 500 || (ev.Response.Status == 404 && ev.Type != network.ResourceTypeFetch) {
				a.report("%d for %s", ev.Response.Status, ev.Response.URL)
			}
		}
	}))
	t.Cleanup(cancel)
	// The tab opens on its own context: the first action's context owns the tab, and the
	// steps' contexts (with their timeouts) end after each step.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	a.tab = tab
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if mobile {
		opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile}
	}
	a.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchCSP})
		return err
	}), chromedp.EmulateViewport(width, height, opts...), chromedp.Navigate(env.URL+path))
	return a
}

func (a *appTab) report(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.problems = append(a.problems, fmt.Sprintf(format, args...))
}

func (a *appTab) do(actions ...chromedp.Action[chromedp.Void]) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.tab, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		a.t.Fatalf("browser: %v (complaints so far: %v; the page: %.2000s)", err, a.complaints(), a.page())
	}
}

// page is what the tab shows, for a failure's message.
func (a *appTab) page() string {
	ctx, cancel := context.WithTimeout(a.tab, 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return err.Error()
	}
	return text
}

// value runs one action that answers a value.
func value[T any](a *appTab, action chromedp.Action[T]) T {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.tab, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		a.t.Fatalf("browser: %v (complaints so far: %v)", err, a.complaints())
	}
	return v
}

func (a *appTab) complaints() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.problems...)
}

// fill types text into the field labelled label (an exact label text).
func (a *appTab) fill(label, text string) {
	a.t.Helper()
	sel := chromedp.Search(fmt.Sprintf(`//label[normalize-space(.)=%q]/following::*[self::input or self::textarea or self::select][1]`, label))
	// Typed over what the field holds (selected first), as a person would: the page's state
	// follows the keys, where a value set by script would leave it behind.
	a.do(chromedp.WaitVisible(sel), chromedp.Focus(sel))
	value(a, chromedp.Evaluate[bool](`document.activeElement.select(), true`))
	a.do(chromedp.SendKeys(sel, text))
}

// press clicks the button or link whose text is text.
func (a *appTab) press(text string) {
	a.t.Helper()
	sel := chromedp.Search(fmt.Sprintf(`//*[(self::button or self::a) and normalize-space(.)=%q]`, text))
	a.do(chromedp.WaitVisible(sel), chromedp.Click(sel))
}

// sees waits until the page shows text (in any element), and fails after the tab's time.
func (a *appTab) sees(text string) {
	a.t.Helper()
	a.do(chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//*[contains(normalize-space(.), %q) and not(*[contains(normalize-space(.), %q)])]`, text, text))))
}

// on waits until the page's heading (its h1) is want, and fails naming the heading it has.
func (a *appTab) on(want string) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.tab, stepTimeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`(document.querySelector("main h1")?.textContent ?? "").trim() === %q`, want),
		chromedp.WithPollingTimeout(stepTimeout)))
	if err != nil {
		a.t.Fatalf("the page's heading is not %q: %v (the page: %.1500s; complaints: %v)", want, err, a.page(), a.complaints())
	}
}

// invalidFields counts the fields the page marks as refused (the API named them).
func (a *appTab) invalidFields() int {
	a.t.Helper()
	return value(a, chromedp.Evaluate[int](`document.querySelectorAll(".field.invalid [aria-invalid=true]").length`))
}

// accessible runs axe-core on the page as it is (WCAG 2.1 A and AA) and fails on a violation;
// and on any complaint of the browser so far, or a CSP violation.
func (a *appTab) accessible(what string) {
	a.t.Helper()
	value(a, chromedp.EvaluateAsDevTools[bool](a.axe+";true"))
	require.Empty(a.t, value(a, chromedp.Evaluate[[]string](runAxe, chromedp.EvalAwaitPromise)), "%s: axe-core", what)
	require.Empty(a.t, value(a, chromedp.Evaluate[[]string](`window.__cspViolations || []`)), "%s: CSP violations", what)
	require.Empty(a.t, a.complaints(), "%s: the browser's complaints", what)
}

// shot saves a screenshot of the viewport as name under SCREENSHOT_DIR, when set.
func (a *appTab) shot(name string) {
	a.t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	png := value(a, chromedp.CaptureScreenshot())
	require.NoError(a.t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}

// An organiser signs up in the application, lands on the home page (credits, figures, no
// events yet), signs out, signs in again, and a reload keeps them signed in (the access token
// was in memory only; the HttpOnly cookie brought the session back); with two-step sign-in on,
// the application asks for the code and takes it. At a phone's width and a desktop's, every
// page passes axe-core with no CSP violation and no complaint of the browser, and script never
// sees the refresh token.
func TestTheApplicationSignsAnOrganiserUpAndIn(t *testing.T) {
	env, browserCtx, axe := newAppServer(t)
	for i, size := range appSizes {
		t.Run(size.name, func(t *testing.T) {
			email := fmt.Sprintf("organiser%d@example.org", i)
			a := openApp(t, env, browserCtx, axe, "/app/", size.width, size.height, size.mobile)
			a.on("Sign in")
			a.accessible("sign-in")
			a.shot("app-sign-in-" + size.name + ".png")

			a.press("Create an account")
			a.on("Create an account")
			a.press("Create the account")
			a.sees("The request is not valid.")
			require.Equal(t, 4, a.invalidFields(), "each empty field says what is wrong with it")
			a.accessible("sign-up, refused")
			a.fill("Your name", "Ada Organiser")
			a.fill("Email address", email)
			a.fill("Organisation", "Gophers e.V.")
			a.fill("Password", "correct horse battery")
			a.press("Create the account")
			a.on("Home")
			a.sees("No events yet.")
			if !size.mobile { // a phone's header has no room for the name
				a.sees("Signed in as Ada Organiser")
			}
			a.accessible("home")
			a.shot("app-home-" + size.name + ".png")
			require.NotContains(t, value(a, chromedp.Evaluate[string](`document.cookie`)), "cis_refresh", "script sees no refresh token")

			// A reload keeps the session: the cookie brings it back.
			a.do(chromedp.Reload())
			a.on("Home")

			a.press("Sign out")
			a.on("Sign in")
			a.do(chromedp.Reload())
			a.on("Sign in") // signed out stays signed out

			a.fill("Email address", email)
			a.fill("Password", "not the password")
			a.press("Sign in")
			a.sees("The email, password or code is wrong.")
			a.accessible("sign-in, refused")
			a.fill("Password", "correct horse battery")
			a.press("Sign in")
			a.on("Home")
		})
	}

	t.Run("german", func(t *testing.T) {
		acct := testkit.SignUp(t, env)
		a := openApp(t, env, browserCtx, axe, "/app/", 1280, 800, false)
		a.fill("Email address", acct.Email)
		a.fill("Password", testkit.Password)
		a.press("Sign in")
		a.on("Home")
		value(a, chromedp.Evaluate[bool](`(s => (s.value = "de", s.dispatchEvent(new Event("change", {bubbles: true})), true))(document.querySelector("header select"))`))
		a.on("Start")
		require.Equal(t, "de", value(a, chromedp.Evaluate[string](`document.documentElement.lang`)))
		a.sees("Guthaben in diesem Monat")
		a.accessible("home, German")
		a.press("Veranstaltungen")
		a.on("Veranstaltungen")
		a.accessible("events, German")
		a.press("API-Schlüssel")
		a.on("API-Schlüssel")
		a.accessible("API keys, German")
		// The choice is kept for the next visit.
		a.do(chromedp.Reload())
		a.on("API-Schlüssel")
	})

	t.Run("two-step", func(t *testing.T) {
		acct := testkit.SignUp(t, env)
		var setup struct{ Data struct{ Secret string } }
		acct.Client.Post("/api/v1/auth/two-factor/setup", nil).JSON(t, &setup)
		code := func(ago int64) string {
			c, err := auth.TOTPCode(setup.Data.Secret, auth.TOTPStep(time.Now())-ago)
			require.NoError(t, err)
			return c
		}
		// Enabled with the previous step's code (within the allowed skew), so that the current
		// step's signs in: a step works once, and only after the last one used.
		res := acct.Client.Post("/api/v1/auth/two-factor/enable", map[string]string{"code": code(1)})
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
		a := openApp(t, env, browserCtx, axe, "/app/", 1280, 800, false)
		a.fill("Email address", acct.Email)
		a.fill("Password", testkit.Password)
		a.press("Sign in")
		a.on("Two-step sign-in")
		a.accessible("two-step")
		a.fill("Code from your authenticator app", code(0))
		a.press("Sign in")
		a.on("Home")
	})
}
