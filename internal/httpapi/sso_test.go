package httpapi_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// ssoWorld is an account (acme) whose owner set up single sign-on with a real OpenID Provider
// on loopback, and a second account (beta) with a verified domain of its own.
type ssoWorld struct {
	*team
	dns            *testkit.DNS
	provider       *testkit.OpenIDProvider
	acmeDomain     string
	beta           *testkit.Account
	betaDomain     string
	otherDomain    string // verified by nobody
	callbackPrefix string
}

func newSSOWorld(t *testing.T) *ssoWorld {
	t.Helper()
	dns := testkit.DNSServer(t)
	w := ssoWorldOf(t, newTeam(t, ssoOptions(dns)...), dns)
	w.beta = testkit.SignUp(t, w.env)
	return w
}

// ssoOptions are what a server needs for single sign-on tests: the provider on loopback is
// allowed, and DNS answers from the test's server.
func ssoOptions(dns *testkit.DNS) []testkit.Option {
	// Each flow comes from an address of its own through a trusted proxy, so that the sign-in
	// limit (which single sign-on counts against) is not what the tests meet.
	return []testkit.Option{testkit.WithResolver(dns.Resolver()),
		testkit.WithConfig(func(c *config.Config) {
			c.AllowLoopbackOutbound = true
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		})}
}

// ssoWorldOf starts the provider for a team whose server has ssoOptions.
func ssoWorldOf(t *testing.T, tm *team, dns *testkit.DNS) *ssoWorld {
	t.Helper()
	w := &ssoWorld{team: tm, dns: dns}
	suffix := strings.ToLower(strings.ReplaceAll(testkit.RandomSuffix(), "-", ""))
	w.acmeDomain, w.betaDomain, w.otherDomain = "acme"+suffix+".test", "beta"+suffix+".test", "other"+suffix+".test"
	w.callbackPrefix = w.env.Config.SiteURL.String() + "/api/v1/auth/sso/callback"
	w.provider = testkit.StartOpenIDProvider(t, w.callbackPrefix,
		testkit.ProviderUser{ID: "ada", Username: "ada", Email: "ada@" + w.acmeDomain, EmailVerified: true, FirstName: "Ada", Family: "Lovelace"},
		testkit.ProviderUser{ID: "bob", Username: "bob", Email: "bob@" + w.acmeDomain, EmailVerified: false, FirstName: "Bob", Family: "Unverified"},
		testkit.ProviderUser{ID: "carol", Username: "carol", Email: "carol@" + w.otherDomain, EmailVerified: true, FirstName: "Carol", Family: "Elsewhere"},
		testkit.ProviderUser{ID: "dave", Username: "dave", Email: "dave@" + w.betaDomain, EmailVerified: true, FirstName: "Dave", Family: "Beta"},
		testkit.ProviderUser{ID: "frank", Username: "frank", Email: "frank@" + w.acmeDomain, EmailVerified: true, FirstName: "Frank", Family: "Password"},
		testkit.ProviderUser{ID: "gina", Username: "gina", Email: "gina@" + w.acmeDomain, EmailVerified: true, FirstName: "Gina", Family: "Invited"},
		testkit.ProviderUser{ID: "long", Username: "long", Email: "long@" + w.acmeDomain, EmailVerified: true,
			FirstName: strings.Repeat("Ö", 90), Family: strings.Repeat("ü", 40)},
	)
	return w
}

// configure sets acme's provider up with defaultRole viewer, and verifies acme's domain
// through its published TXT record.
func (w *ssoWorld) configure(t *testing.T, enforced bool) {
	t.Helper()
	res := w.owner.Client.Put("/api/v1/account/sso", map[string]any{"issuer": w.provider.Issuer, "clientId": w.provider.ClientID,
		"clientSecret": w.provider.ClientSecret, "defaultRole": "viewer", "enforced": enforced})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
}

// ssoFlow is one browser's single sign-on, step by step.
type ssoFlow struct {
	cookie   string
	callback *url.URL
	addr     string // the browser's address
}

var browserSeq atomic.Int64

func browserAddr() string {
	n := browserSeq.Add(1)
	return fmt.Sprintf("203.0.%d.%d", 113+n/250, n%250+1)
}

