package httpapi_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/wallet"
)

// tracedService is the service with tracing on, as Serve runs it when an OTLP endpoint is
// configured (the store's pgx tracer and River's middleware included, the job client
// running), exporting to spans in memory, and logging at debug level (a line per public
// request too) into logs.
type tracedService struct {
	env   *testkit.Env
	spans *tracetest.SpanRecorder
	logs  *testkit.Buffer
	clock *testkit.Clock
}

func newTracedService(t *testing.T) tracedService {
	t.Helper()
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	dbURL := testkit.Database(t)
	st, err := store.Open(ctx, dbURL, app.StoreOptions(tp)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir, cfg.DatabaseURL, cfg.SecretsKey = t.TempDir(), dbURL, testkit.SecretsKey()
	logs := &testkit.Buffer{}
	logger := logging.New(logs, slog.LevelDebug)
	// The site is the test server itself, so that the wallet links lead back to it.
	var handler http.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	cfg.SiteURL = &url.URL{Scheme: "http", Host: srv.Listener.Addr().String()}
	clock := &testkit.Clock{}
	svc, err := app.Build(ctx, cfg, st, logger, app.Overrides{TracerProvider: tp, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	handler = svc.Handler
	srv.Config = app.HTTPServer(svc.Handler, logger, 0)
	srv.Start()
	t.Cleanup(srv.Close)
	jobs, stopJobs := context.WithCancel(context.Background())
	if err := svc.Jobs.Start(jobs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopJobs()
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Jobs.Stop(stopCtx)
	})
	env := &testkit.Env{URL: srv.URL, Store: st, Client: contract.NewClient(t, srv.URL), Service: svc, Config: cfg}
	return tracedService{env: env, spans: spans, logs: logs, clock: clock}
}

// secrets are the secrets a test handled, by what they are.
type secrets map[string]string

func (s secrets) add(t *testing.T, what, value string) string {
	t.Helper()
	if value == "" {
		t.Fatalf("no %s to keep out of the telemetry", what)
	}
	s[what] = value
	return value
}

// finder names each secret a text holds, as sent or escaped as a URL would carry it. A short
// secret (a six-digit code) counts only standing alone, not as part of a longer number.
func (s secrets) finder() func(text string) []string {
	type form struct {
		what string
		in   func(string) bool
	}
	var forms []form
	for what, value := range s {
		for _, v := range slices.Compact([]string{value, url.QueryEscape(value), url.PathEscape(value)}) {
			in := func(text string) bool { return strings.Contains(text, v) }
			if len(v) < 16 {
				in = regexp.MustCompile(`(^|[^0-9A-Za-z])` + regexp.QuoteMeta(v) + `($|[^0-9A-Za-z])`).MatchString
			}
			forms = append(forms, form{what, in})
		}
	}
	return func(text string) []string {
		var found []string
		for _, f := range forms {
			if f.in(text) && !slices.Contains(found, f.what) {
				found = append(found, f.what)
			}
		}
		slices.Sort(found)
		return found
	}
}

// spanText is everything a span carries that an exporter sends: its name, its attributes, its
// events with theirs, its status, its links' attributes.
func spanText(s sdktrace.ReadOnlySpan) string {
	var b strings.Builder
	attrs := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.String())
		}
	}
	b.WriteString(s.Name())
	attrs(s.Attributes())
	for _, e := range s.Events() {
		b.WriteString(" event:" + e.Name)
		attrs(e.Attributes)
	}
	b.WriteString(" status:" + s.Status().Description)
	for _, l := range s.Links() {
		attrs(l.Attributes)
	}
	return b.String()
}

