// Package sso holds the rules of single sign-on with OpenID Connect: an account's provider,
// the domains whose addresses sign in through it, and the sign-in itself (authorization code
// flow with PKCE, state and nonce), from GET /auth/sso/start to POST /auth/sso/exchange.
//
// coreos/go-oidc reads the provider's discovery document and keys and validates ID tokens
// (issuer, audience, signature, expiry); golang.org/x/oauth2 makes the authorization request
// and redeems the code with the PKCE verifier. Every call to a provider goes through the
// outbound package's client, which refuses addresses that are not public unless the operator
// allowed loopback (ALLOW_LOOPBACK_OUTBOUND).
//
// What keeps one account's provider from signing in another account's people: a user signs in
// only into the account whose configuration ran the flow; an address is taken only when the
// provider says it is verified, and only from a domain that account verified; a user linked
// to a provider's (issuer, subject) is matched by that pair; and the three steps are bound to
// the browser that started them by a cookie holding the hash of state.
package sso

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/uuid"
	"golang.org/x/oauth2"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/outbound"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// Lifetimes and limits.
const (
	FlowTTL       = 10 * time.Minute // from the start to the callback
	CodeTTL       = 60 * time.Second // of the one-time code of the exchange
	MaxDomains    = 20               // per account
	CookieName    = "cis_sso"
	CallbackPath  = "/api/v1/auth/sso/callback"
	cookiePath    = "/api/v1/auth/sso"
	providerTTL   = 15 * time.Minute // a provider's discovery document is read again after this
	callTimeout   = 10 * time.Second
	verifyRecordP = "credentiald-verification="
)

// Sessions starts the session of a user the provider vouched for, and checks a password user's
// password before their first single sign-on is linked to them (auth.Service).
type Sessions interface {
	StartSSOSession(ctx context.Context, u domain.User) (auth.Tokens, error)
	ConfirmPassword(ctx context.Context, accountID, userID uuid.UUID, p auth.LoginParams) error
}

// Service applies the rules of single sign-on.
type Service struct {
	store    *store.Store
	sessions Sessions
	secrets  *secretbox.Box
	policy   outbound.Policy
	client   *http.Client
	siteURL  string
	now      func() time.Time
	resolver *net.Resolver

	mu        sync.Mutex
	providers map[string]cachedProvider
}

type cachedProvider struct {
	p  *oidc.Provider
	at time.Time
}

// Option configures a Service.
type Option func(*Service)

// WithResolver looks up the domains' TXT records with r (net.DefaultResolver otherwise).
func WithResolver(r *net.Resolver) Option { return func(s *Service) { s.resolver = r } }

