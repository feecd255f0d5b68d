package httpapi_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// signInToKeys signs acct in through the application and opens its API keys page.
func signInToKeys(t *testing.T, a *appTab, acct *testkit.Account) {
	t.Helper()
	a.on("Sign in")
	a.fill("Email address", acct.Email)
	a.fill("Password", testkit.Password)
	a.press("Sign in")
	a.on("Home")
	a.press("API keys")
	a.on("API keys")
}

// tickScope checks the box of a key's scope (its label names the scope in code).
func tickScope(a *appTab, scope string) {
	a.t.Helper()
	sel := chromedp.Search(fmt.Sprintf(`//tr[.//label/code[normalize-space(.)=%q]]//input[@type="checkbox"]`, scope))
	a.do(chromedp.WaitVisible(sel), chromedp.Click(sel))
}

// pressLabelled clicks the button whose accessible name is its aria-label, label.
func pressLabelled(a *appTab, label string) {
	a.t.Helper()
	sel := chromedp.Search(fmt.Sprintf(`//button[@aria-label=%q]`, label))
	a.do(chromedp.WaitVisible(sel), chromedp.Click(sel))
}

// focusOn waits until the focus is where the expression (of document.activeElement) says: the
// page moves it once it has drawn what it shows.
func focusOn(a *appTab, expr, what string) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.tab, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		a.t.Fatalf("the focus is not on %s but on %q: %v", what, value(a, chromedp.Evaluate[string](`document.activeElement.outerHTML.slice(0, 200)`)), err)
	}
}