// fromBrowser sends req from the browser's address.
func (w *ssoWorld) fromBrowser(addr string, req *http.Request) *contract.Response {
	req.Header.Set("X-Forwarded-For", addr)
	return w.env.Client.Do(req)
}

// start asks the service to start single sign-on for address, and returns the flow with the
// provider's authorization URL.
func (w *ssoWorld) start(t *testing.T, address string) (*ssoFlow, string) {
	t.Helper()
	addr := browserAddr()
	res := w.fromBrowser(addr, w.env.Client.Request(http.MethodGet, "/api/v1/auth/sso/start?email="+url.QueryEscape(address), nil))
	require.Equal(t, http.StatusFound, res.StatusCode, "%s", res.Body)
	var cookie string
	for _, c := range res.Cookies() {
		if c.Name == "cis_sso" {
			cookie = c.Value
			require.True(t, c.HttpOnly, "the flow's cookie is HttpOnly")
			require.Equal(t, http.SameSiteLaxMode, c.SameSite)
			require.Equal(t, "/api/v1/auth/sso", c.Path)
		}
	}
	require.NotEmpty(t, cookie, "the start sets the flow's cookie")
	loc := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, w.provider.Issuer+"/"), "to the provider: %s", loc)
	u, _ := url.Parse(loc)
	q := u.Query()
	require.Equal(t, "S256", q.Get("code_challenge_method"), "PKCE")
	require.NotEmpty(t, q.Get("nonce"))
	require.NotEmpty(t, q.Get("state"))
	require.NotContains(t, cookie, q.Get("state"), "the cookie holds a hash of state, not state")
	return &ssoFlow{cookie: cookie, addr: addr}, loc
}

// signInAtProvider has username sign in at the provider and keeps where it sends the browser.
func (w *ssoWorld) signInAtProvider(t *testing.T, f *ssoFlow, authorizeURL, username string) {
	t.Helper()
	f.callback = testkit.NewBrowser(t).SignIn(t, authorizeURL, username)
	require.True(t, strings.HasPrefix(f.callback.String(), w.callbackPrefix), "back to the service: %s", f.callback)
}

// finish sends the provider's redirect to the service's callback with cookie (none when
// empty).
func (w *ssoWorld) finish(t *testing.T, f *ssoFlow, cookie string) *contract.Response {
	t.Helper()
	req := w.env.Client.Request(http.MethodGet, "/api/v1/auth/sso/callback?"+f.callback.RawQuery, nil)
	if cookie != "" {
		req.Header.Set("Cookie", "cis_sso="+cookie)
	}
	return w.fromBrowser(f.addr, req)
}

// code reads the one-time code from the callback's redirect to the application.
func (w *ssoWorld) code(t *testing.T, res *contract.Response) string {
	t.Helper()
	require.Equal(t, http.StatusFound, res.StatusCode, "%s", res.Body)
	loc := res.Header.Get("Location")
	prefix := w.env.Config.SiteURL.String() + "/app/#sso="
	require.True(t, strings.HasPrefix(loc, prefix), "to the application: %s", loc)
	return strings.TrimPrefix(loc, prefix)
}

// exchange sends the code as the application does (the refresh token asked for in a cookie);
// a session it starts clears the flow's cookie and sets the refresh cookie, each in a
// Set-Cookie of its own.
func (w *ssoWorld) exchange(t *testing.T, cookie string, body map[string]any) *contract.Response {
	t.Helper()
	req := w.env.Client.Request(http.MethodPost, "/api/v1/auth/sso/exchange", body)
	req.Header.Set("Credentiald-Session", "cookie")
	if cookie != "" {
		req.Header.Set("Cookie", "cis_sso="+cookie)
	}
	res := w.fromBrowser(browserAddr(), req)
	if res.StatusCode == http.StatusOK {
		set := map[string]*http.Cookie{}
		for _, c := range res.Cookies() {
			set[c.Name] = c
		}
		require.Contains(t, set, "cis_sso")
		require.Negative(t, set["cis_sso"].MaxAge, "the flow's cookie is cleared")
		require.Contains(t, set, "cis_refresh")
		require.NotEmpty(t, set["cis_refresh"].Value)
		require.NotContains(t, string(res.Body), "refreshToken")
	}
	return res
}