// WithClock makes now the service's clock.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// New returns the service. policy decides which providers may be called; siteURL is where the
// provider sends the browser back to.
func New(st *store.Store, sessions Sessions, secrets *secretbox.Box, policy outbound.Policy, siteURL string, opts ...Option) *Service {
	client := policy.Client(callTimeout)
	client.Transport = limitBodies{next: client.Transport, limit: maxAnswer}
	s := &Service{store: st, sessions: sessions, secrets: secrets, policy: policy, client: client,
		siteURL: strings.TrimRight(siteURL, "/"), now: time.Now, resolver: net.DefaultResolver, providers: map[string]cachedProvider{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// maxAnswer bounds what is read of a provider's answer (discovery, keys, token, UserInfo):
// the provider is the tenant's choice, and go-oidc reads some answers whole.
const maxAnswer = 1 << 20

// limitBodies cuts every answer's body at limit bytes: a longer one reads as an error.
type limitBodies struct {
	next  http.RoundTripper
	limit int64
}

func (l limitBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := l.next.RoundTrip(r)
	if err != nil {
		return res, err
	}
	res.Body = &limitedBody{ReadCloser: res.Body, left: l.limit}
	return res, nil
}

// limitedBody is http.MaxBytesReader for a client: past its limit it answers an error.
type limitedBody struct {
	io.ReadCloser
	left int64
}

var errAnswerTooLarge = errors.New("the provider's answer is larger than 1 MiB")

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errAnswerTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// RedirectURI is the callback to register at the provider.
func (s *Service) RedirectURI() string { return s.siteURL + CallbackPath }

// Config is the provider's configuration as the API shows it.
type Config = domain.SSOConfig

// ConfigUpdate is what PUT /account/sso sets. An empty ClientSecret keeps the stored one.
type ConfigUpdate struct {
	Issuer, ClientID, ClientSecret string
	DefaultRole                    string
	Enforced                       bool
}

func secretAssociated(accountID uuid.UUID) []byte {
	return []byte("sso-client-secret:" + accountID.String())
}

// Get returns the account's provider. NOT_FOUND: none is set up.
func (s *Service) Get(ctx context.Context, p auth.Principal) (Config, error) {
	c, err := s.store.GetSSOConfig(ctx, p.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return Config{}, errNoConfig
	}
	return c.SSOConfig, err
}

var errNoConfig = apperr.New(apperr.NotFound, "No single sign-on provider is set up: PUT /api/v1/account/sso sets one.")

// Put sets the account's provider, after reading its discovery document. Turning enforcement
// on ends the password sessions of every member but the owner.
func (s *Service) Put(ctx context.Context, p auth.Principal, u ConfigUpdate) (Config, error) {
	u.Issuer = strings.TrimSpace(u.Issuer)
	var details []apperr.Detail
	if err := s.policy.CheckURL(ctx, u.Issuer); err != nil {
		details = append(details, apperr.Detail{Field: "issuer", Message: strings.TrimPrefix(err.Error(), outbound.ErrUnsafeTarget.Error()+": ")})
	}
	if u.DefaultRole != auth.RoleViewer && u.DefaultRole != auth.RoleIssuer {
		details = append(details, apperr.Detail{Field: "defaultRole", Message: "must be viewer or issuer"})
	}
	existing, err := s.store.GetSSOConfig(ctx, p.AccountID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Config{}, err
	}
	sealed := existing.ClientSecretSealed
	switch {
	case u.ClientSecret != "":
		if sealed, err = s.secrets.Seal([]byte(u.ClientSecret), secretAssociated(p.AccountID)); err != nil {
			return Config{}, err
		}
	case sealed == nil:
		details = append(details, apperr.Detail{Field: "clientSecret", Message: "is required when single sign-on is first set up"})
	case existing.Issuer != u.Issuer || existing.ClientID != u.ClientID:
		// The stored secret is the old provider's: it is never sent to another.
		details = append(details, apperr.Detail{Field: "clientSecret", Message: "is required when issuer or clientId changes"})
	}
	if len(details) == 0 {
		if _, err := s.discover(ctx, u.Issuer, true); err != nil {
			details = append(details, apperr.Detail{Field: "issuer", Message: "the provider's discovery document could not be read: " + err.Error()})
		}
	}
	if len(details) > 0 {
		return Config{}, &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (Config, error) {
		c, err := tx.PutSSOConfig(ctx, store.SSOConfig{SSOConfig: domain.SSOConfig{AccountID: p.AccountID, Issuer: u.Issuer,
			ClientID: u.ClientID, DefaultRole: u.DefaultRole, Enforced: u.Enforced}, ClientSecretSealed: sealed}, now)
		if err != nil {
			return Config{}, err
		}
		summary := fmt.Sprintf("issuer %s, client %s, default role %s, enforced %t", u.Issuer, u.ClientID, u.DefaultRole, u.Enforced)
		// Subjects are the provider's: another provider's are not these people's.
		if n, err := tx.DeleteSSOLinksOfOtherIssuers(ctx, p.AccountID, u.Issuer); err != nil {
			return Config{}, err
		} else if n > 0 {
			summary += fmt.Sprintf("; %d members unlinked from the previous provider", n)
		}
		if u.Enforced && !existing.Enforced {
			n, err := tx.EndPasswordSessions(ctx, p.AccountID, "single sign-on enforced", now)
			if err != nil {
				return Config{}, err
			}
			summary += fmt.Sprintf("; %d password sessions ended", n)
		}
		audit.Describe(ctx, "sso", p.AccountID.String(), summary)
		return c.SSOConfig, nil
	})
}

// Delete removes the account's provider; its domains stay.
func (s *Service) Delete(ctx context.Context, p auth.Principal) error {
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		if err := tx.DeleteSSOConfig(ctx, p.AccountID); errors.Is(err, store.ErrNotFound) {
			return struct{}{}, errNoConfig
		} else if err != nil {
			return struct{}{}, err
		}
		audit.Describe(ctx, "sso", p.AccountID.String(), "")
		return struct{}{}, nil
	})
	return err
}

// discover returns the provider of issuer, read through the outbound client and kept a while;
// fresh reads it again.
func (s *Service) discover(ctx context.Context, issuer string, fresh bool) (*oidc.Provider, error) {
	s.mu.Lock()
	c, ok := s.providers[issuer]
	s.mu.Unlock()
	if ok && !fresh && s.now().Sub(c.at) < providerTTL {
		return c.p, nil
	}
	// The key set fetches keys later with the context given here: one that outlives the request.
	pctx := oidc.ClientContext(context.WithoutCancel(ctx), s.client)
	p, err := oidc.NewProvider(pctx, issuer)
	if err != nil {
		return nil, errors.New(shorten(err.Error(), 300))
	}
	s.mu.Lock()
	s.providers[issuer] = cachedProvider{p: p, at: s.now()}
	s.mu.Unlock()
	return p, nil
}

// shorten cuts a provider's text (an error, a name) to at most n characters, an ellipsis
// included, and turns control characters into spaces: it goes into answers, names and logs.
func shorten(v string, n int) string {
	r := []rune(strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return ' '
		}
		return c
	}, v))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// oauthConfig is the OAuth 2.0 client of the account at its provider.
