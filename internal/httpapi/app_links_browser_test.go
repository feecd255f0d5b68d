package httpapi_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
)

// The links of the service's emails open the application's pages: a colleague accepts an
// invitation from its email and is signed in (a reload keeps them); the owner asks for a reset
// link on the sign-in page, sets a new password from the email's link and signs in with it. The
// tokens leave the address bar as soon as the page opens. Emails go through a real SMTP server.
func TestTheApplicationOpensTheEmailsLinks(t *testing.T) {
	tm := newTeam(t, testkit.WithSiteAtServer(), testkit.WithEveryAnswerChecked())
	browserCtx, axe := startBrowser(t, browser.Binary(t)), axeSource(t)

	t.Run("invitation", func(t *testing.T) {
		token := tm.invite(t, tm.owner.Client, "grace@example.org", "issuer")
		a := openApp(t, tm.env, browserCtx, axe, "/app/#invite="+token, 1280, 800, false)
		a.on("Join your colleagues")
		require.NotContains(t, value(a, chromedp.Evaluate[string](`location.href`)), token, "the token left the address")
		a.accessible("invitation")
		a.fill("Your name", "Grace Colleague")
		a.fill("Password", "another horse battery")
		a.press("Accept and sign in")
		a.on("Home")
		a.sees("Signed in as Grace Colleague")
		a.do(chromedp.Reload())
		a.on("Home")

		// The link works once.
		b := openApp(t, tm.env, browserCtx, axe, "/app/#invite="+token, 360, 740, true)
		b.on("Join your colleagues")
		b.fill("Your name", "Someone Else")
		b.fill("Password", "another horse battery")
		b.press("Accept and sign in")
		b.sees("expired")
		b.accessible("invitation used")
	})

	t.Run("password reset", func(t *testing.T) {
		a := openApp(t, tm.env, browserCtx, axe, "/app/", 1280, 800, false)
		a.press("Forgot your password?")
		a.on("Reset your password")
		a.fill("Email address", tm.owner.Email)
		a.press("Send the link")
		a.sees("a link is on its way")
		a.accessible("forgot")
		text := tm.messageTo(t, tm.owner.Email)
		m := regexp.MustCompile(`/app/#reset=([A-Za-z0-9_-]+)`).FindStringSubmatch(text)
		require.NotNil(t, m, "the reset link in:\n%s", text)

		b := openApp(t, tm.env, browserCtx, axe, "/app/#reset="+m[1], 360, 740, true)
		b.on("Set a new password")
		require.False(t, strings.Contains(value(b, chromedp.Evaluate[string](`location.href`)), m[1]), "the token left the address")
		b.fill("New password", "short")
		b.press("Set the password")
		b.sees("The request is not valid.")
		require.Equal(t, 1, b.invalidFields(), "a short password is refused at its field")
		b.accessible("reset refused")
		b.fill("New password", "a brand new horse battery")
		b.press("Set the password")
		b.sees("Your password is set")
		b.press("Sign in")
		b.on("Sign in")
		b.fill("Email address", tm.owner.Email)
		b.fill("Password", "a brand new horse battery")
		b.press("Sign in")
		b.on("Home")
	})
}
