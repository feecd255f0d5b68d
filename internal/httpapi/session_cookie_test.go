package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// refreshCookieOf is the cis_refresh cookie an answer sets, or nil.
func refreshCookieOf(res *contract.Response) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == "cis_refresh" {
			return c
		}
	}
	return nil
}

type tokensBody struct {
	Data struct {
		AccessToken  string  `json:"accessToken"`
		RefreshToken *string `json:"refreshToken"`
	} `json:"data"`
}

// With `Credentiald-Session: cookie`, the refresh token lives in an HttpOnly, SameSite=Strict
// cookie scoped to /api/v1/auth and never in a body: sign-in sets it, refresh reads and rotates
// it, an old one answers 401 and is cleared, sign-out clears it. Without the header nothing
// changes for an integrator.
func TestTheApplicationsRefreshTokenLivesInACookie(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	login := func(cookie bool) *contract.Response {
		req := env.Client.Request("POST", "/api/v1/auth/login", map[string]any{"email": acct.Email, "password": testkit.Password})
		if cookie {
			req.Header.Set("Credentiald-Session", "cookie")
		}
		return env.Client.Do(req)
	}

	// An integrator's sign-in: the token in the body, no cookie.
	res := login(false)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var body tokensBody
	res.JSON(t, &body)
	require.NotNil(t, body.Data.RefreshToken)
	require.Nil(t, refreshCookieOf(res))

	// The application's.
	res = login(true)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	body = tokensBody{}
	res.JSON(t, &body)
	require.Nil(t, body.Data.RefreshToken, "the refresh token stays out of the body")
	require.NotContains(t, string(res.Body), "refreshToken")
	first := refreshCookieOf(res)
	require.NotNil(t, first)
	require.True(t, first.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, first.SameSite)
	require.Equal(t, "/api/v1/auth", first.Path)
	require.False(t, first.Secure, "the test's site is plain http on loopback")
	require.Equal(t, 30*24*3600, first.MaxAge)

	refresh := func(c *http.Cookie, body any) *contract.Response {
		req := env.Client.Request("POST", "/api/v1/auth/refresh", body)
		if c != nil {
			req.AddCookie(c)
		}
		return env.Client.Do(req)
	}
	// The cookie alone refreshes (no body at all), and is rotated.
	res = refresh(first, nil)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	body = tokensBody{}
	res.JSON(t, &body)
	require.Nil(t, body.Data.RefreshToken)
	second := refreshCookieOf(res)
	require.NotNil(t, second)
	require.NotEqual(t, first.Value, second.Value)
	// An empty body refreshes from the cookie too.
	res = refresh(second, map[string]any{})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	third := refreshCookieOf(res)
	require.NotNil(t, third)
	res.JSON(t, &body)
	access := body.Data.AccessToken

	// Neither a body's token nor a cookie: 400 naming the field.
	res = refresh(nil, nil)
	e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	require.Equal(t, "body.refreshToken", e.Error.Details[0].Field)

	// Sign-out reads the cookie and clears it; the session is over.
	req := env.Client.Request("POST", "/api/v1/auth/logout", nil)
	req.Header.Set("Authorization", "Bearer "+access)
	req.AddCookie(third)
	res = env.Client.Do(req)
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	cleared := refreshCookieOf(res)
	require.NotNil(t, cleared)
	require.Negative(t, cleared.MaxAge)
	// A cookie that no longer works answers 401 and is cleared.
	res = refresh(third, nil)
	wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	cleared = refreshCookieOf(res)
	require.NotNil(t, cleared)
	require.Negative(t, cleared.MaxAge)

	// Registration takes the header too.
	req = env.Client.Request("POST", "/api/v1/auth/register", map[string]any{"email": "cookie.owner@example.org",
		"password": testkit.Password, "name": "Cookie Owner", "accountName": "Cookie Co"})
	req.Header.Set("Credentiald-Session", "cookie")
	res = env.Client.Do(req)
	require.Equal(t, 201, res.StatusCode, "%s", res.Body)
	require.NotNil(t, refreshCookieOf(res))
	require.NotContains(t, string(res.Body), "refreshToken")
}