func (s *Service) oauthConfig(c store.SSOConfig, p *oidc.Provider) (*oauth2.Config, error) {
	secret, err := s.secrets.Open(c.ClientSecretSealed, secretAssociated(c.AccountID))
	if err != nil {
		return nil, fmt.Errorf("the single sign-on client secret of account %s: %w", c.AccountID, err)
	}
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: string(secret), Endpoint: p.Endpoint(),
		RedirectURL: s.RedirectURI(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}, nil
}

// errUnreachable answers a provider that cannot be reached; what went wrong is for the log,
// not for whoever asked.
func errUnreachable(cause error) *apperr.Error {
	return &apperr.Error{Code: apperr.SSORefused, Message: "The account's single sign-on provider cannot be reached now: try again later.", Cause: cause}
}

// refused is the one answer to whoever may not sign in through single sign-on here, so that
// it tells nothing of other accounts.
func refused(why string) *apperr.Error { return apperr.New(apperr.SSORefused, "%s", why) }

var errNotHere = refused("This address cannot sign in through single sign-on here: its domain is not verified for single sign-on by an account, or the address belongs to another account.")

// Start begins a sign-in for address: it finds the account by the address's verified domain
// and answers the provider's authorization URL and the cookie that binds the flow to this
// browser. reauth asks the provider to sign the person in again.
func (s *Service) Start(ctx context.Context, address string, reauth bool) (redirect string, cookie *http.Cookie, err error) {
	address = strings.ToLower(strings.TrimSpace(address))
	accountID, err := s.store.DomainOwner(ctx, domainOf(address))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, errNotHere
	} else if err != nil {
		return "", nil, err
	}
	c, err := s.store.GetSSOConfig(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, errNotHere
	} else if err != nil {
		return "", nil, err
	}
	prov, err := s.discover(ctx, c.Issuer, false)
	if err != nil {
		return "", nil, errUnreachable(err)
	}
	conf, err := s.oauthConfig(c, prov)
	if err != nil {
		return "", nil, err
	}
	state, nonce, verifier := auth.RandomToken(32), auth.RandomToken(32), oauth2.GenerateVerifier()
	stateHash := auth.HashToken(state)
	now := s.now()
	if _, err := s.store.DeleteExpiredSSOFlows(ctx, now.Add(-time.Hour)); err != nil {
		return "", nil, err
	}
	if err := s.store.CreateSSOFlow(ctx, store.SSOFlow{StateHash: stateHash, AccountID: accountID, Nonce: nonce,
		CodeVerifier: verifier, Reauth: reauth, ExpiresAt: now.Add(FlowTTL)}, now); err != nil {
		return "", nil, err
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce),
		oauth2.SetAuthURLParam("login_hint", address)}
	if reauth {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", "login"), oauth2.SetAuthURLParam("max_age", "0"))
	}
	return conf.AuthCodeURL(state, opts...), s.cookie(cookieValue(stateHash), int(FlowTTL/time.Second)), nil
}

