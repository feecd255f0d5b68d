package httpapi_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/wallet"
)

// What a hostile or careless wallet sends the OpenID4VCI endpoints, each answered as the
// contract says: the token endpoint trades no code of an offer gone and reads no grant
// parameter from the URL, the credential endpoint takes no key proof that leaks its private
// key, that is not a compact JWS, or that names a critical extension.

// oid4vciOffer is an offer of a freshly issued certificate, with the OpenID4VCI steps of its
// claim through the contract-validating client.
type oid4vciOffer struct {
	s      issuing
	cert   certificateBody
	offer  walletOffer
	issuer string // the token, nonce and credential endpoints' path prefix
}

func newOID4VCIOffer(t *testing.T, opts ...testkit.Option) oid4vciOffer {
	t.Helper()
	s := newIssuing(t, opts...)
	o := oid4vciOffer{s: s, cert: s.issue(t, "Ada", "Lovelace", nil), issuer: "/issuers/" + s.acct.ID.String()}
	var body walletOfferBody
	res := s.acct.Client.Post("/api/v1/certificates/"+o.cert.Data.ID+"/wallet-offers", nil)
	res.JSON(t, &body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("offer: %d %s", res.StatusCode, res.Body)
	}
	o.offer = body.Data
	return o
}

// code is a fresh pre-authorized code from the offer document, with the issuer identifier the
// document names.
func (o oid4vciOffer) code(t *testing.T) (code, issuerID string) {
	t.Helper()
	uri, err := url.Parse(o.offer.CredentialOfferURI)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		CredentialIssuer string `json:"credential_issuer"`
		Grants           map[string]struct {
			Code string `json:"pre-authorized_code"`
		}
	}
	res := o.s.env.Client.Get(uri.Path)
	res.JSON(t, &doc)
	code = doc.Grants[wallet.PreAuthorizedGrant].Code
	require.Equal(t, http.StatusOK, res.StatusCode, "offer document: status (body %s)", res.Body)
	require.NotEmpty(t, code, "offer document: code")
	return code, doc.CredentialIssuer
}

