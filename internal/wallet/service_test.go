package wallet_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/vc"
	"github.com/certhub/credentiald/internal/wallet"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const site = "https://certs.example.org"

// claiming is a world with an issued certificate and the services a claim runs through.
type claiming struct {
	w       testkit.World
	certs   *certificates.Service
	creds   *credentials.Service
	wallet  *wallet.Service
	cert    domain.Certificate
	subject wallet.Credential
}

func newClaiming(t testing.TB) claiming {
	t.Helper()
	w := testkit.NewWorld(t)
	box := w.Secrets
	c := claiming{w: w, certs: certificates.New(w.Store, site, w.Clock.Now)}
	c.creds = credentials.New(w.Store, box, site, w.Clock.Now)
	c.wallet = wallet.New(w.Store, box, c.creds, site, w.Clock.Now)
	a, err := w.Store.CreateAttendee(t.Context(), w.Account, w.Event, domain.AttendeeFields{FirstName: "Ada", LastName: "Lovelace",
		Email: "ada@example.org"}, w.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if c.cert, err = c.certs.Generate(t.Context(), certificates.GenerateParams{AccountID: w.Account, EventID: w.Event,
		AttendeeID: a.ID, TemplateID: w.Template}); err != nil {
		t.Fatal(err)
	}
	c.subject = wallet.Credential{AccountID: w.Account, CertificateID: &c.cert.ID}
	return c
}

func (c claiming) offer(t *testing.T) (wallet.Offer, string) {
	t.Helper()
	o, err := c.wallet.Create(t.Context(), c.subject)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSuffix(strings.TrimPrefix(o.InteractionURL, site+"/interactions/"), "?iuv=1")
	return o, token
}

// accessToken runs an offer's OpenID4VCI steps up to the access token: the offer document's
// pre-authorized code, traded at the token endpoint.
func (c claiming) accessToken(t testing.TB, token string) string {
	t.Helper()
	doc, err := c.wallet.OfferDocument(t.Context(), c.w.Account, token)
	if err != nil {
		t.Fatal(err)
	}
	code := doc["grants"].(map[string]any)[wallet.PreAuthorizedGrant].(map[string]any)["pre-authorized_code"].(string)
	tok, err := c.wallet.ExchangeCode(t.Context(), c.w.Account, wallet.PreAuthorizedGrant, code)
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

func wantCode(t *testing.T, err error, code apperr.Code) {
	t.Helper()
	if e, ok := apperr.As(err); !ok || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func wantOAuth(t *testing.T, err error, code string) {
	t.Helper()
	var e *wallet.OAuthError
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("got %v, want OAuth %s", err, code)
	}
}

// checkBound checks a claimed credential: this certificate's, bound to holder, signed by the
// account's key.
func (c claiming) checkBound(t *testing.T, signed []byte, holder string) {
	t.Helper()
	var cred struct {
		ID                string `json:"id"`
		ValidFrom         string `json:"validFrom"`
		CredentialSubject struct {
			ID string `json:"id"`
		} `json:"credentialSubject"`
		CredentialStatus map[string]any `json:"credentialStatus"`
	}
	if err := json.Unmarshal(signed, &cred); err != nil {
		t.Fatal(err)
	}
	if cred.ID != "urn:uuid:"+c.cert.ID.String() || cred.CredentialSubject.ID != holder || cred.CredentialStatus == nil {
		t.Fatalf("claimed credential: id %s subject %s status %v", cred.ID, cred.CredentialSubject.ID, cred.CredentialStatus)
	}
	keys, err := c.creds.IssuerKeys(t.Context(), c.w.Account)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vc.VerifyDataIntegrity(signed, vc.NewDIDDocument(keys.DID, keys.Keys).PublicKey); err != nil {
		t.Fatalf("the claimed credential does not verify: %v", err)
	}
}

func TestAnExchangeClaimBindsTheCertificateToTheWalletsDID(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	_, token := c.offer(t)
	protocols, err := c.wallet.Protocols(ctx, token)
	if err != nil || protocols["vcapi"] != site+"/exchanges/"+token || !strings.HasPrefix(protocols["OID4VCI"], "openid-credential-offer://") {
		t.Fatalf("protocols: %v %v", protocols, err)
	}
	req, err := c.wallet.StartExchange(ctx, token)
	if err != nil || req.Domain != "certs.example.org" || req.Challenge == "" {
		t.Fatalf("exchange start: %+v %v", req, err)
	}
	seed := bytes.Repeat([]byte{3}, 32)
	holder := didKeyEd25519(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))

	// A presentation for another challenge is refused and the offer stays claimable.
	stale := lcwPresentation(t, seed, "not-our-challenge", req.Domain, 2)
	_, err = c.wallet.CompleteExchange(ctx, token, stale)
	wantCode(t, err, apperr.ValidationError)

	vp := lcwPresentation(t, seed, req.Challenge, req.Domain, 1)
	out, err := c.wallet.CompleteExchange(ctx, token, vp)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := out["verifiableCredential"].([]json.RawMessage)
	if len(got) != 1 {
		t.Fatalf("exchange answer %v", out)
	}
	c.checkBound(t, got[0], holder)

	// Claimed once: the same challenge, a new exchange and the offer document are all gone.
	_, err = c.wallet.CompleteExchange(ctx, token, vp)
	wantCode(t, err, apperr.OfferGone)
	_, err = c.wallet.StartExchange(ctx, token)
	wantCode(t, err, apperr.OfferGone)
	page, err := c.wallet.Interaction(ctx, token)
	if err != nil || page.Gone == "" {
		t.Fatalf("the page of a claimed offer: %+v %v", page, err)
	}
	list, total, err := c.wallet.List(ctx, c.subject, domain.Page{Number: 1, Size: 10})
	if err != nil || total != 1 || list[0].Holder == nil || *list[0].Holder != holder || *list[0].Protocol != wallet.ProtocolVCAPI {
		t.Fatalf("offers after the claim: %+v %d %v", list, total, err)
	}
	events, _ := c.w.Store.OutboxEvents(ctx, c.w.Account)
	claimed := 0
	for _, e := range events {
		if e.EventType == "certificate.claimed" {
			claimed++
			if !bytes.Contains(e.Payload, []byte(holder)) || !bytes.Contains(e.Payload, []byte(`"protocol": "vcapi"`)) && !bytes.Contains(e.Payload, []byte(`"protocol":"vcapi"`)) {
				t.Errorf("certificate.claimed: %s", e.Payload)
			}
		}
	}
	if claimed != 1 {
		t.Fatalf("%d certificate.claimed events, want 1", claimed)
	}
}

// proofFor signs a wallet's key proof for the account's issuer with nonce.
func proofFor(t testing.TB, key ed25519.PrivateKey, aud, nonce string, iat time.Time) string {
	t.Helper()
	did := didKeyEd25519(key.Public().(ed25519.PublicKey))
	return proofJWT(t, jwa.EdDSA(), key, map[string]any{"typ": wallet.ProofJWTType, "kid": did + "#" + strings.TrimPrefix(did, "did:key:")},
		map[string]any{"aud": aud, "iat": iat.Unix(), "nonce": nonce})
}

func TestAnOpenID4VCIClaimSpendsItsCodeTokenAndNonceOnce(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	_, token := c.offer(t)
	issuer := c.wallet.IssuerID(c.w.Account)
	_, err := c.wallet.OfferDocument(ctx, uuid.New(), token)
	wantCode(t, err, apperr.NotFound) // another issuer's path
	doc, err := c.wallet.OfferDocument(ctx, c.w.Account, token)
	if err != nil || doc["credential_issuer"] != issuer {
		t.Fatalf("offer document: %v %v", doc, err)
	}
	code := doc["grants"].(map[string]any)[wallet.PreAuthorizedGrant].(map[string]any)["pre-authorized_code"].(string)
	_, err = c.wallet.ExchangeCode(ctx, c.w.Account, "authorization_code", code)
	wantOAuth(t, err, "unsupported_grant_type")
	_, err = c.wallet.ExchangeCode(ctx, uuid.New(), wallet.PreAuthorizedGrant, code)
	wantOAuth(t, err, "invalid_grant")
	t0, err := c.wallet.ExchangeCode(ctx, c.w.Account, wallet.PreAuthorizedGrant, code)
	if err != nil || t0.AccessToken == "" {
		t.Fatal(err)
	}
	tok := t0.AccessToken
	_, err = c.wallet.ExchangeCode(ctx, c.w.Account, wallet.PreAuthorizedGrant, code)
	wantOAuth(t, err, "invalid_grant") // the code is spent

	_, key, _ := ed25519.GenerateKey(nil)
	holder := didKeyEd25519(key.Public().(ed25519.PublicKey))
	nonce, err := c.wallet.Nonce(ctx, c.w.Account)
	if err != nil {
		t.Fatal(err)
	}
	req := func(jwt string) wallet.CredentialRequest {
		var r wallet.CredentialRequest
		_ = json.Unmarshal([]byte(`{"credential_configuration_id":"`+wallet.ConfigLDP+`","proofs":{"jwt":["`+jwt+`"]}}`), &r)
		return r
	}
	now := c.w.Clock.Now()
	_, err = c.wallet.IssueCredential(ctx, c.w.Account, tok, req(proofFor(t, key, "https://evil.example/issuers/x", nonce, now)))
	wantOAuth(t, err, "invalid_proof")
	_, err = c.wallet.IssueCredential(ctx, c.w.Account, tok, req(proofFor(t, key, issuer, "never-issued", now)))
	wantOAuth(t, err, "invalid_nonce")
	_, err = c.wallet.IssueCredential(ctx, c.w.Account, "not-a-token", req(proofFor(t, key, issuer, nonce, now)))
	wantOAuth(t, err, "invalid_token")
	_, err = c.wallet.IssueCredential(ctx, c.w.Account, "", wallet.CredentialRequest{})
	wantOAuth(t, err, "invalid_token") // no token: 401 before the body is read (RFC 6750)
	var bad wallet.CredentialRequest
	_ = json.Unmarshal([]byte(`{"credential_configuration_id":"Other","proofs":{"jwt":["x"]}}`), &bad)
	_, err = c.wallet.IssueCredential(ctx, c.w.Account, tok, bad)
	wantOAuth(t, err, "unknown_credential_configuration")

	out, err := c.wallet.IssueCredential(ctx, c.w.Account, tok, req(proofFor(t, key, issuer, nonce, now)))
	if err != nil {
		t.Fatal(err)
	}
	signed, ok := out.(json.RawMessage)
	if !ok {
		t.Fatalf("the ldp_vc credential is a %T, want its signed JSON", out)
	}
	c.checkBound(t, signed, holder)

	// Everything is spent: the token, the nonce and the offer.
	nonce2, _ := c.wallet.Nonce(ctx, c.w.Account)
	_, err = c.wallet.IssueCredential(ctx, c.w.Account, tok, req(proofFor(t, key, issuer, nonce2, now)))
	wantOAuth(t, err, "invalid_token")
	_, err = c.wallet.OfferDocument(ctx, c.w.Account, token)
	wantCode(t, err, apperr.OfferGone)
}

func TestTheJWTFormIsTheCredentialSignedAsVCJOSEForTheHolder(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	_, token := c.offer(t)
	tok := c.accessToken(t, token)
	_, key, _ := ed25519.GenerateKey(nil)
	holder := didKeyEd25519(key.Public().(ed25519.PublicKey))
	nonce, _ := c.wallet.Nonce(ctx, c.w.Account)
	// The single proof of earlier drafts.
	var r wallet.CredentialRequest
	_ = json.Unmarshal([]byte(`{"credential_configuration_id":"`+wallet.ConfigJWT+`","proof":{"proof_type":"jwt","jwt":"`+
		proofFor(t, key, c.wallet.IssuerID(c.w.Account), nonce, c.w.Clock.Now())+`"}}`), &r)
	out, err := c.wallet.IssueCredential(ctx, c.w.Account, tok, r)
	if err != nil {
		t.Fatal(err)
	}
	compact, ok := out.(string)
	if !ok {
		t.Fatalf("the jwt_vc_json credential is a %T, want its compact JWS", out)
	}
	keys, _ := c.creds.IssuerKeys(ctx, c.w.Account)
	set, err := vc.NewJWKSet(keys.DID, keys.Keys)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := vc.VerifyJWT(compact, set)
	if err != nil {
		t.Fatalf("the claimed JWT does not verify: %v", err)
	}
	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	if claims["sub"] != holder || claims["jti"] != "urn:uuid:"+c.cert.ID.String() {
		t.Fatalf("JWT claims: sub %v jti %v", claims["sub"], claims["jti"])
	}
}

func TestARevokedOrUnknownCredentialCannotBeOfferedOrClaimed(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	_, token := c.offer(t)
	if _, err := c.certs.Revoke(ctx, c.w.Account, c.cert.ID, nil, ""); err != nil {
		t.Fatal(err)
	}
	_, err := c.wallet.StartExchange(ctx, token)
	wantCode(t, err, apperr.OfferGone)
	_, err = c.wallet.Create(ctx, c.subject)
	wantCode(t, err, apperr.Conflict)
	other := uuid.New()
	_, err = c.wallet.Create(ctx, wallet.Credential{AccountID: c.w.Account, CertificateID: &other})
	wantCode(t, err, apperr.NotFound)
	_, err = c.wallet.Create(ctx, wallet.Credential{AccountID: uuid.New(), CertificateID: &c.cert.ID})
	wantCode(t, err, apperr.NotFound) // another account's certificate
	_, err = c.wallet.StartExchange(ctx, "not-a-token")
	wantCode(t, err, apperr.NotFound)
	_, err = c.wallet.StartExchange(ctx, strings.Repeat("A", 43))
	wantCode(t, err, apperr.NotFound)
}

func TestAnExpiredOfferIsGoneAndAProofWithoutNonceIsRefused(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	_, token := c.offer(t)
	tok := c.accessToken(t, token)
	_, key, _ := ed25519.GenerateKey(nil)
	var r wallet.CredentialRequest
	_ = json.Unmarshal([]byte(`{"credential_configuration_id":"`+wallet.ConfigLDP+`","proofs":{"jwt":["`+
		proofFor(t, key, c.wallet.IssuerID(c.w.Account), "", c.w.Clock.Now())+`"]}}`), &r)
	_, err := c.wallet.IssueCredential(ctx, c.w.Account, tok, r)
	wantOAuth(t, err, "invalid_nonce")

	c.w.Clock.Advance(wallet.OfferValidity + time.Minute)
	_, err = c.wallet.StartExchange(ctx, token)
	wantCode(t, err, apperr.OfferGone)
	_, err = c.wallet.OfferDocument(ctx, c.w.Account, token)
	wantCode(t, err, apperr.OfferGone)
	page, err := c.wallet.Interaction(ctx, token)
	if err != nil || page.Gone != wallet.GoneOfferExpired {
		t.Fatalf("the page of an expired offer: %+v %v", page.Gone, err)
	}
}

// A c_nonce is spent by the credential request that presents it: another offer's request with
// the same nonce is refused, and that offer stays claimable with a fresh one.
func TestANonceIsSpentOnce(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	issuer := c.wallet.IssuerID(c.w.Account)
	token := func() string {
		t.Helper()
		_, offer := c.offer(t)
		return c.accessToken(t, offer)
	}
	first, second := token(), token()
	_, key, _ := ed25519.GenerateKey(nil)
	request := func(nonce string) wallet.CredentialRequest {
		var r wallet.CredentialRequest
		_ = json.Unmarshal([]byte(`{"credential_configuration_id":"`+wallet.ConfigLDP+`","proofs":{"jwt":["`+
			proofFor(t, key, issuer, nonce, c.w.Clock.Now())+`"]}}`), &r)
		return r
	}
	nonce, _ := c.wallet.Nonce(ctx, c.w.Account)
	if _, err := c.wallet.IssueCredential(ctx, c.w.Account, first, request(nonce)); err != nil {
		t.Fatal(err)
	}
	_, err := c.wallet.IssueCredential(ctx, c.w.Account, second, request(nonce))
	wantOAuth(t, err, "invalid_nonce")
	fresh, _ := c.wallet.Nonce(ctx, c.w.Account)
	if _, err := c.wallet.IssueCredential(ctx, c.w.Account, second, request(fresh)); err != nil {
		t.Fatalf("the second offer, with a fresh nonce: %v", err)
	}
}
