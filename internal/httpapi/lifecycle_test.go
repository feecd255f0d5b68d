package httpapi_test

import (
	"fmt"
	"net/netip"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// linkToken finds the token of a link of kind (reset, verify) in an email's text.
func linkToken(t *testing.T, kind, text string) string {
	t.Helper()
	m := regexp.MustCompile(`/app/#` + kind + `=([A-Za-z0-9_-]{43})`).FindStringSubmatch(text)
	require.NotNil(t, m, "no %s link in:\n%s", kind, text)
	return m[1]
}

func signIn(t *testing.T, env *testkit.Env, email, password string) (*contract.Client, tokens) {
	t.Helper()
	res := env.Client.Post("/api/v1/auth/login", map[string]any{"email": email, "password": password})
	require.Equal(t, 200, res.StatusCode, "login: %s", res.Body)
	var tk tokens
	res.JSON(t, &tk)
	return env.Client.WithBearer(tk.Data.AccessToken), tk
}

func TestAResetLinkWorksOnceAndEndsEverySession(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	other, otherTokens := signIn(t, tm.env, tm.owner.Email, testkit.Password)

	res := tm.env.Client.Post("/api/v1/auth/password/forgot", map[string]any{"email": tm.owner.Email})
	require.Equal(t, 202, res.StatusCode, "%s", res.Body)
	token := linkToken(t, "reset", tm.messageTo(t, tm.owner.Email))
	var body string
	testkit.QueryRow(t, tm.env, `SELECT body_text FROM email_deliveries WHERE kind = 'password_reset'`, nil, &body)
	require.NotContains(t, body, token, "the recorded body holds the token")

	res = tm.env.Client.Post("/api/v1/auth/password/reset", map[string]any{"token": token, "password": "a brand new passphrase"})
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	require.Equal(t, 401, tm.owner.Client.Get("/api/v1/auth/me").StatusCode, "a session begun before the reset")
	require.Equal(t, 401, other.Get("/api/v1/auth/me").StatusCode, "another session begun before the reset")
	refreshed := tm.env.Client.Post("/api/v1/auth/refresh", map[string]any{"refreshToken": otherTokens.Data.RefreshToken})
	require.Equal(t, 401, refreshed.StatusCode, "a refresh token of a session begun before the reset")
	bad := tm.env.Client.Post("/api/v1/auth/login", map[string]any{"email": tm.owner.Email, "password": testkit.Password})
	require.Equal(t, 401, bad.StatusCode, "the old password")
	signIn(t, tm.env, tm.owner.Email, "a brand new passphrase")

	again := tm.env.Client.Post("/api/v1/auth/password/reset", map[string]any{"token": token, "password": "yet another passphrase"})
	wantError(t, again, 410, again.StatusCode, "TOKEN_GONE")
	require.Contains(t, tm.messageTo(t, tm.owner.Email), "was changed", "the password-changed email")

	var n int
	testkit.QueryRow(t, tm.env, `SELECT count(*) FROM audit_log WHERE action = 'user.password_reset'`, nil, &n)
	require.Equal(t, 1, n, "the reset's audit entry")
}

// Forgot-password answers alike for known and unknown addresses; a user gets at most five
// links an hour whoever asks, and a client address may ask five times an hour.
func TestForgotPasswordAnswersAlikeAndIsBounded(t *testing.T) {
	t.Parallel()
	tm := newTeam(t, testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}))
	ask := func(email, from string) *contract.Response {
		req := tm.env.Client.Request("POST", "/api/v1/auth/password/forgot", map[string]any{"email": email})
		req.Header.Set("X-Forwarded-For", from)
		return tm.env.Client.Do(req)
	}
	known, unknown := ask(tm.owner.Email, "203.0.113.1"), ask("nobody@example.org", "203.0.113.2")
	require.Equal(t, 202, known.StatusCode)
	require.Equal(t, known.StatusCode, unknown.StatusCode)
	require.Equal(t, string(known.Body), string(unknown.Body))
	for i := 0; i < 6; i++ {
		require.Equal(t, 202, ask(tm.owner.Email, fmt.Sprintf("203.0.113.%d", 10+i)).StatusCode)
	}
	_, err := runEmail(t, tm.env)
	require.NoError(t, err)
	var sent int
	for _, m := range tm.smtp.Messages()[tm.seen:] {
		if len(m.To) == 1 && m.To[0] == tm.owner.Email {
			sent++
		}
	}
	require.Equal(t, 5, sent, "reset emails in an hour")

	for i := 0; i < 5; i++ {
		require.Equal(t, 202, ask(fmt.Sprintf("someone%d@example.org", i), "198.51.100.7").StatusCode)
	}
	res := ask("someone@example.org", "198.51.100.7")
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
}