// signIn runs the whole flow for username at the provider, started with address, and returns
// the exchange's answer.
func (w *ssoWorld) signIn(t *testing.T, address, username string, extra map[string]any) *contract.Response {
	t.Helper()
	f, authorize := w.start(t, address)
	w.signInAtProvider(t, f, authorize, username)
	code := w.code(t, w.finish(t, f, f.cookie))
	body := map[string]any{"code": code}
	for k, v := range extra {
		body[k] = v
	}
	return w.exchange(t, f.cookie, body)
}

func requireCode(t *testing.T, res *contract.Response, status int, code string) {
	t.Helper()
	require.Equal(t, status, res.StatusCode, "%s", res.Body)
	var body struct {
		Error struct{ Code, Message string }
	}
	res.JSON(t, &body)
	require.Equal(t, code, body.Error.Code, "%s", res.Body)
}

func sessionOf(t *testing.T, env *testkit.Env, res *contract.Response) *contract.Client {
	t.Helper()
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	var tokens struct{ Data struct{ AccessToken string } }
	res.JSON(t, &tokens)
	return env.Client.WithBearer(tokens.Data.AccessToken)
}

func meOf(t *testing.T, c *contract.Client) (email, role string) {
	t.Helper()
	var me struct{ Data struct{ Email, Role string } }
	res := c.Get("/api/v1/auth/me")
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res.JSON(t, &me)
	return me.Data.Email, me.Data.Role
}

