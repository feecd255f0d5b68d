package wallet_test

import (
	"crypto/ed25519"
	"encoding/json"
	"testing"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/wallet"
)

// BenchmarkClaim is what a wallet claim costs the server, beside signing the credential once
// (what credential.json costs when its cache misses), in the same run: report the ratio.
// The OpenID4VCI claim runs every server step (offer, offer document, code, nonce, the proof's
// verification, the bound credential signed, the claim's transaction); the holder's own work
// (signing its proof) is outside the timer. The exchange's extra cost is the DID
// authentication's verification: one RDFC-1.0 canonicalization of a presentation of a few
// hundred bytes, about what BenchmarkVerifyDataIntegrity in internal/vc measures.
func BenchmarkClaim(b *testing.B) {
	c := newClaiming(b)
	ctx := b.Context()
	issuer := c.wallet.IssuerID(c.w.Account)
	_, key, _ := ed25519.GenerateKey(nil)
	b.Run("sign credential.json (baseline)", func(b *testing.B) {
		ref := credentials.Ref{Kind: store.KindCertificate, ID: c.cert.ID, AccountID: c.w.Account, VerificationCode: c.cert.VerificationCode}
		for b.Loop() {
			if _, err := c.creds.Bound(ctx, ref, "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", credentials.FormDataIntegrity); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OpenID4VCI ldp_vc claim", func(b *testing.B) {
		for b.Loop() {
			o, err := c.wallet.Create(ctx, c.subject)
			if err != nil {
				b.Fatal(err)
			}
			token := tokenOf(o)
			doc, err := c.wallet.OfferDocument(ctx, c.w.Account, token)
			if err != nil {
				b.Fatal(err)
			}
			code := doc["grants"].(map[string]any)[wallet.PreAuthorizedGrant].(map[string]any)["pre-authorized_code"].(string)
			tok, err := c.wallet.ExchangeCode(ctx, c.w.Account, wallet.PreAuthorizedGrant, code)
			if err != nil {
				b.Fatal(err)
			}
			nonce, err := c.wallet.Nonce(ctx, c.w.Account)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			var r wallet.CredentialRequest
			_ = json.Unmarshal([]byte(`{"credential_configuration_id":"`+wallet.ConfigLDP+`","proofs":{"jwt":["`+
				proofFor(b, key, issuer, nonce, c.w.Clock.Now())+`"]}}`), &r)
			b.StartTimer()
			if _, err := c.wallet.IssueCredential(ctx, c.w.Account, tok.AccessToken, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func tokenOf(o wallet.Offer) string {
	u := o.InteractionURL
	return u[len(site+"/interactions/") : len(u)-len("?iuv=1")]
}