// An organiser creates an API key with two scopes in the application at a phone's size and a
// desktop's: a key with no scope is refused in words; the new key's secret is shown once, in
// its box, and works on the API with its scopes; the list shows the key without the secret;
// once the box is dismissed, the secret is nowhere on the page; revoking it (after a
// confirmation in a dialog) removes it from the list and the API refuses it. A session that
// signed in more than 5 minutes ago is asked for the password, and a wrong one is refused in
// words. Every state passes axe-core with no complaint of the browser.
func TestTheApplicationsAPIKeys(t *testing.T) {
	clock := &testkit.Clock{}
	env, browserCtx, axe := newAppServer(t, testkit.WithClock(clock.Now))

	for _, size := range appSizes {
		t.Run(size.name, func(t *testing.T) {
			acct := testkit.SignUp(t, env)
			a := openApp(t, env, browserCtx, axe, "/app/", size.width, size.height, size.mobile)
			signInToKeys(t, a, acct)
			a.sees("No active keys yet.")
			a.accessible("api keys, none")
			a.shot("keys-empty-" + size.name + ".png")

			// No scope: refused, in words, under the group of scopes.
			a.fill("Key name", "CRM sync")
			a.press("Create the key")
			a.sees("minimum number of items is 1")
			focusOn(a, `document.activeElement.type === "checkbox"`, "the first scope")
			a.accessible("api keys, refused")
			a.shot("keys-refused-" + size.name + ".png")

			tickScope(a, "events:read")
			tickScope(a, "attendees:write")
			a.press("Create the key")
			a.sees("it will not be shown again")
			secret := value(a, chromedp.Text(chromedp.CSS(".secret")))
			require.Regexp(t, regexp.MustCompile(`^cis_live_[A-Za-z0-9_-]{43}$`), secret, "the new key's secret")
			focusOn(a, `document.activeElement.textContent === "Your new key “CRM sync”"`, "the new key's box")
			a.press("Copy")
			a.sees("Copied.")
			a.accessible("api keys, new key")
			a.shot("keys-new-" + size.name + ".png")

			// The key works, within its scopes.
			key := env.Client.WithBearer(secret)
			res := key.Get("/api/v1/events")
			require.Equal(t, 200, res.StatusCode, "the new key on GET /events (body %s)", res.Body)
			res = key.Get("/api/v1/templates")
			require.Equal(t, 403, res.StatusCode, "the new key has no templates:read (body %s)", res.Body)

			// The list shows it, without the secret.
			table := value(a, chromedp.Evaluate[string](`document.querySelector("table").innerText`))
			for _, want := range []string{"CRM sync", secret[:12], "events:read", "attendees:write", "Owner "} {
				require.Contains(t, table, want, "the list of keys")
			}
			require.NotContains(t, table, secret, "the list shows no secret")
			require.Equal(t, "Active keys", value(a, chromedp.Evaluate[string](
				`document.getElementById(document.querySelector("table").getAttribute("aria-labelledby")).textContent`)), "the table's name")
			if size.mobile {
				// A narrow screen scrolls the table inside its frame, not the page.
				require.LessOrEqual(t, value(a, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)), int(size.width), "the page overflows")
				require.True(t, value(a, chromedp.Evaluate[bool](`(w => w.scrollWidth > w.clientWidth)(document.querySelector(".table-wrap"))`)),
					"the table scrolls in .table-wrap")
			}

			// Dismissed, the secret is gone from the page.
			a.press("Done, hide the key")
			a.do(chromedp.WaitNotPresent(chromedp.CSS(".secret")))
			require.NotContains(t, a.page(), secret, "the page still shows the secret")
			require.NotContains(t, value(a, chromedp.Evaluate[string](`document.documentElement.outerHTML`)), secret, "the document keeps the secret")
			a.accessible("api keys, one key")
			a.shot("keys-list-" + size.name + ".png")

			// Revoking asks first; Cancel keeps the key.
			pressLabelled(a, "Revoke CRM sync")
			a.sees("Revoke the key “CRM sync”?")
			require.True(t, value(a, chromedp.Evaluate[bool](`(r => r.left >= 0 && r.right <= innerWidth)(document.querySelector("dialog").getBoundingClientRect())`)),
				"the dialog is within the screen")
			a.accessible("api keys, revoke dialog")
			a.shot("keys-revoke-" + size.name + ".png")
			a.press("Cancel")
			a.do(chromedp.WaitNotPresent(chromedp.CSS("dialog")))
			require.Equal(t, 200, key.Get("/api/v1/events").StatusCode, "a cancelled revocation keeps the key")

			pressLabelled(a, "Revoke CRM sync")
			a.press("Revoke the key")
			a.sees("The key “CRM sync” is revoked.")
			a.sees("No active keys yet.")
			a.accessible("api keys, revoked")
			res = key.Get("/api/v1/events")
			wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
		})
	}

	// The last: the clock moves on, so that every session signed in more than 5 minutes ago.
	t.Run("recent sign-in", func(t *testing.T) {
		acct := testkit.SignUp(t, env)
		a := openApp(t, env, browserCtx, axe, "/app/", 1280, 800, false)
		signInToKeys(t, a, acct)
		clock.Advance(6 * time.Minute)

		a.fill("Key name", "Nightly export")
		tickScope(a, "certificates:read")
		a.press("Create the key")
		a.sees("Confirm your password to create the key.")
		require.Equal(t, 0, value(a, chromedp.Evaluate[int](`document.querySelectorAll(".secret").length`)), "no key without the password")
		focusOn(a, `document.activeElement.type === "password"`, "the password field")
		a.accessible("api keys, password asked")
		a.shot("keys-confirm-desktop.png")

		a.fill("Confirm your password", "not the password")
		a.press("Create the key")
		a.sees("is not correct")
		require.Equal(t, 1, a.invalidFields(), "the password field says it is wrong")
		a.accessible("api keys, wrong password")

		a.fill("Confirm your password", testkit.Password)
		a.press("Create the key")
		a.sees("it will not be shown again")
		secret := value(a, chromedp.Text(chromedp.CSS(".secret")))
		require.True(t, strings.HasPrefix(secret, "cis_live_"), "the secret: %q", secret)
		res := env.Client.WithBearer(secret).Get("/api/v1/certificates")
		require.Equal(t, 200, res.StatusCode, "the new key on GET /certificates (body %s)", res.Body)
		a.press("Done, hide the key")
		a.sees("Nightly export")
	})
}
