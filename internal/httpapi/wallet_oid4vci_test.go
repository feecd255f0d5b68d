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

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/wallet"
)

// The OpenID4VCI steps, one by one through the contract-validating client (the Node wallets
// of TestWalletsClaimOffersOverBothProtocols talk to the server directly, so their answers are
// not checked against the contract there): the issuer's discovery documents at both of their
// addresses, the credential offer, the token for its pre-authorized code, a nonce, and the
// credential for a wallet's did:jwk proof; then the same code, a foreign issuer and a token
// spent again are refused.
func TestOpenID4VCIStepByStepAnswersAsTheContractSays(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithSiteAtServer())
	cert := s.issue(t, "Ada", "Lovelace", nil)
	var o walletOfferBody
	s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil).JSON(t, &o)
	offerURI, err := url.Parse(strings.TrimPrefix(o.Data.WalletURL, "openid-credential-offer://?credential_offer_uri="))
	if err != nil {
		t.Fatal(err)
	}
	if u, err := url.QueryUnescape(offerURI.String()); err == nil {
		offerURI, _ = url.Parse(u)
	}
	public := s.env.Client
	issuer := "/issuers/" + s.acct.ID.String()
	stranger := "/issuers/" + uuid.NewString()

	for _, path := range []string{"/.well-known/openid-credential-issuer" + issuer, issuer + "/.well-known/openid-credential-issuer",
		"/.well-known/oauth-authorization-server" + issuer, issuer + "/.well-known/oauth-authorization-server",
		issuer + "/.well-known/openid-configuration"} {
		if res := public.Get(path); res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
		}
	}

	var offer struct {
		CredentialIssuer string `json:"credential_issuer"`
		Grants           map[string]struct {
			Code string `json:"pre-authorized_code"`
		}
	}
	res := public.Get(offerURI.RequestURI())
	res.JSON(t, &offer)
	code := offer.Grants[wallet.PreAuthorizedGrant].Code
	require.Equal(t, http.StatusOK, res.StatusCode, "offer: status (body %s)", res.Body)
	require.NotEmpty(t, code, "offer: code")
	require.True(t, strings.HasSuffix(offer.CredentialIssuer, issuer), "offer: %q should end with %q", offer.CredentialIssuer, issuer)

	form := func(path string, v url.Values) *contract.Response {
		req := public.Request(http.MethodPost, path, []byte(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return public.Do(req)
	}
	grant := url.Values{"grant_type": {wallet.PreAuthorizedGrant}, "pre-authorized_code": {code}}
	if res := form(stranger+"/token", grant); res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusNotFound {
		t.Errorf("another issuer's token endpoint: %d %s", res.StatusCode, res.Body)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	res = form(issuer+"/token", grant)
	res.JSON(t, &tok)
	require.Equal(t, http.StatusOK, res.StatusCode, "token: status (body %s)", res.Body)
	require.NotEmpty(t, tok.AccessToken, "token: tok.AccessToken")
	res = form(issuer+"/token", grant)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode, "the code again: status (body %s)", res.Body)
	assert.Contains(t, string(res.Body), "invalid_grant", "the code again: body")

	var nonce struct {
		CNonce string `json:"c_nonce"`
	}
	res = public.Post(issuer+"/nonce", nil)
	res.JSON(t, &nonce)
	require.Equal(t, http.StatusOK, res.StatusCode, "nonce: status (body %s)", res.Body)
	require.NotEmpty(t, nonce.CNonce, "nonce: nonce.CNonce")

	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	jwk, _ := json.Marshal(map[string]string{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(pub)})
	did := "did:jwk:" + base64.RawURLEncoding.EncodeToString(jwk)
	hdr := jws.NewHeaders()
	_ = hdr.Set("typ", wallet.ProofJWTType)
	_ = hdr.Set("kid", did+"#0")
	claims, _ := json.Marshal(map[string]any{"aud": offer.CredentialIssuer, "iat": time.Now().Unix(), "nonce": nonce.CNonce})
	proof, err := jws.Sign(claims, jws.WithKey(jwa.EdDSA(), key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	credential := func(path, token string) *contract.Response {
		req := public.Request(http.MethodPost, path, map[string]any{"credential_configuration_id": "OpenBadgeCredential_jwt_vc_json",
			"proofs": map[string]any{"jwt": []string{string(proof)}}})
		req.Header.Set("Authorization", "Bearer "+token)
		return public.Do(req)
	}
	res = credential(stranger+"/credential", tok.AccessToken)
	assert.GreaterOrEqual(t, res.StatusCode, 400, "another issuer's credential endpoint: status, want 4xx (body %s)", res.Body)
	assert.Less(t, res.StatusCode, 500, "another issuer's credential endpoint: status, want 4xx (body %s)", res.Body)
	var issued struct {
		Credentials []struct{ Credential string }
	}
	res = credential(issuer+"/credential", tok.AccessToken)
	res.JSON(t, &issued)
	require.Equal(t, http.StatusOK, res.StatusCode, "credential: status (body %s)", res.Body)
	require.Len(t, issued.Credentials, 1, "credential: issued.Credentials")
	require.Equal(t, 2, strings.Count(issued.Credentials[0].Credential, "."), "credential: dots in the JWT")
	if res := credential(issuer+"/credential", tok.AccessToken); res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the token again: %d %s", res.StatusCode, res.Body)
	}
}
