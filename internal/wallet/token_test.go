package wallet_test

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/wallet"
)

// preAuthorizedCode is a fresh code from the offer document of the offer of token.
func (c claiming) preAuthorizedCode(t *testing.T, token string) string {
	t.Helper()
	doc, err := c.wallet.OfferDocument(t.Context(), c.w.Account, token)
	if err != nil {
		t.Fatal(err)
	}
	return doc["grants"].(map[string]any)[wallet.PreAuthorizedGrant].(map[string]any)["pre-authorized_code"].(string)
}

// A pre-authorized code fetched while its offer was live dies with the offer (RFC 6749 5.2:
// invalid_grant for a grant that is "invalid, expired, revoked"): once the offer is claimed
// (with another code of it), expired, or its credential revoked or expired, the code is an
// invalid_grant whose description says why, and the refusal leaves it unspent.
func TestACodeOfAnOfferGoneIsAnInvalidGrant(t *testing.T) {
	t.Parallel()
	for _, gone := range []struct {
		name, says string
		by         func(t *testing.T, c claiming, offer wallet.Offer, token string)
	}{
		{"claimed", "claimed already", func(t *testing.T, c claiming, _ wallet.Offer, token string) {
			tok := c.accessToken(t, token)
			_, key, _ := ed25519.GenerateKey(nil)
			nonce, err := c.wallet.Nonce(t.Context(), c.w.Account)
			if err != nil {
				t.Fatal(err)
			}
			var r wallet.CredentialRequest
			_ = json.Unmarshal([]byte(`{"credential_configuration_id":"`+wallet.ConfigLDP+`","proofs":{"jwt":["`+
				proofFor(t, key, c.wallet.IssuerID(c.w.Account), nonce, c.w.Clock.Now())+`"]}}`), &r)
			if _, err := c.wallet.IssueCredential(t.Context(), c.w.Account, tok, r); err != nil {
				t.Fatal(err)
			}
		}},
		{"revoked", "revoked", func(t *testing.T, c claiming, _ wallet.Offer, _ string) {
			if _, err := c.certs.Revoke(t.Context(), c.w.Account, c.cert.ID, nil, ""); err != nil {
				t.Fatal(err)
			}
		}},
		{"offer expired", "offer expired", func(t *testing.T, c claiming, offer wallet.Offer, _ string) {
			testkit.SQLAt(t, c.w.DBURL, "UPDATE wallet_offers SET expires_at = now() - interval '1 minute' WHERE id = $1", offer.ID)
		}},
		{"credential expired", "credential expired", func(t *testing.T, c claiming, _ wallet.Offer, _ string) {
			testkit.SQLAt(t, c.w.DBURL, "UPDATE certificates SET expires_at = now() - interval '1 minute' WHERE id = $1", c.cert.ID)
		}},
	} {
		t.Run(gone.name, func(t *testing.T) {
			t.Parallel()
			c := newClaiming(t)
			offer, token := c.offer(t)
			code := c.preAuthorizedCode(t, token)
			gone.by(t, c, offer, token)
			_, err := c.wallet.ExchangeCode(t.Context(), c.w.Account, wallet.PreAuthorizedGrant, code)
			wantOAuth(t, err, "invalid_grant")
			wantDescription(t, err, gone.says)
			var spent int
			testkit.QueryRowAt(t, c.w.DBURL, "SELECT count(*) FROM wallet_secrets WHERE kind = 'pre_authorized_code' AND used_at IS NOT NULL AND offer_id = $1",
				[]any{offer.ID}, &spent)
			if want := map[bool]int{true: 1, false: 0}[gone.name == "claimed"]; spent != want {
				t.Fatalf("%d codes of the offer spent, want %d (the claim's own)", spent, want)
			}
		})
	}
}

// A token request's parameters come from its body (RFC 6749 3.2 and 4.1.3): one that carries
// the grant's parameters in its URL's query is an invalid_request naming them, checked before
// the code is looked at, so the code stays unspent; parameters the grant does not define, such
// as a shared link's tracking ones, are ignored, and so are those sent without a value, which
// RFC 6749 3.2 treats as omitted.
func TestATokenRequestWithGrantParametersInItsQueryIsInvalid(t *testing.T) {
	t.Parallel()
	c := newClaiming(t)
	ctx := t.Context()
	_, token := c.offer(t)
	code := c.preAuthorizedCode(t, token)
	body := wallet.TokenRequest{GrantType: wallet.PreAuthorizedGrant, PreAuthorizedCode: code}
	for name, query := range map[string]map[string][]string{
		"the code":                   {"pre-authorized_code": {code}},
		"the grant type":             {"grant_type": {wallet.PreAuthorizedGrant}},
		"a transaction code":         {"tx_code": {"1234"}},
		"a client secret":            {"client_id": {"wallet"}, "client_secret": {"s3cret"}},
		"a value after an empty one": {"grant_type": {"", wallet.PreAuthorizedGrant}},
	} {
		t.Run(name, func(t *testing.T) {
			req := body
			req.Query = query
			_, err := c.wallet.RequestToken(ctx, c.w.Account, req)
			wantOAuth(t, err, "invalid_request")
			wantDescription(t, err, "query")
		})
	}
	req := body
	req.Query = map[string][]string{"utm_source": {"newsletter"}, "fbclid": {"x"}, "grant_type": {""}}
	if tok, err := c.wallet.RequestToken(ctx, c.w.Account, req); err != nil || tok.AccessToken == "" {
		t.Fatalf("the grant in the body beside tracking parameters: %+v %v", tok, err)
	}
}

func wantDescription(t *testing.T, err error, says string) {
	t.Helper()
	var e *wallet.OAuthError
	if !errors.As(err, &e) || !strings.Contains(strings.ToLower(e.Description), strings.ToLower(says)) {
		t.Fatalf("got %v, want a description saying %q", err, says)
	}
}
