package wallet_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/certhub/credentiald/internal/wallet"
)

// Proofs that a careless or hostile wallet sends, each signed as it should be, refused with
// ErrInvalidProof and words that say what is wrong: a jwk header that carries private key
// material (OpenID4VCI 1.0, F.4), a JWS JSON serialization (a JWT is compact, RFC 7519 1), and
// any crit, since this issuer understands no extension (RFC 7515 4.1.11).
func TestProofJWTsThatBreakTheJOSERulesAreRefusedSayingWhy(t *testing.T) {
	t.Parallel()
	now := time.Now()
	claims := map[string]any{"aud": issuer, "iat": now.Unix(), "nonce": "n"}
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edPrivate, _ := jwk.Import(edKey)
	p256Private, _ := jwk.Import(p256)
	secret, _ := jwk.Import([]byte(strings.Repeat("s", 32)))
	ed := didKeyEd25519(edPub)
	kid := ed + "#" + strings.TrimPrefix(ed, "did:key:")
	good := map[string]any{"typ": wallet.ProofJWTType, "kid": kid}
	compact := proofJWT(t, jwa.EdDSA(), edKey, good, claims)
	parts := strings.Split(compact, ".")
	flattened, _ := json.Marshal(map[string]string{"protected": parts[0], "payload": parts[1], "signature": parts[2]})
	general, _ := json.Marshal(map[string]any{"payload": parts[1], "signatures": []map[string]string{{"protected": parts[0], "signature": parts[2]}}})
	payload, _ := json.Marshal(claims)
	hdr := jws.NewHeaders()
	for k, v := range good {
		_ = hdr.Set(k, v)
	}
	signedJSON, err := jws.Sign(payload, jws.WithJSON(), jws.WithKey(jwa.EdDSA(), edKey, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	with := func(extra map[string]any) map[string]any {
		h := map[string]any{"typ": wallet.ProofJWTType, "kid": kid}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}

	for _, c := range []struct{ name, proof, says string }{
		{"an Ed25519 jwk with its private key", proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "jwk": edPrivate}, claims),
			"private key material (d)"},
		{"a P-256 jwk with its private key", proofJWT(t, jwa.ES256(), p256, map[string]any{"typ": wallet.ProofJWTType, "jwk": p256Private}, claims),
			"private key material (d)"},
		{"a symmetric jwk", proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "jwk": secret}, claims),
			"private key material (k)"},
		{"the flattened JSON serialization", string(flattened), "JSON serialization"},
		{"the general JSON serialization", string(general), "JSON serialization"},
		{"the library's JSON serialization", string(signedJSON), "JSON serialization"},
		{"a JSON serialization after white space", "\n " + string(flattened), "JSON serialization"},
		{"an unknown critical extension", proofJWT(t, jwa.EdDSA(), edKey, with(map[string]any{"crit": []string{"urn:example:policy"},
			"urn:example:policy": "strict"}), claims), "critical extensions"},
		{"b64 declared critical", proofJWT(t, jwa.EdDSA(), edKey, with(map[string]any{"crit": []string{"b64"}, "b64": true}), claims),
			"critical extensions"},
		{"an empty crit", unsigned(with(map[string]any{"alg": "EdDSA", "crit": []string{}}), claims) + "c2ln", "critical extensions"},
	} {
		_, err := wallet.VerifyProofJWT(c.proof, issuer, now)
		if !errors.Is(err, wallet.ErrInvalidProof) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want ErrInvalidProof saying %q", c.name, err, c.says)
		}
	}
}

// The refusals read the header as it was sent: a proof whose jwk header is the public key, with
// optional members beside it, is the holder's did:jwk as before.
func TestAPublicJWKWithOptionalMembersIsStillAProof(t *testing.T) {
	t.Parallel()
	now := time.Now()
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	public, _ := jwk.Import(edPub)
	_ = public.Set(jwk.KeyIDKey, "key-1")
	_ = public.Set(jwk.KeyUsageKey, "sig")
	got, err := wallet.VerifyProofJWT(proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "jwk": public},
		map[string]any{"aud": issuer, "iat": now.Unix(), "nonce": "n"}), issuer, now)
	if err != nil {
		t.Fatal(err)
	}
	encoded := strings.TrimPrefix(got.Holder, "did:jwk:")
	raw, _ := base64.RawURLEncoding.DecodeString(encoded)
	if !strings.HasPrefix(got.Holder, "did:jwk:") || strings.Contains(string(raw), `"d"`) || strings.Contains(string(raw), "key-1") {
		t.Fatalf("holder %s (%s)", got.Holder, raw)
	}
}