func TestSingleSignOnSetUpAndDomains(t *testing.T) {
	t.Parallel()
	w := newSSOWorld(t)
	owner := w.owner.Client

	requireCode(t, owner.Get("/api/v1/account/sso"), http.StatusNotFound, "NOT_FOUND")
	// The first set-up needs the secret; an issuer that serves no discovery document is refused.
	res := owner.Put("/api/v1/account/sso", map[string]any{"issuer": w.provider.Issuer, "clientId": "x", "defaultRole": "viewer", "enforced": false})
	requireCode(t, res, http.StatusBadRequest, "VALIDATION_ERROR")
	require.Contains(t, string(res.Body), "clientSecret")
	res = owner.Put("/api/v1/account/sso", map[string]any{"issuer": "http://127.0.0.1:1/nothing", "clientId": "x", "clientSecret": "y",
		"defaultRole": "viewer", "enforced": false})
	requireCode(t, res, http.StatusBadRequest, "VALIDATION_ERROR")
	require.Contains(t, string(res.Body), "discovery document")

	w.configure(t, false)
	res = owner.Get("/api/v1/account/sso")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotContains(t, string(res.Body), w.provider.ClientSecret, "the secret is never shown")
	require.Contains(t, string(res.Body), `"redirectUri":"`+w.callbackPrefix+`"`)
	var stored []byte
	testkit.QueryRow(t, w.env, `SELECT client_secret_sealed FROM sso_configs`, nil, &stored)
	require.NotContains(t, string(stored), w.provider.ClientSecret, "the secret is sealed at rest")
	// Kept when a later change leaves it out, but never sent to another client or provider.
	res = owner.Put("/api/v1/account/sso", map[string]any{"issuer": w.provider.Issuer, "clientId": w.provider.ClientID,
		"defaultRole": "issuer", "enforced": false})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res = owner.Put("/api/v1/account/sso", map[string]any{"issuer": w.provider.Issuer, "clientId": "another-client",
		"defaultRole": "issuer", "enforced": false})
	requireCode(t, res, http.StatusBadRequest, "VALIDATION_ERROR")
	require.Contains(t, string(res.Body), "is required when issuer or clientId changes")
	w.configure(t, false)

	// A domain counts once its TXT record is published.
	var dom struct {
		Data struct {
			Domain, VerificationRecord string
			VerifiedAt                 *string
		}
	}
	res = owner.Post("/api/v1/account/sso/domains", map[string]any{"domain": strings.ToUpper(w.acmeDomain)})
	require.Equal(t, http.StatusCreated, res.StatusCode, "%s", res.Body)
	res.JSON(t, &dom)
	require.Equal(t, w.acmeDomain, dom.Data.Domain)
	require.Nil(t, dom.Data.VerifiedAt)
	require.True(t, strings.HasPrefix(dom.Data.VerificationRecord, "credentiald-verification="))
	requireCode(t, owner.Post("/api/v1/account/sso/domains", map[string]any{"domain": w.acmeDomain}), http.StatusConflict, "CONFLICT")
	// Not verified yet: its addresses cannot sign in.
	requireCode(t, w.env.Client.Get("/api/v1/auth/sso/start?email=ada%40"+w.acmeDomain), http.StatusForbidden, "SSO_REFUSED")
	requireCode(t, owner.Post("/api/v1/account/sso/domains/"+w.acmeDomain+"/verify", nil), http.StatusConflict, "DOMAIN_RECORD_NOT_FOUND")
	w.dns.Publish(w.acmeDomain, "v=spf1 -all")
	w.dns.Publish(w.acmeDomain, dom.Data.VerificationRecord)
	res = owner.Post("/api/v1/account/sso/domains/"+w.acmeDomain+"/verify", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res.JSON(t, &dom)
	require.NotNil(t, dom.Data.VerifiedAt)

	// Another account cannot claim it, nor verify it with its own record.
	requireCode(t, w.beta.Client.Post("/api/v1/account/sso/domains", map[string]any{"domain": w.acmeDomain}), http.StatusConflict, "CONFLICT")
	requireCode(t, w.beta.Client.Post("/api/v1/account/sso/domains/"+w.acmeDomain+"/verify", nil), http.StatusNotFound, "NOT_FOUND")

	// Only admins manage it: a viewer is refused naming the role.
	viewer := w.join(t, "viewer")
	res = viewer.Client.Get("/api/v1/account/sso/domains")
	requireCode(t, res, http.StatusForbidden, "INSUFFICIENT_ROLE")
	require.Contains(t, string(res.Body), `"required":"admin"`)

	res = owner.Get("/api/v1/account/sso/domains")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, string(res.Body), w.acmeDomain)
	require.Equal(t, http.StatusNoContent, owner.Delete("/api/v1/account/sso/domains/"+w.acmeDomain).StatusCode)
	requireCode(t, owner.Delete("/api/v1/account/sso/domains/"+w.acmeDomain), http.StatusNotFound, "NOT_FOUND")
	require.Equal(t, http.StatusNoContent, owner.Delete("/api/v1/account/sso").StatusCode)
	requireCode(t, owner.Get("/api/v1/account/sso"), http.StatusNotFound, "NOT_FOUND")

	// Each change is in the audit log.
	res = owner.Get("/api/v1/audit-log?resourceType=sso")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, action := range []string{"sso.configured", "sso.removed"} {
		require.Contains(t, string(res.Body), `"action":"`+action+`"`)
	}
	require.NotContains(t, string(res.Body), w.provider.ClientSecret)
}