// token posts a token request: form as the form-encoded body, query after the path.
func (o oid4vciOffer) token(t *testing.T, query string, form url.Values) *contract.Response {
	t.Helper()
	req := o.s.env.Client.Request(http.MethodPost, o.issuer+"/token"+query, []byte(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return o.s.env.Client.Do(req)
}

func grantOf(code string) url.Values {
	return url.Values{"grant_type": {wallet.PreAuthorizedGrant}, "pre-authorized_code": {code}}
}

// accessToken trades code for an access token, which must succeed.
func (o oid4vciOffer) accessToken(t *testing.T, code string) string {
	t.Helper()
	res := o.token(t, "", grantOf(code))
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	res.JSON(t, &tok)
	require.Equal(t, http.StatusOK, res.StatusCode, "token: status (body %s)", res.Body)
	require.NotEmpty(t, tok.AccessToken, "token: tok.AccessToken")
	return tok.AccessToken
}

func (o oid4vciOffer) nonce(t *testing.T) string {
	t.Helper()
	var n struct {
		CNonce string `json:"c_nonce"`
	}
	res := o.s.env.Client.Post(o.issuer+"/nonce", nil)
	res.JSON(t, &n)
	require.Equal(t, http.StatusOK, res.StatusCode, "nonce: status (body %s)", res.Body)
	require.NotEmpty(t, n.CNonce, "nonce: n.CNonce")
	return n.CNonce
}

// credential asks for the jwt_vc_json credential with one proof.
func (o oid4vciOffer) credential(t *testing.T, accessToken, proof string) *contract.Response {
	t.Helper()
	req := o.s.env.Client.Request(http.MethodPost, o.issuer+"/credential", map[string]any{
		"credential_configuration_id": wallet.ConfigJWT, "proofs": map[string]any{"jwt": []string{proof}}})
	req.Header.Set("Authorization", "Bearer "+accessToken)
	return o.s.env.Client.Do(req)
}

// claim runs the whole claim of the offer with code, for a wallet's new Ed25519 key.
func (o oid4vciOffer) claim(t *testing.T, code, issuerID string) {
	t.Helper()
	tok := o.accessToken(t, code)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	proof := signedProof(t, key, map[string]any{"kid": didJWKOf(key) + "#0"}, issuerID, o.nonce(t))
	if res := o.credential(t, tok, proof); res.StatusCode != http.StatusOK {
		t.Fatalf("credential: %d %s", res.StatusCode, res.Body)
	}
}

func didJWKOf(key ed25519.PrivateKey) string {
	pub, _ := json.Marshal(map[string]string{"kty": "OKP", "crv": "Ed25519",
		"x": base64.RawURLEncoding.EncodeToString(key.Public().(ed25519.PublicKey))})
	return "did:jwk:" + base64.RawURLEncoding.EncodeToString(pub)
}

// signedProof is a key proof in the compact serialization, signed by key, with header's
// members beside its typ.
func signedProof(t *testing.T, key ed25519.PrivateKey, header map[string]any, aud, nonce string) string {
	t.Helper()
	hdr := jws.NewHeaders()
	_ = hdr.Set("typ", wallet.ProofJWTType)
	for k, v := range header {
		if err := hdr.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	claims, _ := json.Marshal(map[string]any{"aud": aud, "iat": time.Now().Unix(), "nonce": nonce})
	proof, err := jws.Sign(claims, jws.WithKey(jwa.EdDSA(), key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(proof)
}

// oauthError decodes an OAuth error object (RFC 6749 5.2).
func oauthError(t *testing.T, res *contract.Response) (code, description string) {
	t.Helper()
	var e struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	res.JSON(t, &e)
	return e.Error, e.ErrorDescription
}

// wantOAuthError fails unless res is a 400 OAuth error object of code, not to be cached, whose
// description contains says (in any letter case).
func wantOAuthError(t *testing.T, what string, res *contract.Response, code, says string) {
	t.Helper()
	got, description := oauthError(t, res)
	if !assert.Equal(t, http.StatusBadRequest, res.StatusCode, "%s: status (body %s)", what, res.Body) ||
		!assert.Equal(t, code, got, "%s: error", what) {
		return
	}
	if !strings.Contains(strings.ToLower(description), strings.ToLower(says)) {
		t.Errorf("%s: the description %q does not say %q", what, description, says)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", what, res.Header.Get("Cache-Control"))
	}
}

// A pre-authorized code dies with its offer: fetched while the offer was live, it is refused
// with invalid_grant once the offer was claimed (with another code of the same offer), its
// certificate revoked, or the offer expired; and it stays unspent by the refusal.
func TestAPreAuthorizedCodeOfAnOfferGoneIsAnInvalidGrant(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, says string
		goneBy     func(t *testing.T, o oid4vciOffer)
	}{
		{"claimed", "claimed", func(t *testing.T, o oid4vciOffer) {
			code, issuerID := o.code(t)
			o.claim(t, code, issuerID)
		}},
		{"revoked", "revoked", func(t *testing.T, o oid4vciOffer) {
			res := o.s.acct.Client.Post("/api/v1/certificates/"+o.cert.Data.ID+"/revoke", map[string]any{"reasonCode": "superseded"})
			if res.StatusCode != http.StatusOK {
				t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
			}
		}},
		{"expired", "expired", func(t *testing.T, o oid4vciOffer) {
			testkit.SQL(t, o.s.env, "UPDATE wallet_offers SET expires_at = now() - interval '1 minute' WHERE id = $1", o.offer.ID)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := newOID4VCIOffer(t)
			code, _ := o.code(t)
			c.goneBy(t, o)
			wantOAuthError(t, "the code of an offer "+c.name, o.token(t, "", grantOf(code)), "invalid_grant", c.says)
		})
	}
}

// The token request's parameters are read from its form-encoded body only (RFC 6749 3.2 and
// 4.1.3): a request that carries any of them in its URL's query is refused with
// invalid_request, whether the body has them too or not, and its code is not spent; other
// query parameters (a shared link's tracking ones) are ignored.
func TestTheTokenEndpointRefusesGrantParametersInTheQuery(t *testing.T) {
	t.Parallel()
	o := newOID4VCIOffer(t)
	code, _ := o.code(t)
	grant := grantOf(code)
	for _, c := range []struct {
		name, query string
		form        url.Values
	}{
		{"the whole grant in the query, none in the body", "?" + grant.Encode(), url.Values{}},
		{"the code in the query, the grant type in the body", "?pre-authorized_code=" + url.QueryEscape(code),
			url.Values{"grant_type": {wallet.PreAuthorizedGrant}}},
		{"the grant in both", "?" + grant.Encode(), grant},
		{"the grant type in the query beside a complete body", "?grant_type=" + url.QueryEscape(wallet.PreAuthorizedGrant), grant},
		{"a transaction code in the query", "?tx_code=493536", grant},
	} {
		wantOAuthError(t, c.name, o.token(t, c.query, c.form), "invalid_request", "query")
	}
	// A body that is not a form leaves the query as the only source: still refused.
	req := o.s.env.Client.Request(http.MethodPost, o.issuer+"/token?"+grant.Encode(), []byte("{}"))
	req.Header.Set("Content-Type", "text/plain")
	wantOAuthError(t, "the grant in the query of a text/plain request", o.s.env.Client.Do(req), "invalid_request", "query")

	// The code was never spent: with a tracking parameter in the query, the body's grant passes.
	res := o.token(t, "?utm_source=newsletter&utm_medium=email", grant)
	require.Equal(t, http.StatusOK, res.StatusCode, "the grant in the body beside tracking parameters: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), "access_token", "the grant in the body beside tracking parameters: body")
}

// A key proof whose jwk header carries the private key, a proof in a JWS JSON serialization
// (general or flattened), and one that names a critical extension are refused with
// invalid_proof saying why; a refusal spends neither the access token nor the nonce, so a sound
// proof with them claims the offer afterwards.
func TestTheCredentialEndpointRefusesHostileKeyProofs(t *testing.T) {
	t.Parallel()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	private, err := jwk.Import(key)
	if err != nil {
		t.Fatal(err)
	}
	kid := map[string]any{"kid": didJWKOf(key) + "#0"}
	for _, c := range []struct {
		name, says string
		proof      func(compact func(header map[string]any) string) string
	}{
		{"a jwk header with the private key", "private", func(compact func(map[string]any) string) string {
			return compact(map[string]any{"jwk": private})
		}},
		{"the flattened JSON serialization", "compact", func(compact func(map[string]any) string) string {
			return flattened(t, compact(kid))
		}},
		{"the general JSON serialization", "compact", func(compact func(map[string]any) string) string {
			return general(t, compact(kid))
		}},
		{"a critical extension", "crit", func(compact func(map[string]any) string) string {
			return compact(map[string]any{"kid": kid["kid"], "crit": []string{"urn:example:policy"}, "urn:example:policy": "strict"})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := newOID4VCIOffer(t)
			code, issuerID := o.code(t)
			tok, nonce := o.accessToken(t, code), o.nonce(t)
			compact := func(header map[string]any) string { return signedProof(t, key, header, issuerID, nonce) }
			wantOAuthError(t, c.name, o.credential(t, tok, c.proof(compact)), "invalid_proof", c.says)
			if res := o.credential(t, tok, compact(kid)); res.StatusCode != http.StatusOK {
				t.Fatalf("a sound proof with the same token and nonce after the refusal: %d %s", res.StatusCode, res.Body)
			}
		})
	}
}

// flattened and general rewrite a compact JWS in the JWS JSON serializations (RFC 7515 7.2).
func flattened(t *testing.T, compact string) string {
	t.Helper()
	p := strings.Split(compact, ".")
	b, _ := json.Marshal(map[string]string{"protected": p[0], "payload": p[1], "signature": p[2]})
	return string(b)
}

func general(t *testing.T, compact string) string {
	t.Helper()
	p := strings.Split(compact, ".")
	b, _ := json.Marshal(map[string]any{"payload": p[1], "signatures": []map[string]string{{"protected": p[0], "signature": p[2]}}})
	return string(b)
}