// cookieValue is what the browser's cookie holds of a flow: the hash of its state.
func cookieValue(stateHash []byte) string { return base64.RawURLEncoding.EncodeToString(stateHash) }

// cookie is the flow's cookie: HttpOnly, SameSite=Lax (the provider's redirect back is a
// top-level navigation from another site), Secure unless the site is plain http.
func (s *Service) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: cookiePath, MaxAge: maxAge, HttpOnly: true,
		Secure: strings.HasPrefix(s.siteURL, "https:"), SameSite: http.SameSiteLaxMode}
}

// ClearCookie is the cookie that ends the flow's in the browser.
func (s *Service) ClearCookie() *http.Cookie { return s.cookie("", -1) }

func domainOf(address string) string {
	_, d, _ := strings.Cut(address, "@")
	return strings.TrimSuffix(strings.ToLower(d), ".")
}

// sameCookie compares the browser's cookie with the flow's state hash in constant time.
func sameCookie(cookie string, stateHash []byte) bool {
	return cookie != "" && subtle.ConstantTimeCompare([]byte(cookie), []byte(cookieValue(stateHash))) == 1
}

// Callback is the provider's answer: the flow's state and code, or its error.
type Callback struct {
	Cookie, State, Code string
	Error, ErrorDetail  string
}

var errFlow = refused("This sign-in was not started in this browser, was used already or has expired: start again.")

// Finish redeems the provider's code, validates the ID token and decides who signs in; it
// answers where the browser goes next: the application, with a one-time code in the fragment.
func (s *Service) Finish(ctx context.Context, cb Callback) (string, error) {
	if cb.Cookie == "" || cb.State == "" || !sameCookie(cb.Cookie, auth.HashToken(cb.State)) {
		return "", errFlow
	}
	now := s.now()
	// The state is spent before the provider is called: a replayed callback finds nothing.
	flow, err := s.store.ConsumeSSOState(ctx, auth.HashToken(cb.State), now)
	if errors.Is(err, store.ErrNotFound) {
		return "", errFlow
	} else if err != nil {
		return "", err
	}
	if cb.Error != "" {
		return "", refused("The provider refused the sign-in: " + shorten(strings.TrimSpace(cb.Error+" "+cb.ErrorDetail), 300))
	}
	if cb.Code == "" {
		return "", refused("The provider sent no authorization code: start again.")
	}
	c, err := s.store.GetSSOConfig(ctx, flow.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return "", errNotHere
	} else if err != nil {
		return "", err
	}
	id, err := s.identify(ctx, c, flow, cb.Code)
	if err != nil {
		return "", err
	}
	userID, err := s.decide(ctx, flow.AccountID, id)
	if err != nil {
		return "", err
	}
	code := auth.RandomToken(32)
	if err := s.store.SSOFlowCalledBack(ctx, flow.StateHash, id, userID, auth.HashToken(code), now.Add(CodeTTL)); err != nil {
		return "", err
	}
	return s.siteURL + "/app/#sso=" + url.QueryEscape(code), nil
}