func TestSingleSignOnThroughARealProvider(t *testing.T) {
	t.Parallel()
	w := newSSOWorld(t)
	w.configure(t, false)
	w.verify(t, w.owner.ID, w.acmeDomain)
	w.verify(t, w.beta.ID, w.betaDomain)

	// A first sign-in of an address of the verified domain makes a member with the default role.
	ada := sessionOf(t, w.env, w.signIn(t, "ada@"+w.acmeDomain, "ada", nil))
	email, role := meOf(t, ada)
	require.Equal(t, "ada@"+w.acmeDomain, email)
	require.Equal(t, "viewer", role)
	members := w.owner.Client.Get("/api/v1/members")
	require.Contains(t, string(members.Body), `"name":"Ada Lovelace"`)
	// A second is the same user, matched by the provider's subject.
	ada2 := sessionOf(t, w.env, w.signIn(t, "ada@"+w.acmeDomain, "ada", nil))
	email2, _ := meOf(t, ada2)
	require.Equal(t, email, email2)
	var n int
	testkit.QueryRow(t, w.env, `SELECT count(*) FROM users WHERE email = $1`, []any{email}, &n)
	require.Equal(t, 1, n)
	testkit.QueryRow(t, w.env, `SELECT count(*) FROM sso_links WHERE subject = 'ada'`, nil, &n)
	require.Equal(t, 1, n)

	t.Run("an address the provider has not verified", func(t *testing.T) {
		f, authorize := w.start(t, "bob@"+w.acmeDomain)
		w.signInAtProvider(t, f, authorize, "bob")
		requireCode(t, w.finish(t, f, f.cookie), http.StatusForbidden, "SSO_REFUSED")
	})
	t.Run("an address of no verified domain", func(t *testing.T) {
		requireCode(t, w.env.Client.Get("/api/v1/auth/sso/start?email=carol%40"+w.otherDomain), http.StatusForbidden, "SSO_REFUSED")
		// Started with an address of acme's domain, the provider vouches for another one.
		f, authorize := w.start(t, "ada@"+w.acmeDomain)
		w.signInAtProvider(t, f, authorize, "carol")
		refusal := w.finish(t, f, f.cookie)
		requireCode(t, refusal, http.StatusForbidden, "SSO_REFUSED")
		t.Run("and another account's address, answered alike", func(t *testing.T) {
			f, authorize := w.start(t, "ada@"+w.acmeDomain)
			w.signInAtProvider(t, f, authorize, "dave")
			other := w.finish(t, f, f.cookie)
			requireCode(t, other, http.StatusForbidden, "SSO_REFUSED")
			require.JSONEq(t, string(refusal.Body), string(other.Body), "one answer for both")
		})
	})
	t.Run("a missing or foreign state cookie", func(t *testing.T) {
		f, authorize := w.start(t, "ada@"+w.acmeDomain)
		w.signInAtProvider(t, f, authorize, "ada")
		requireCode(t, w.finish(t, f, ""), http.StatusForbidden, "SSO_REFUSED")
		mine, _ := w.start(t, "ada@"+w.acmeDomain) // the attacker's own flow, cookie and all
		requireCode(t, w.finish(t, f, mine.cookie), http.StatusForbidden, "SSO_REFUSED")
		// Those refusals spent nothing: the right browser still finishes, once.
		code := w.code(t, w.finish(t, f, f.cookie))
		requireCode(t, w.finish(t, f, f.cookie), http.StatusForbidden, "SSO_REFUSED")
		// The code is bound to the browser too.
		requireCode(t, w.exchange(t, mine.cookie, map[string]any{"code": code}), http.StatusForbidden, "SSO_REFUSED")
		requireCode(t, w.exchange(t, "", map[string]any{"code": code}), http.StatusForbidden, "SSO_REFUSED")
		sessionOf(t, w.env, w.exchange(t, f.cookie, map[string]any{"code": code}))
		t.Run("a replayed code", func(t *testing.T) {
			requireCode(t, w.exchange(t, f.cookie, map[string]any{"code": code}), http.StatusForbidden, "SSO_REFUSED")
		})
	})
	t.Run("an expired code", func(t *testing.T) {
		f, authorize := w.start(t, "ada@"+w.acmeDomain)
		w.signInAtProvider(t, f, authorize, "ada")
		code := w.code(t, w.finish(t, f, f.cookie))
		testkit.SQL(t, w.env, `UPDATE sso_flows SET code_expires_at = now() - interval '1 second' WHERE code_hash IS NOT NULL AND used_at IS NULL`)
		requireCode(t, w.exchange(t, f.cookie, map[string]any{"code": code}), http.StatusForbidden, "SSO_REFUSED")
	})
	t.Run("a password user links their first single sign-on with their password", func(t *testing.T) {
		tok := w.invite(t, w.owner.Client, "frank@"+w.acmeDomain, "issuer")
		res := w.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": tok, "name": "Frank", "password": testkit.Password})
		require.Equal(t, http.StatusCreated, res.StatusCode, "%s", res.Body)
		f, authorize := w.start(t, "frank@"+w.acmeDomain)
		w.signInAtProvider(t, f, authorize, "frank")
		code := w.code(t, w.finish(t, f, f.cookie))
		requireCode(t, w.exchange(t, f.cookie, map[string]any{"code": code}), http.StatusConflict, "SSO_LINK_REQUIRED")
		requireCode(t, w.exchange(t, f.cookie, map[string]any{"code": code, "password": "not the password"}), http.StatusUnauthorized, "INVALID_CREDENTIALS")
		frank := sessionOf(t, w.env, w.exchange(t, f.cookie, map[string]any{"code": code, "password": testkit.Password}))
		_, role := meOf(t, frank)
		require.Equal(t, "issuer", role, "the member keeps their role")
		// Linked: the next time needs no password.
		sessionOf(t, w.env, w.signIn(t, "frank@"+w.acmeDomain, "frank", nil))
	})
	t.Run("a code issued for one member is refused once the subject is linked to another", func(t *testing.T) {
		// frank's flow is decided at the callback; before its exchange, the provider's subject
		// of this flow ends up linked to someone else (as a provider that lets a person change
		// their address could arrange): the code signs in nobody.
		f, authorize := w.start(t, "ada@"+w.acmeDomain)
		w.signInAtProvider(t, f, authorize, "ada")
		code := w.code(t, w.finish(t, f, f.cookie))
		other := w.join(t, "viewer")
		testkit.SQL(t, w.env, `UPDATE sso_links SET user_id = $1 WHERE subject = 'ada'`, other.ID)
		requireCode(t, w.exchange(t, f.cookie, map[string]any{"code": code}), http.StatusForbidden, "SSO_REFUSED")
		testkit.SQL(t, w.env, `UPDATE sso_links SET user_id = (SELECT id FROM users WHERE email = $1) WHERE subject = 'ada'`, "ada@"+w.acmeDomain)
	})
	t.Run("a provider's long name is cut to the name's limit", func(t *testing.T) {
		long := sessionOf(t, w.env, w.signIn(t, "long@"+w.acmeDomain, "long", nil))
		var me struct{ Data struct{ Name string } }
		long.Get("/api/v1/auth/me").JSON(t, &me)
		require.Equal(t, 100, len([]rune(me.Data.Name)), "%q", me.Data.Name)
	})
	t.Run("a sign-in again (reauth) carries the provider's auth_time", func(t *testing.T) {
		addr := browserAddr()
		res := w.fromBrowser(addr, w.env.Client.Request(http.MethodGet, "/api/v1/auth/sso/start?reauth=true&email=ada%40"+w.acmeDomain, nil))
		require.Equal(t, http.StatusFound, res.StatusCode, "%s", res.Body)
		loc, _ := url.Parse(res.Header.Get("Location"))
		require.Equal(t, "0", loc.Query().Get("max_age"))
		require.Equal(t, "login", loc.Query().Get("prompt"))
		var cookie string
		for _, c := range res.Cookies() {
			cookie = c.Value
		}
		f := &ssoFlow{cookie: cookie, addr: addr}
		w.signInAtProvider(t, f, loc.String(), "ada")
		sessionOf(t, w.env, w.exchange(t, f.cookie, map[string]any{"code": w.code(t, w.finish(t, f, f.cookie))}))
	})
	t.Run("a pending invitation gives its role", func(t *testing.T) {
		w.invite(t, w.owner.Client, "gina@"+w.acmeDomain, "issuer")
		gina := sessionOf(t, w.env, w.signIn(t, "gina@"+w.acmeDomain, "gina", nil))
		_, role := meOf(t, gina)
		require.Equal(t, "issuer", role)
		res := w.owner.Client.Get("/api/v1/members/invitations")
		require.NotContains(t, string(res.Body), "gina@", "the invitation is accepted")
	})
	t.Run("the owner never signs in by single sign-on", func(t *testing.T) {
		w.verify(t, w.owner.ID, "example.org")
		requireCode(t, w.signInOwner(t), http.StatusForbidden, "SSO_REFUSED")
	})

	// The audit log names each sign-in and the member it made, without the provider's secret.
	res := w.owner.Client.Get("/api/v1/audit-log?action=user.signed_in_sso")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, string(res.Body), "member created with role viewer")
	require.Contains(t, string(res.Body), "linked to the provider's subject")
}

