package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
)

type tokens struct {
	Data struct {
		AccessToken  string    `json:"accessToken"`
		RefreshToken string    `json:"refreshToken"`
		ExpiresAt    time.Time `json:"expiresAt"`
	} `json:"data"`
}

func wantError(t *testing.T, res interface {
	JSON(testing.TB, any)
}, status, got int, code string) errorBody {
	t.Helper()
	var e errorBody
	res.JSON(t, &e)
	require.Equal(t, status, got, "status (error %s: %s)", e.Error.Code, e.Error.Message)
	require.Equal(t, code, e.Error.Code, "error code (%s)", e.Error.Message)
	return e
}

func TestRegisterLoginMeAndLogout(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)

	res := acct.Client.Get("/api/v1/auth/me")
	var me struct {
		Data struct {
			Email, Name, Role string
			TwoFactorEnabled  bool
			Account           struct{ Name, Plan string }
		}
	}
	res.JSON(t, &me)
	require.Equal(t, 200, res.StatusCode, "me: status (body %s)", res.Body)
	require.Equal(t, acct.Email, me.Data.Email, "me: me.Data.Email")
	require.Equal(t, "owner", me.Data.Role, "me: me.Data.Role")
	require.Equal(t, "free", me.Data.Account.Plan, "me: me.Data.Account.Plan")
	require.False(t, me.Data.TwoFactorEnabled, "me: me.Data.TwoFactorEnabled")

	res = env.Client.Post("/api/v1/auth/login", map[string]string{"email": strings.ToUpper(acct.Email), "password": testkit.Password})
	var login tokens
	res.JSON(t, &login)
	require.Equal(t, 200, res.StatusCode, "login: status (body %s)", res.Body)
	require.NotEmpty(t, login.Data.AccessToken, "login: login.Data.AccessToken")
	require.True(t, strings.HasPrefix(login.Data.RefreshToken, "rt_"), "login: %q should start with %q", login.Data.RefreshToken, "rt_")
	d := time.Until(login.Data.ExpiresAt)
	require.GreaterOrEqual(t, d, 14*time.Minute, "expiresAt %s is not 15 minutes ahead", login.Data.ExpiresAt)
	require.LessOrEqual(t, d, 15*time.Minute, "expiresAt %s is not 15 minutes ahead", login.Data.ExpiresAt)
	session := env.Client.WithBearer(login.Data.AccessToken)

	res = session.Post("/api/v1/auth/logout", map[string]string{"refreshToken": login.Data.RefreshToken})
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("logout: %d %s", res.StatusCode, res.Body)
	}
	res = session.Get("/api/v1/auth/me")
	wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	res = env.Client.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": login.Data.RefreshToken})
	wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	// The other session of the account is untouched.
	if res := acct.Client.Get("/api/v1/auth/me"); res.StatusCode != 200 {
		t.Fatalf("the registration's session ended with the other one: %d", res.StatusCode)
	}
}

func TestLoginRefusesWrongPasswordsAndUnknownEmailsAlike(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for _, body := range []map[string]string{
		{"email": acct.Email, "password": "wrong password"},
		{"email": "nobody@example.org", "password": testkit.Password},
	} {
		res := env.Client.Post("/api/v1/auth/login", body)
		e := wantError(t, res, 401, res.StatusCode, "INVALID_CREDENTIALS")
		require.NotContains(t, e.Error.Message, "nobody", "the message tells whether the account exists: e.Error.Message")
		require.NotContains(t, strings.ToLower(e.Error.Message), "no such user", "the message tells whether the account exists: e.Error.Message")
	}
}

func TestRegisterRefusesATakenEmailAndSwitchedOffSignUp(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	res := env.Client.Post("/api/v1/auth/register", map[string]string{
		"email": strings.ToUpper(acct.Email), "password": testkit.Password, "name": "Other", "accountName": "Other"})
	e := wantError(t, res, 409, res.StatusCode, "CONFLICT")
	require.Len(t, e.Error.Details, 1, "details")
	require.Equal(t, "body.email", e.Error.Details[0].Field, "details")

	closed := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) { c.SignupEnabled = false }))
	res = closed.Client.Post("/api/v1/auth/register", map[string]string{
		"email": "new@example.org", "password": testkit.Password, "name": "New", "accountName": "New"})
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}

