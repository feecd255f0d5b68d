package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/auth"
)

// The refresh token of a browser session, kept where script cannot read it (decision "The
// application"): a request with `Credentiald-Session: cookie` gets it as this cookie instead
// of in the body, and refresh and logout read it when their body has none.
const (
	refreshCookieName = "cis_refresh"
	refreshCookiePath = "/api/v1/auth"
	// refreshCookieAge is the refresh token's life (auth.RefreshTokenTTL): the cookie ends with it.
	refreshCookieAge = auth.RefreshTokenTTL
)

// cookieJar collects the cookies a strict handler sets; cookieTransport writes them.
type cookieJar struct{ cookies []*http.Cookie }

type cookieJarKey struct{}

// setCookie has the answer to the request of ctx set c (after any set before it). The strict
// handlers see only the request's context; cookieTransport gave it the jar.
func setCookie(ctx context.Context, c *http.Cookie) {
	if jar, ok := ctx.Value(cookieJarKey{}).(*cookieJar); ok {
		jar.cookies = append(jar.cookies, c)
	}
}

// cookieOperations are the operations whose handlers set cookies.
var cookieOperations = map[string]bool{"Login": true, "Register": true, "RefreshSession": true, "Logout": true,
	"AcceptInvitation": true, "ExchangeSingleSignOnCode": true}

// cookieTransport gives the handlers of cookieOperations a jar, and writes what they put in it
// to the answer, before the answer (or the error) is written: each as a Set-Cookie of its own,
// where the generated response could set one only.
func cookieTransport(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
	if !cookieOperations[operationID] {
		return f
	}
	return func(c echo.Context, request any) (any, error) {
		jar := &cookieJar{}
		c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), cookieJarKey{}, jar)))
		res, err := f(c, request)
		for _, ck := range jar.cookies {
			http.SetCookie(c.Response(), ck)
		}
		return res, err
	}
}

// sessionCookies makes the refresh cookie for the site: Secure unless the site is plain http on
// a loopback address (a developer's machine), where a browser would not send a Secure cookie.
type sessionCookies struct{ secure bool }

func newSessionCookies(siteURL string) sessionCookies {
	u, err := url.Parse(siteURL)
	if err != nil || u.Scheme != "http" {
		return sessionCookies{secure: true}
	}
	host := u.Hostname()
	if host == "localhost" {
		return sessionCookies{secure: false}
	}
	ip := net.ParseIP(host)
	return sessionCookies{secure: ip == nil || !ip.IsLoopback()}
}

func (s sessionCookies) refresh(token string) *http.Cookie {
	return &http.Cookie{Name: refreshCookieName, Value: token, Path: refreshCookiePath, MaxAge: int(refreshCookieAge / time.Second),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode}
}

func (s sessionCookies) clear() *http.Cookie {
	return &http.Cookie{Name: refreshCookieName, Value: "", Path: refreshCookiePath, MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode}
}

// deliverTokens answers a new session's tokens as the request asked: with inCookie, the
// refresh token goes to the cookie and stays out of the body.
func (s *Server) deliverTokens(ctx context.Context, t auth.Tokens, inCookie bool) api.SessionTokens {
	out := api.SessionTokens{AccessToken: t.AccessToken, ExpiresAt: t.ExpiresAt.UTC()}
	if inCookie {
		setCookie(ctx, s.cookies.refresh(t.RefreshToken))
	} else {
		out.RefreshToken = &t.RefreshToken
	}
	return out
}

// presentedRefresh is the refresh token of a refresh or logout request: the body's, or else
// the cookie's (fromCookie); neither is 400 naming the body's field.
func presentedRefresh(body *string, cookie *string) (token string, fromCookie bool, err error) {
	if body != nil && *body != "" {
		return *body, false, nil
	}
	if cookie != nil && *cookie != "" {
		return *cookie, true, nil
	}
	return "", false, apperr.Invalid("refreshToken", "is required: send the refresh token in the body, or sign in with `Credentiald-Session: cookie` so that the cis_refresh cookie holds it")
}

func wantsCookie[T ~string](h *T) bool { return h != nil && string(*h) == "cookie" }