// With tracing on and the log at debug level, a recipient, a wallet and an account owner go
// through every route that carries a secret: the recipient's page and its assets with the
// token of the delivery email; the wallet routes with an offer's token in their path (the
// interaction, the VC API exchange and its challenge, the OpenID4VCI offer with its
// pre-authorized code, the token endpoint and its access token, the nonce, the credential
// request with its proof); and sign-in, refresh and logout, two-step sign-in (its secret, its
// codes, its recovery codes), an API key and a webhook's signing secret. No span (name,
// attribute, event, status, link) and no log line holds any of them: a route with a secret in
// its path is recorded by its route, no query string is recorded, the database's spans hold
// statements without their arguments, and the jobs' spans no arguments.
func TestNoSpanOrLogLineCarriesASecret(t *testing.T) {
	t.Parallel()
	s := newTracedService(t)
	env, public := s.env, s.env.Client
	secret := secrets{}

	// Sign-in: registration, login, refresh and logout, each with its tokens.
	acct := testkit.SignUp(t, env)
	secret.add(t, "password", testkit.Password)
	// No statement's arguments are recorded: the owner's email, which the statements of a
	// sign-in take as it is, stands for the secrets and personal data they take.
	secret.add(t, "owner's email (an argument of the sign-in's statements)", acct.Email)
	secret.add(t, "access token of the registration", acct.AccessToken)
	secret.add(t, "refresh token of the registration", acct.RefreshToken)
	var session struct {
		Data struct{ AccessToken, RefreshToken string }
	}
	res := public.Post("/api/v1/auth/login", map[string]string{"email": acct.Email, "password": testkit.Password})
	res.JSON(t, &session)
	secret.add(t, "access token of a login", session.Data.AccessToken)
	secret.add(t, "refresh token of a login", session.Data.RefreshToken)
	res = public.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": session.Data.RefreshToken})
	res.JSON(t, &session)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("refresh: %d %s", res.StatusCode, res.Body)
	}
	secret.add(t, "access token of a refresh", session.Data.AccessToken)
	secret.add(t, "refresh token of a refresh", session.Data.RefreshToken)
	public.WithBearer(session.Data.AccessToken).Post("/api/v1/auth/logout", map[string]string{"refreshToken": session.Data.RefreshToken})
	public.Post("/api/v1/auth/refresh", map[string]string{"refreshToken": session.Data.RefreshToken}) // spent: refused

	key, keyClient := acct.APIKey(t, "events:read", "certificates:read", "certificates:write")
	secret.add(t, "API key", key)
	keyClient.Get("/api/v1/events")
	var hook struct{ Data struct{ Secret string } }
	acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://hooks.example.org/credentiald",
		"events": []string{"certificate.issued"}}).JSON(t, &hook)
	secret.add(t, "webhook signing secret", hook.Data.Secret)

	// A certificate sent by email, through the running job client: its link carries the
	// recipient token, and its wallet button a fresh offer's token.
	event := acct.Event(t, env, "Telemetry Summit")
	ada := acct.Attendee(t, event, "Ada", "Lovelace", "ada@example.org")
	var cert certificateBody
	res = acct.Client.Post("/api/v1/certificates/generate", map[string]any{"eventId": event, "templateId": acct.Template(t, env),
		"attendeeId": ada, "sendEmail": true})
	res.JSON(t, &cert)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	mail := waitForEmail(t, env, "ada@example.org")
	recipient := regexp.MustCompile(`\?t=([A-Za-z0-9_-]{43})`).FindStringSubmatch(mail)
	mailedOffer := regexp.MustCompile(`/interactions/([A-Za-z0-9_-]{20,})`).FindStringSubmatch(mail)
	require.NotNil(t, recipient, "no recipient token in:\n%.3000s", mail)
	require.NotNil(t, mailedOffer, "no wallet link in:\n%.3000s", mail)
	token := secret.add(t, "recipient token", recipient[1])
	secret.add(t, "offer token of the email", mailedOffer[1])

	// The recipient's page and every asset of the credential, with the token.
	code := cert.Data.VerificationCode
	for _, path := range []string{"/verify/" + code, "/api/v1/verify/" + code, "/api/v1/verify/" + code + "/certificate.pdf",
		"/api/v1/verify/" + code + "/preview.png", "/api/v1/verify/" + code + "/share.png", "/api/v1/verify/" + code + "/qr",
		"/api/v1/verify/" + code + "/issuer-logo", "/api/v1/verify/" + code + "/credential.json",
		"/api/v1/verify/" + code + "/credential.jwt"} {
		if res := public.Get(path + "?t=" + token); res.StatusCode >= 500 {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
	public.Get("/verify/" + code + "?t=" + token + "x") // a token that is not the recipient's

	// The wallet routes, with the emailed offer and two more.
	interaction := func(token string, accept string) *contract.Response {
		req := public.Request(http.MethodGet, "/interactions/"+token+"?iuv=1", nil)
		req.Header.Set("Accept", accept)
		return public.Do(req)
	}
	if res := interaction(mailedOffer[1], "text/html"); res.StatusCode != http.StatusOK {
		t.Fatalf("interaction page: %d", res.StatusCode)
	}
	if res := interaction(mailedOffer[1], "application/json"); res.StatusCode != http.StatusOK {
		t.Fatalf("interaction: %d %s", res.StatusCode, res.Body)
	}
	interaction("not-an-offer-token-but-secret-looking", "text/html")
	secret.add(t, "unknown offer token", "not-an-offer-token-but-secret-looking")

	offer := func() walletOffer {
		t.Helper()
		var o walletOfferBody
		res := acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil)
		res.JSON(t, &o)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("offer: %d %s", res.StatusCode, res.Body)
		}
		return o.Data
	}
	vcapi, oid4vci := offer(), offer()
	exchangeToken := secret.add(t, "offer token of the exchange", offerToken(t, vcapi.InteractionURL))
	var vpr struct {
		VerifiablePresentationRequest struct{ Challenge, Domain string }
	}
	res = public.Post("/exchanges/"+exchangeToken, map[string]any{})
	res.JSON(t, &vpr)
	secret.add(t, "exchange challenge", vpr.VerifiablePresentationRequest.Challenge)
	public.Post("/exchanges/"+exchangeToken, map[string]any{"verifiablePresentation": map[string]any{
		"@context": []string{"https://www.w3.org/ns/credentials/v2"}, "type": []string{"VerifiablePresentation"},
		"holder": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
		"proof":  map[string]any{"challenge": vpr.VerifiablePresentationRequest.Challenge, "domain": vpr.VerifiablePresentationRequest.Domain}}})

	oid4vciToken := secret.add(t, "offer token of OpenID4VCI", offerToken(t, oid4vci.InteractionURL))
	issuer := "/issuers/" + acct.ID.String()
	var document struct {
		CredentialIssuer string `json:"credential_issuer"`
		Grants           map[string]struct {
			Code string `json:"pre-authorized_code"`
		}
	}
	public.Get(issuer+"/offers/"+oid4vciToken).JSON(t, &document)
	preAuthorized := secret.add(t, "pre-authorized code", document.Grants[wallet.PreAuthorizedGrant].Code)
	form := func(v url.Values) *contract.Response {
		req := public.Request(http.MethodPost, issuer+"/token", []byte(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return public.Do(req)
	}
	var grant struct {
		AccessToken string `json:"access_token"`
		CNonce      string `json:"c_nonce"`
	}
	form(url.Values{"grant_type": {wallet.PreAuthorizedGrant}, "pre-authorized_code": {preAuthorized}}).JSON(t, &grant)
	accessToken := secret.add(t, "OpenID4VCI access token", grant.AccessToken)
	form(url.Values{"grant_type": {wallet.PreAuthorizedGrant}, "pre-authorized_code": {preAuthorized}}) // spent: invalid_grant
	if grant.CNonce != "" {
		secret.add(t, "c_nonce of the token answer", grant.CNonce)
	}
	var nonce struct {
		CNonce string `json:"c_nonce"`
	}
	public.Post(issuer+"/nonce", nil).JSON(t, &nonce)
	secret.add(t, "c_nonce", nonce.CNonce)
	proof := secret.add(t, "proof JWT", proofJWT(t, document.CredentialIssuer, nonce.CNonce))
	credential := func(bearer string) *contract.Response {
		req := public.Request(http.MethodPost, issuer+"/credential", map[string]any{"credential_configuration_id": "OpenBadgeCredential_jwt_vc_json",
			"proofs": map[string]any{"jwt": []string{proof}}})
		req.Header.Set("Authorization", "Bearer "+bearer)
		return public.Do(req)
	}
	if res := credential(accessToken); res.StatusCode != http.StatusOK {
		t.Fatalf("credential: %d %s", res.StatusCode, res.Body)
	}
	credential(accessToken) // spent: refused
	credential(secret.add(t, "unknown access token", "an-access-token-nobody-was-given"))
	public.Get(issuer + "/offers/" + oid4vciToken) // claimed: gone

	// Two-step sign-in: its secret, the codes that enable it and sign in, a recovery code.
	totpSecret, recovery := enableTwoFactor(t, acct.Client, s.clock)
	secret.add(t, "TOTP secret", totpSecret)
	for i, c := range recovery {
		secret.add(t, fmt.Sprintf("recovery code %d", i+1), c)
	}
	secret.add(t, "TOTP code that enabled two-step sign-in", totp(t, totpSecret, s.clock.Now()))
	public.Post("/api/v1/auth/login", map[string]string{"email": acct.Email, "password": testkit.Password}) // a code is required
	s.clock.Advance(30 * time.Second)
	signInCode := secret.add(t, "TOTP code of a sign-in", totp(t, totpSecret, s.clock.Now()))
	if res := public.Post("/api/v1/auth/login", map[string]string{"email": acct.Email, "password": testkit.Password,
		"twoFactorCode": signInCode}); res.StatusCode != http.StatusOK {
		t.Fatalf("two-step sign-in: %d %s", res.StatusCode, res.Body)
	}
	public.Post("/api/v1/auth/login", map[string]string{"email": acct.Email, "password": testkit.Password, "recoveryCode": recovery[0]})
	s.clock.Advance(30 * time.Second)
	secret.add(t, "TOTP code that disabled two-step sign-in", totp(t, totpSecret, s.clock.Now()))
	acct.Client.Post("/api/v1/auth/two-factor/disable", map[string]string{"currentPassword": testkit.Password, "code": totp(t, totpSecret, s.clock.Now())})

	// What was recorded: the telemetry of every route above, none of what it carried.
	ended := s.spans.Ended()
	foundIn := secret.finder()
	routes := map[string]string{}
	for _, span := range ended {
		for _, kv := range span.Attributes() {
			if kv.Key == "url.path" {
				routes[span.Name()] = kv.Value.AsString()
			}
		}
		if found := foundIn(spanText(span)); len(found) > 0 {
			t.Errorf("the span %s carries the %s:\n%s", span.Name(), strings.Join(found, ", the "), spanText(span))
		}
	}
	for op, path := range map[string]string{"postWalletExchange": "/exchanges/:offerToken", "getCredentialOffer": "/issuers/:accountId/offers/:offerToken",
		"postIssuerToken": issuer + "/token", "postIssuerCredential": issuer + "/credential", "getVerificationPage": "/verify/" + code,
		"getVerificationCertificatePdf": "/api/v1/verify/" + code + "/certificate.pdf", "login": "/api/v1/auth/login"} {
		if routes[op] != path {
			t.Errorf("the span of %s records url.path %q, want %q", op, routes[op], path)
		}
	}
	var sawStatement, sawJob, sawEmail bool
	for _, span := range ended {
		name := span.Name()
		sawStatement = sawStatement || slices.ContainsFunc(span.Attributes(), func(kv attribute.KeyValue) bool { return kv.Key == "db.query.text" })
		sawJob = sawJob || strings.HasPrefix(name, "river.work/")
		sawEmail = sawEmail || name == "email.send"
	}
	assert.True(t, sawStatement, "no span of a statement: the test saw less than it must")
	assert.True(t, sawJob, "no span of a job: the test saw less than it must")
	assert.True(t, sawEmail, "no span of the email: the test saw less than it must")

	logs := s.logs.String()
	for _, route := range []string{`"route":"/interactions/:offerToken"`, `"route":"/exchanges/:offerToken"`,
		`"route":"/issuers/:accountId/offers/:offerToken"`, `"route":"/issuers/:accountId/token"`, `"route":"/verify/:code"`} {
		if !strings.Contains(logs, route) {
			t.Errorf("no log line of %s: the test saw less than it must", route)
		}
	}
	for line := range strings.Lines(logs) {
		if found := foundIn(line); len(found) > 0 {
			t.Errorf("a log line carries the %s:\n%s", strings.Join(found, ", the "), line)
		}
	}
}

// offerToken is the token of an offer's interaction URL.
func offerToken(t *testing.T, interactionURL string) string {
	t.Helper()
	u, err := url.Parse(interactionURL)
	if err != nil {
		t.Fatal(err)
	}
	token, ok := strings.CutPrefix(u.Path, "/interactions/")
	require.True(t, ok, "interaction URL %q", interactionURL)
	require.NotEmpty(t, token, "interaction URL %q: token", interactionURL)
	return token
}

// proofJWT is a wallet's OpenID4VCI proof of a fresh did:jwk key, for aud and nonce.
func proofJWT(t *testing.T, aud, nonce string) string {
	t.Helper()
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	jwk, _ := json.Marshal(map[string]string{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(pub)})
	did := "did:jwk:" + base64.RawURLEncoding.EncodeToString(jwk)
	hdr := jws.NewHeaders()
	_ = hdr.Set("typ", wallet.ProofJWTType)
	_ = hdr.Set("kid", did+"#0")
	claims, _ := json.Marshal(map[string]any{"aud": aud, "iat": time.Now().Unix(), "nonce": nonce, "jti": uuid.NewString()})
	proof, err := jws.Sign(claims, jws.WithKey(jwa.EdDSA(), key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(proof)
}

// waitForEmail waits for the running job client to write the message to `to` into the
// outbox folder, and returns its text part.
func waitForEmail(t *testing.T, env *testkit.Env, to string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(env.Config.DataDir, "outbox", "*.eml"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err == nil && strings.Contains(string(raw), to) {
				return plainText(t, string(raw))
			}
		}
	}
	t.Fatalf("no email to %s", to)
	return ""
}