func TestRefreshRotatesAndAReusedTokenRevokesTheSession(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)

	res := env.Client.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": acct.RefreshToken})
	var next tokens
	res.JSON(t, &next)
	require.Equal(t, 200, res.StatusCode, "refresh: status (body %s)", res.Body)
	require.NotEqual(t, acct.RefreshToken, next.Data.RefreshToken, "refresh: next.Data.RefreshToken")
	fresh := env.Client.WithBearer(next.Data.AccessToken)
	if res := fresh.Get("/api/v1/auth/me"); res.StatusCode != 200 {
		t.Fatalf("the new access token: %d", res.StatusCode)
	}
	// The old refresh token again: someone holds a copy. The whole session ends.
	res = env.Client.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": acct.RefreshToken})
	wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	for name, c := range map[string]func() int{
		"new access token": func() int { return fresh.Get("/api/v1/auth/me").StatusCode },
		"old access token": func() int { return acct.Client.Get("/api/v1/auth/me").StatusCode },
		"new refresh token": func() int {
			return env.Client.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": next.Data.RefreshToken}).StatusCode
		},
	} {
		if got := c(); got != 401 {
			t.Errorf("%s after reuse: %d, want 401", name, got)
		}
	}
}

func TestConcurrentRefreshesWithOneTokenSucceedOnce(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	got := testkit.Race(10, func(int) int {
		return env.Client.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": acct.RefreshToken}).StatusCode
	})
	require.Equal(t, 1, got[200], "10 concurrent refreshes with one token: 200s (statuses %v)", got)
	require.Equal(t, 9, got[401], "10 concurrent refreshes with one token: 401s (statuses %v)", got)
}

func TestAccessTokensAreCheckedForSignatureAndExpiry(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	parts := strings.Split(acct.AccessToken, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %s", acct.AccessToken)
	}
	sig := []byte(parts[2])
	sig[5] ^= 1
	for name, tok := range map[string]string{
		"tampered signature": parts[0] + "." + parts[1] + "." + string(sig),
		"no signature":       parts[0] + "." + parts[1] + ".",
		"garbage":            "not-a-token",
		"unknown API key":    "cis_live_" + strings.Repeat("A", 43),
	} {
		res := env.Client.WithBearer(tok).Get("/api/v1/auth/me")
		if res.StatusCode != 401 {
			t.Errorf("%s: %d, want 401", name, res.StatusCode)
		}
	}
	res := env.Client.Get("/api/v1/auth/me")
	assert.Equal(t, 401, res.StatusCode, "no credentials: status")
	assert.NotEmpty(t, res.Header.Get("WWW-Authenticate"), "no credentials: WWW-Authenticate")
	clock.Advance(16 * time.Minute)
	// An expired token says so, and where a new one comes from; the code stays the same.
	res = acct.Client.Get("/api/v1/auth/me")
	e := wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	require.Contains(t, e.Error.Message, "expired", "an expired access token: e.Error.Message")
	require.Contains(t, e.Error.Message, "/auth/refresh", "an expired access token: e.Error.Message")
	// A forged one, expired or not, learns nothing of the kind.
	res = env.Client.WithBearer(parts[0] + "." + parts[1] + "." + string(sig)).Get("/api/v1/auth/me")
	if e := wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY"); strings.Contains(e.Error.Message, "/auth/refresh") {
		t.Fatalf("a forged token is told to refresh: %s", res.Body)
	}
	res = env.Client.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": acct.RefreshToken})
	var tokens struct{ Data struct{ AccessToken string } }
	res.JSON(t, &tokens)
	require.Equal(t, 200, res.StatusCode, "refresh after expiry: status (body %s)", res.Body)
	require.Equal(t, 200, env.Client.WithBearer(tokens.Data.AccessToken).Get("/api/v1/auth/me").StatusCode, "refresh after expiry: GET /auth/me with the new access token: status")
}