// identify redeems the code with the PKCE verifier and returns whom the provider vouched
// for: the ID token validated (issuer, audience, signature, expiry, nonce), the address from
// it or else from UserInfo, only when the provider says it is verified.
func (s *Service) identify(ctx context.Context, c store.SSOConfig, flow store.SSOFlow, code string) (store.SSOIdentity, error) {
	prov, err := s.discover(ctx, c.Issuer, false)
	if err != nil {
		return store.SSOIdentity{}, errUnreachable(err)
	}
	conf, err := s.oauthConfig(c, prov)
	if err != nil {
		return store.SSOIdentity{}, err
	}
	cctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, s.client), callTimeout)
	defer cancel()
	tok, err := conf.Exchange(cctx, code, oauth2.VerifierOption(flow.CodeVerifier))
	if err != nil {
		return store.SSOIdentity{}, refused("The provider did not accept the sign-in's code (" + shorten(err.Error(), 200) + "): start again.")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return store.SSOIdentity{}, refused("The provider answered without an ID token.")
	}
	idt, err := prov.Verifier(&oidc.Config{ClientID: c.ClientID}).Verify(cctx, raw)
	if err != nil {
		return store.SSOIdentity{}, refused("The provider's ID token is not valid: " + shorten(err.Error(), 200))
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(flow.Nonce)) != 1 {
		return store.SSOIdentity{}, refused("The provider's ID token is not of this sign-in (its nonce differs).")
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
		Name          string `json:"name"`
		GivenName     string `json:"given_name"`
		FamilyName    string `json:"family_name"`
		AuthTime      int64  `json:"auth_time"`
		AuthorizedFor string `json:"azp"`
	}
	if err := idt.Claims(&claims); err != nil {
		return store.SSOIdentity{}, refused("The provider's ID token holds claims this service cannot read.")
	}
	if !issuedTo(idt.Audience, claims.AuthorizedFor, c.ClientID) {
		return store.SSOIdentity{}, refused("The provider's ID token was issued to another party (azp).")
	}
	// Asked to sign the person in again (max_age=0), the provider must say when it did
	// (OpenID Connect Core 3.1.2.1: auth_time is then required).
	if flow.Reauth && (claims.AuthTime == 0 || s.now().Sub(time.Unix(claims.AuthTime, 0)) > FlowTTL) {
		return store.SSOIdentity{}, refused("The provider did not sign the person in again: sign in at the provider and try again.")
	}
	if claims.Email == "" {
		info, err := prov.UserInfo(cctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return store.SSOIdentity{}, refused("The provider's UserInfo could not be read (" + shorten(err.Error(), 200) + ").")
		}
		// OpenID Connect Core 5.3.2: UserInfo of another subject is not this person's.
		if info.Subject != idt.Subject {
			return store.SSOIdentity{}, refused("The provider's UserInfo is of another subject than its ID token.")
		}
		if err := info.Claims(&claims); err != nil {
			return store.SSOIdentity{}, refused("The provider's UserInfo holds claims this service cannot read.")
		}
		claims.Email, claims.EmailVerified = info.Email, info.EmailVerified
	}
	address := strings.ToLower(strings.TrimSpace(claims.Email))
	if address == "" || !strings.Contains(address, "@") {
		return store.SSOIdentity{}, refused("The provider did not share an email address: allow the email scope.")
	}
	if !truthy(claims.EmailVerified) {
		return store.SSOIdentity{}, refused("The provider has not verified this address (email_verified is not true).")
	}
	name := strings.TrimSpace(shorten(claims.Name, 100))
	if name == "" {
		name = strings.TrimSpace(shorten(claims.GivenName+" "+claims.FamilyName, 100))
	}
	if name == "" {
		name, _, _ = strings.Cut(address, "@")
	}
	if name = strings.TrimSpace(shorten(name, 100)); name == "" {
		name = shorten(address, 100) // a name is required; the address is what the provider vouched for
	}
	// Links are keyed on the issuer the account configured (go-oidc accepts a token whose iss
	// differs in form for some providers), so that one provider's subjects stay one set.
	return store.SSOIdentity{Issuer: c.Issuer, Subject: idt.Subject, Email: address, Name: shorten(name, 100)}, nil
}

// truthy reads email_verified, which some providers send as a string.
func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		return strings.EqualFold(t, "true")
	}
	return false
}