// verify makes a domain an account's verified one, as the operator's command does.
func (w *ssoWorld) verify(t *testing.T, account fmt.Stringer, domain string) {
	t.Helper()
	testkit.SQL(t, w.env, `INSERT INTO sso_domains (account_id, domain, token, verified_at, created_at)
		VALUES ($1, $2, 'by-the-operator', now(), now())`, account.String(), domain)
}

// signInOwner runs a flow whose provider user has the owner's address.
func (w *ssoWorld) signInOwner(t *testing.T) *contract.Response {
	t.Helper()
	p := testkit.StartOpenIDProvider(t, w.callbackPrefix,
		testkit.ProviderUser{ID: "owner", Username: "owner", Email: w.owner.Email, EmailVerified: true, FirstName: "The", Family: "Owner"})
	res := w.owner.Client.Put("/api/v1/account/sso", map[string]any{"issuer": p.Issuer, "clientId": p.ClientID,
		"clientSecret": p.ClientSecret, "defaultRole": "viewer", "enforced": false})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	defer func(kept *testkit.OpenIDProvider) { w.provider = kept }(w.provider)
	w.provider = p
	f, authorize := w.start(t, w.owner.Email)
	w.signInAtProvider(t, f, authorize, "owner")
	return w.finish(t, f, f.cookie)
}