func TestChangingThePasswordEndsTheOtherSessions(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	other, _ := signIn(t, tm.env, tm.owner.Email, testkit.Password)
	res := tm.owner.Client.Post("/api/v1/auth/password/change", map[string]any{"currentPassword": "not my password", "newPassword": "a brand new passphrase"})
	e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	require.Equal(t, "body.currentPassword", e.Error.Details[0].Field)

	res = tm.owner.Client.Post("/api/v1/auth/password/change", map[string]any{"currentPassword": testkit.Password, "newPassword": "a brand new passphrase"})
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	require.Equal(t, 200, tm.owner.Client.Get("/api/v1/auth/me").StatusCode, "the session that changed it goes on")
	require.Equal(t, 401, other.Get("/api/v1/auth/me").StatusCode, "the other session ended")
	require.Contains(t, tm.messageTo(t, tm.owner.Email), "was changed")
}

func TestAnAddressIsVerifiedByItsLinkOnce(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	res := tm.env.Client.Post("/api/v1/auth/register", map[string]any{"email": "fresh@example.org", "password": testkit.Password,
		"name": "Fresh", "accountName": "Fresh Ltd"})
	require.Equal(t, 201, res.StatusCode, "%s", res.Body)
	var tk tokens
	res.JSON(t, &tk)
	fresh := tm.env.Client.WithBearer(tk.Data.AccessToken)
	var me struct{ Data struct{ EmailVerified bool } }
	fresh.Get("/api/v1/auth/me").JSON(t, &me)
	require.False(t, me.Data.EmailVerified, "a new registration")
	token := linkToken(t, "verify", tm.messageTo(t, "fresh@example.org"))

	res = fresh.Post("/api/v1/auth/email/resend", nil)
	require.Equal(t, 202, res.StatusCode, "%s", res.Body)
	second := linkToken(t, "verify", tm.messageTo(t, "fresh@example.org"))

	res = tm.env.Client.Post("/api/v1/auth/email/verify", map[string]any{"token": token})
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	fresh.Get("/api/v1/auth/me").JSON(t, &me)
	require.True(t, me.Data.EmailVerified)
	res = tm.env.Client.Post("/api/v1/auth/email/verify", map[string]any{"token": token})
	wantError(t, res, 410, res.StatusCode, "TOKEN_GONE")
	res = tm.env.Client.Post("/api/v1/auth/email/verify", map[string]any{"token": second})
	require.Equal(t, 204, res.StatusCode, "the other link still verifies: %s", res.Body)
	res = fresh.Post("/api/v1/auth/email/resend", nil)
	wantError(t, res, 409, res.StatusCode, "CONFLICT")

	// An invitation accepted shows the address is the member's.
	colleague := tm.join(t, "viewer")
	colleague.Client.Get("/api/v1/auth/me").JSON(t, &me)
	require.True(t, me.Data.EmailVerified, "a member who accepted an invitation")
}

// With REQUIRE_VERIFIED_EMAIL, an unverified session may only see who it is, ask for the link
// again and sign out.
func TestAnUnverifiedSessionIsRefusedWhereVerifiedAddressesAreRequired(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) { c.RequireVerifiedEmail = true }))
	res := env.Client.Post("/api/v1/auth/register", map[string]any{"email": "unsure@example.org", "password": testkit.Password,
		"name": "Unsure", "accountName": "Unsure Ltd"})
	require.Equal(t, 201, res.StatusCode, "%s", res.Body)
	var tk tokens
	res.JSON(t, &tk)
	c := env.Client.WithBearer(tk.Data.AccessToken)
	res = c.Get("/api/v1/events")
	wantError(t, res, 403, res.StatusCode, "EMAIL_NOT_VERIFIED")
	require.Equal(t, 200, c.Get("/api/v1/auth/me").StatusCode)
	require.Equal(t, 202, c.Post("/api/v1/auth/email/resend", nil).StatusCode)
	testkit.SQL(t, env, `UPDATE users SET email_verified_at = now() WHERE email = 'unsure@example.org'`)
	require.Equal(t, 200, c.Get("/api/v1/events").StatusCode, "once verified")
}

func TestAUserSeesAndEndsTheirSessions(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	other, _ := signIn(t, env, acct.Email, testkit.Password)
	var list struct {
		Data []struct {
			ID        string
			Current   bool
			IP        *string
			UserAgent *string
		}
	}
	res := acct.Client.Get("/api/v1/auth/sessions")
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	res.JSON(t, &list)
	require.Len(t, list.Data, 2)
	var otherID string
	current := 0
	for _, s := range list.Data {
		require.NotNil(t, s.IP)
		require.Equal(t, "127.0.0.1", *s.IP)
		require.NotNil(t, s.UserAgent)
		if s.Current {
			current++
		} else {
			otherID = s.ID
		}
	}
	require.Equal(t, 1, current, "sessions marked current")
	res = acct.Client.Delete("/api/v1/auth/sessions/" + otherID)
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	require.Equal(t, 401, other.Get("/api/v1/auth/me").StatusCode, "the ended session")
	require.Equal(t, 200, acct.Client.Get("/api/v1/auth/me").StatusCode)
	res = acct.Client.Delete("/api/v1/auth/sessions/" + otherID)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")

	// Another user's session is not found either.
	stranger := testkit.SignUp(t, env)
	var theirs struct{ Data []struct{ ID string } }
	stranger.Client.Get("/api/v1/auth/sessions").JSON(t, &theirs)
	res = acct.Client.Delete("/api/v1/auth/sessions/" + theirs.Data[0].ID)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}