// decide says who the identity is in the account that ran the flow: the user linked to its
// (issuer, subject); else the user of its address, which must be of a domain the account
// verified; nil when the exchange is to make a member. Whoever is of another account, or of no
// verified domain, is refused with one answer; the owner never signs in this way.
func (s *Service) decide(ctx context.Context, accountID uuid.UUID, id store.SSOIdentity) (*uuid.UUID, error) {
	linkedAccount, linkedUser, err := s.store.FindSSOLink(ctx, id.Issuer, id.Subject)
	switch {
	case err == nil:
		if linkedAccount != accountID {
			return nil, errNotHere
		}
		u, err := s.store.FindCredentials(ctx, accountID, linkedUser)
		if err != nil {
			return nil, err
		}
		if u.User.Role == auth.RoleOwner {
			return nil, errOwner
		}
		return &linkedUser, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	owner, err := s.store.DomainOwner(ctx, domainOf(id.Email))
	if errors.Is(err, store.ErrNotFound) || (err == nil && owner != accountID) {
		return nil, errNotHere
	} else if err != nil {
		return nil, err
	}
	creds, err := s.store.FindCredentialsByEmail(ctx, id.Email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if creds.User.AccountID != accountID {
		return nil, errNotHere
	}
	if creds.User.Role == auth.RoleOwner {
		return nil, errOwner
	}
	// A member linked to another of the provider's subjects is that subject's, not this one's.
	if _, _, err := s.store.SSOLinkOfUser(ctx, creds.User.ID); err == nil {
		return nil, errLinkedElsewhere
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return &creds.User.ID, nil
}

var errLinkedElsewhere = refused("This member signs in as another identity at the provider: sign in with that one, or ask an admin.")

var errOwner = refused("The account's owner signs in with their password, never through single sign-on.")

// Exchange is what POST /auth/sso/exchange sends.
type Exchange struct {
	Cookie, Code string
	// Password and its second step link the provider's subject to an existing password user.
	Password, TwoFactorCode, RecoveryCode string
}

var errCode = refused("This sign-in code is unknown, was used already, has expired or was not issued to this browser: start again.")

// Exchange turns the one-time code of a finished flow into a session, in the browser that
// started it. The first single sign-on of a user with a password links them only with that
// password; an address without a user becomes a member (with a pending invitation's role, or
// the provider's default role).
func (s *Service) Exchange(ctx context.Context, x Exchange) (auth.Tokens, error) {
	now := s.now()
	u, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.User, error) {
		flow, err := tx.LockSSOFlowByCode(ctx, auth.HashToken(x.Code))
		if errors.Is(err, store.ErrNotFound) {
			return domain.User{}, errCode
		} else if err != nil {
			return domain.User{}, err
		}
		if !sameCookie(x.Cookie, flow.StateHash) || flow.UsedAt != nil || flow.CodeExpiresAt == nil || !now.Before(*flow.CodeExpiresAt) {
			return domain.User{}, errCode
		}
		id := flow.Identity
		audit.SetAccount(ctx, flow.AccountID)
		var u domain.User
		summary := "single sign-on"
		if flow.UserID == nil {
			if u, err = s.join(ctx, tx, flow.AccountID, id, now); err != nil {
				return u, err
			}
			summary += ", member created with role " + u.Role
		} else {
			creds, err := tx.FindCredentials(ctx, flow.AccountID, *flow.UserID)
			if err != nil {
				return u, err
			}
			u = creds.User
			linkedAccount, linkedUser, err := tx.FindSSOLink(ctx, id.Issuer, id.Subject)
			if errors.Is(err, store.ErrNotFound) {
				// Linked only by whoever also knows the password, in this browser.
				if creds.PasswordHash != "" {
					if x.Password == "" {
						return u, apperr.New(apperr.SSOLinkRequired, "This address already signs in with a password: send the code again with the password (and two-step code), once, to link single sign-on to it.")
					}
					if err := s.sessions.ConfirmPassword(ctx, flow.AccountID, u.ID, auth.LoginParams{Password: x.Password,
						TwoFactorCode: x.TwoFactorCode, RecoveryCode: x.RecoveryCode}); err != nil {
						return u, err
					}
				}
				if err := tx.CreateSSOLink(ctx, id.Issuer, id.Subject, flow.AccountID, u.ID, now); err != nil {
					return u, linkConflict(err)
				}
				summary += ", linked to the provider's subject"
			} else if err != nil {
				return u, err
			} else if linkedAccount != flow.AccountID || linkedUser != u.ID {
				// Linked meanwhile to someone else: this code was issued for another person.
				return u, errNotHere
			}
		}
		if err := tx.SSOFlowUsed(ctx, flow.StateHash, now); err != nil {
			return u, err
		}
		audit.SetActor(ctx, audit.Actor{Type: audit.ActorUser, ID: u.ID, Name: u.Name})
		audit.Describe(ctx, "user", u.ID.String(), summary)
		return u, nil
	})
	if err != nil {
		return auth.Tokens{}, err
	}
	return s.sessions.StartSSOSession(ctx, u)
}

// join makes the identity a member of the account, linked to the provider's subject: with
// the role of their pending invitation (accepted now), else the provider's default role.
func (s *Service) join(ctx context.Context, tx *store.Tx, accountID uuid.UUID, id store.SSOIdentity, now time.Time) (domain.User, error) {
	c, err := tx.GetSSOConfig(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return domain.User{}, errNotHere
	} else if err != nil {
		return domain.User{}, err
	}
	role := c.DefaultRole
	inv, err := tx.LockPendingInvitationByEmail(ctx, accountID, id.Email, now)
	switch {
	case err == nil:
		role = inv.Role
		if err := tx.AcceptInvitation(ctx, inv.ID, now); err != nil {
			return domain.User{}, err
		}
	case !errors.Is(err, store.ErrNotFound):
		return domain.User{}, err
	}
	// No password: the member signs in through the provider (or sets one with a reset link).
	u, err := tx.CreateMember(ctx, store.NewUser{AccountID: accountID, Email: id.Email, Name: id.Name, Role: role}, now)
	if err != nil {
		return u, apperr.When(err, store.Conflict(store.UniqueUserEmail), errNotHere)
	}
	if err := tx.CreateSSOLink(ctx, id.Issuer, id.Subject, accountID, u.ID, now); err != nil {
		return u, linkConflict(err)
	}
	return u, nil
}

// linkConflict answers a link that another exchange made meanwhile (of the subject, or of the
// user): this one is refused.
func linkConflict(err error) error {
	if errors.Is(err, store.Conflict(store.UniqueSSOLink)) || errors.Is(err, store.Conflict(store.UniqueSSOLinkOfUser)) {
		return errCode
	}
	return err
}

// Domains returns the account's domains.
func (s *Service) Domains(ctx context.Context, p auth.Principal) ([]domain.SSODomain, error) {
	return s.store.ListSSODomains(ctx, p.AccountID)
}

var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// ValidDomain reports whether d is a domain name (as the contract's pattern says).
func ValidDomain(d string) bool {
	d = NormalizeDomain(d)
	return len(d) >= 3 && len(d) <= 253 && domainPattern.MatchString(d)
}

// NormalizeDomain is a domain as stored: lower case, no trailing dot.
func NormalizeDomain(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

var errDomainTaken = apperr.New(apperr.Conflict, "Another account verified this domain: its addresses sign in there.")

// AddDomain claims a domain for the account; it counts once verified.
func (s *Service) AddDomain(ctx context.Context, p auth.Principal, name string) (domain.SSODomain, error) {
	name = NormalizeDomain(name)
	accountID := p.AccountID
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.SSODomain, error) {
		if n, err := tx.CountSSODomains(ctx, accountID); err != nil {
			return domain.SSODomain{}, err
		} else if n >= MaxDomains {
			return domain.SSODomain{}, apperr.New(apperr.Conflict, "An account has at most %d single sign-on domains: remove one first.", MaxDomains)
		}
		if owner, err := tx.DomainOwner(ctx, name); err == nil && owner != accountID {
			return domain.SSODomain{}, errDomainTaken
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return domain.SSODomain{}, err
		}
		d, err := tx.InsertSSODomain(ctx, accountID, domain.SSODomain{Domain: name, Token: auth.RandomToken(24)}, now)
		if err != nil {
			return d, apperr.When(err, store.Conflict(store.UniqueAccountDomain),
				apperr.New(apperr.Conflict, "This account added this domain already."))
		}
		audit.Describe(ctx, "ssoDomain", name, "")
		return d, nil
	})
}