func TestSingleSignOnEnforced(t *testing.T) {
	t.Parallel()
	w := newSSOWorld(t)
	w.verify(t, w.owner.ID, w.acmeDomain)
	member := w.join(t, "issuer")
	tok := w.invite(t, w.owner.Client, fmt.Sprintf("late%s@example.org", strings.ReplaceAll(testkit.RandomSuffix(), "-", "")), "viewer")
	w.configure(t, true)

	// Turning it on ended the member's password session; the owner's stands.
	requireCode(t, member.Client.Get("/api/v1/auth/me"), http.StatusUnauthorized, "INVALID_API_KEY")
	_, role := meOf(t, w.owner.Client)
	require.Equal(t, "owner", role)
	// Password sign-in: refused for members, allowed for the owner.
	requireCode(t, w.env.Client.Post("/api/v1/auth/login", map[string]any{"email": member.Email, "password": testkit.Password}),
		http.StatusUnauthorized, "SSO_REQUIRED")
	requireCode(t, w.env.Client.Post("/api/v1/auth/login", map[string]any{"email": member.Email, "password": "a wrong password"}),
		http.StatusUnauthorized, "INVALID_CREDENTIALS")
	res := w.env.Client.Post("/api/v1/auth/login", map[string]any{"email": w.owner.Email, "password": testkit.Password})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	// Invitations are accepted only through single sign-on.
	requireCode(t, w.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": tok, "name": "Late", "password": testkit.Password}),
		http.StatusUnauthorized, "SSO_REQUIRED")
	// Single sign-on sessions are what members have now, and they survive a later change.
	ada := sessionOf(t, w.env, w.signIn(t, "ada@"+w.acmeDomain, "ada", nil))
	w.configure(t, true)
	_, role = meOf(t, ada)
	require.Equal(t, "viewer", role)
}

// Enforcement switched on while a member signs in with their password leaves no password
// session of theirs alive: each sign-in either sees the switch (401 SSO_REQUIRED) or is seen by
// it (its session ended), however they interleave.
func TestEnforcingSingleSignOnRacesNoPasswordSessionThrough(t *testing.T) {
	t.Parallel()
	w := newSSOWorld(t)
	w.configure(t, false)
	member := w.join(t, "issuer")
	for round := range 3 {
		w.configure(t, false)
		outcomes := testkit.Race(9, func(i int) int {
			if i == 0 {
				res := w.owner.Client.Put("/api/v1/account/sso", map[string]any{"issuer": w.provider.Issuer, "clientId": w.provider.ClientID,
					"clientSecret": w.provider.ClientSecret, "defaultRole": "viewer", "enforced": true})
				return res.StatusCode * 1000
			}
			req := w.env.Client.Request(http.MethodPost, "/api/v1/auth/login", map[string]any{"email": member.Email, "password": testkit.Password})
			return w.fromBrowser(browserAddr(), req).StatusCode
		})
		require.Equal(t, 1, outcomes[200*1000], "round %d: the switch: %v", round, outcomes)
		var live int
		testkit.QueryRow(t, w.env, `SELECT count(*) FROM sessions WHERE user_id = $1 AND method = 'password' AND revoked_at IS NULL`,
			[]any{member.ID}, &live)
		require.Zero(t, live, "round %d: password sessions alive after enforcement (%v)", round, outcomes)
	}
}