// AddVerifiedDomain is the operator's command: the domain is the account's, verified now.
func (s *Service) AddVerifiedDomain(ctx context.Context, accountID uuid.UUID, name string) (domain.SSODomain, error) {
	name = NormalizeDomain(name)
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.SSODomain, error) {
		d, err := tx.GetSSODomain(ctx, accountID, name)
		if errors.Is(err, store.ErrNotFound) {
			d, err = tx.InsertSSODomain(ctx, accountID, domain.SSODomain{Domain: name, Token: auth.RandomToken(24), VerifiedAt: &now}, now)
		} else if err == nil {
			d, err = tx.VerifySSODomain(ctx, accountID, name, now)
		}
		return d, apperr.When(err, store.Conflict(store.UniqueVerifiedDomain), errDomainTaken)
	})
}

// VerifyDomain looks up the domain's TXT records for its verification record.
func (s *Service) VerifyDomain(ctx context.Context, p auth.Principal, name string) (domain.SSODomain, error) {
	name = NormalizeDomain(name)
	d, err := s.store.GetSSODomain(ctx, p.AccountID, name)
	if errors.Is(err, store.ErrNotFound) {
		return d, errNoDomain
	} else if err != nil {
		return d, err
	}
	if d.VerifiedAt == nil {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		records, _ := s.resolver.LookupTXT(lctx, name)
		cancel()
		found := false
		for _, r := range records {
			if strings.TrimSpace(r) == d.VerificationRecord() {
				found = true
			}
		}
		if !found {
			return d, apperr.New(apperr.DomainRecordNotFound, "No TXT record %q was found at %s; DNS changes can take a while to be seen: try again later.", d.VerificationRecord(), name)
		}
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.SSODomain, error) {
		d, err := tx.VerifySSODomain(ctx, p.AccountID, name, now)
		if errors.Is(err, store.ErrNotFound) {
			return d, errNoDomain
		} else if err != nil {
			return d, apperr.When(err, store.Conflict(store.UniqueVerifiedDomain), errDomainTaken)
		}
		audit.Describe(ctx, "ssoDomain", name, "")
		return d, nil
	})
}

var errNoDomain = apperr.New(apperr.NotFound, "This account has not added this domain.")

// DeleteDomain removes a domain of the account.
func (s *Service) DeleteDomain(ctx context.Context, p auth.Principal, name string) error {
	name = NormalizeDomain(name)
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		if err := tx.DeleteSSODomain(ctx, p.AccountID, name); errors.Is(err, store.ErrNotFound) {
			return struct{}{}, errNoDomain
		} else if err != nil {
			return struct{}{}, err
		}
		audit.Describe(ctx, "ssoDomain", name, "")
		return struct{}{}, nil
	})
	return err
}

// ResealSecrets seals under the box's current key every client secret sealed under another key
// it holds, and says how many it resealed (credentiald secrets rotate).
func ResealSecrets(ctx context.Context, st *store.Store, box *secretbox.Box) (int, error) {
	list, err := st.SSOSecrets(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sec := range list {
		if box.Current(sec.Sealed) {
			continue
		}
		plain, err := box.Open(sec.Sealed, secretAssociated(sec.AccountID))
		if err != nil {
			return n, fmt.Errorf("the single sign-on client secret of account %s: %w (is its key in SECRETS_KEY_PREVIOUS?)", sec.AccountID, err)
		}
		sealed, err := box.Seal(plain, secretAssociated(sec.AccountID))
		if err != nil {
			return n, err
		}
		if ok, err := st.ReplaceSSOSecret(ctx, sec, sealed); err != nil {
			return n, err
		} else if ok {
			n++
		}
	}
	return n, nil
}

// issuedTo says whether an ID token of the audience aud and authorized party azp was issued
// to client (OpenID Connect Core 3.1.3.7): a token for several audiences must name the party
// it was issued to (azp), which must be client; an azp that is there must be client. go-oidc
// has checked already that client is one of the audience.
func issuedTo(aud []string, azp, client string) bool {
	if len(aud) > 1 || azp != "" {
		return azp == client
	}
	return true
}
