package wallet_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/mr-tron/base58"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/vc"
	"github.com/certhub/credentiald/internal/wallet"
)

const issuer = "https://certs.example.org/issuers/0193a1b2-0000-7000-8000-000000000001"

func didKeyEd25519(pub ed25519.PublicKey) string { return "did:key:" + vc.Multibase(pub) }

func didKeyP256(pub *ecdsa.PublicKey) string {
	raw, err := pub.Bytes() // 0x04 || X || Y
	if err != nil {
		panic(err)
	}
	prefix := byte(2 + raw[64]&1) // compressed: 0x02 or 0x03 by the parity of Y, then X
	b := append([]byte{0x80, 0x24, prefix}, raw[1:33]...)
	return "did:key:z" + base58.Encode(b)
}

func TestDIDKeysAndDIDJWKsResolveToTheirKeys(t *testing.T) {
	t.Parallel()
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ed := didKeyEd25519(edPub)
	if did, k, err := wallet.ResolveKey(ed + "#" + strings.TrimPrefix(ed, "did:key:")); err != nil || did != ed || !edPub.Equal(k) {
		t.Fatalf("Ed25519 did:key: %v %v", did, err)
	}
	p := didKeyP256(&p256.PublicKey)
	if !strings.HasPrefix(p, "did:key:zDn") {
		t.Fatalf("a P-256 did:key starts zDn, got %s", p)
	}
	if _, k, err := wallet.ResolveKey(p); err != nil || !p256.PublicKey.Equal(k) {
		t.Fatalf("P-256 did:key: %v", err)
	}
	jk, _ := jwk.Import(edPub)
	dj, err := wallet.DIDJWK(jk)
	if err != nil {
		t.Fatal(err)
	}
	if did, k, err := wallet.ResolveKey(dj + "#0"); err != nil || did != dj || !edPub.Equal(k) {
		t.Fatalf("did:jwk: %v %v", did, err)
	}
	for _, bad := range []string{
		"did:web:example.org",
		"did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#other", // a fragment of another key
		"did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme",      // secp256k1
		"did:key:notbase58",
		"did:key:z6Mk" + strings.Repeat("z", 1000), // refused before base58 decodes it
		dj + "#1",
		"did:jwk:" + strings.Repeat("A", 10),
	} {
		if _, _, err := wallet.ResolveKey(bad); !errors.Is(err, wallet.ErrUnsupportedDID) {
			t.Errorf("%s: %v, want ErrUnsupportedDID", bad, err)
		}
	}
}

// proofJWT signs an OpenID4VCI key proof as a wallet does.
func proofJWT(t testing.TB, alg jwa.SignatureAlgorithm, key any, header map[string]any, claims map[string]any) string {
	t.Helper()
	hdr := jws.NewHeaders()
	for k, v := range header {
		if err := hdr.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	payload, _ := json.Marshal(claims)
	tok, err := jws.Sign(payload, jws.WithKey(alg, key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

func TestAProofJWTNamesItsHolderAndNonce(t *testing.T) {
	t.Parallel()
	now := time.Now()
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	ed := didKeyEd25519(edPub)
	kid := ed + "#" + strings.TrimPrefix(ed, "did:key:")
	claims := map[string]any{"aud": issuer, "iat": now.Unix(), "nonce": "n-1"}
	got, err := wallet.VerifyProofJWT(proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "kid": kid}, claims), issuer, now)
	if err != nil || got.Holder != ed || got.Nonce != "n-1" {
		t.Fatalf("EdDSA did:key proof: %+v %v", got, err)
	}
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pubJWK, _ := jwk.Import(&p256.PublicKey)
	got, err = wallet.VerifyProofJWT(proofJWT(t, jwa.ES256(), p256, map[string]any{"typ": wallet.ProofJWTType, "jwk": pubJWK}, claims), issuer, now)
	if err != nil || !strings.HasPrefix(got.Holder, "did:jwk:") {
		t.Fatalf("ES256 jwk proof: %+v %v", got, err)
	}
	if _, k, err := wallet.ResolveKey(got.Holder); err != nil || !p256.PublicKey.Equal(k) {
		t.Fatalf("the holder's did:jwk is not the proof's key: %v", err)
	}
}

func TestProofJWTsThatProveNothingAreRefused(t *testing.T) {
	t.Parallel()
	now := time.Now()
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	ed := didKeyEd25519(edPub)
	kid := ed + "#" + strings.TrimPrefix(ed, "did:key:")
	good := map[string]any{"typ": wallet.ProofJWTType, "kid": kid}
	claims := func(change map[string]any) map[string]any {
		c := map[string]any{"aud": issuer, "iat": now.Unix(), "nonce": "n"}
		for k, v := range change {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	edJWK, _ := jwk.Import(edPub)
	cases := map[string]string{
		"another audience":     proofJWT(t, jwa.EdDSA(), edKey, good, claims(map[string]any{"aud": "https://evil.example/issuers/x"})),
		"no iat":               proofJWT(t, jwa.EdDSA(), edKey, good, claims(map[string]any{"iat": nil})),
		"an hour old":          proofJWT(t, jwa.EdDSA(), edKey, good, claims(map[string]any{"iat": now.Add(-time.Hour).Unix()})),
		"another typ":          proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": "JWT", "kid": kid}, claims(nil)),
		"signed by another":    proofJWT(t, jwa.EdDSA(), otherKey, good, claims(nil)),
		"kid and jwk":          proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "kid": kid, "jwk": edJWK}, claims(nil)),
		"no key named":         proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType}, claims(nil)),
		"a did:web":            proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "kid": "did:web:evil.example#k"}, claims(nil)),
		"not a JWS":            "a.b",
		"unsigned (alg none)":  unsigned(map[string]any{"alg": "none", "typ": wallet.ProofJWTType, "kid": kid}, claims(nil)),
		"a token of two parts": strings.Join(strings.Split(proofJWT(t, jwa.EdDSA(), edKey, good, claims(nil)), ".")[:2], "."),
	}
	for name, tok := range cases {
		if _, err := wallet.VerifyProofJWT(tok, issuer, now); !errors.Is(err, wallet.ErrInvalidProof) {
			t.Errorf("%s: %v, want ErrInvalidProof", name, err)
		}
	}
}

// unsigned is a JWS of alg none: its header and claims, and no signature.
func unsigned(header, claims map[string]any) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

// A proof larger than any key proof is refused before it is parsed: a did:key of hundreds of
// kilobytes in its kid would otherwise cost seconds of base58 decoding.
func TestAnOversizedProofJWTIsRefusedUnread(t *testing.T) {
	t.Parallel()
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Now()
	tok := proofJWT(t, jwa.EdDSA(), edKey, map[string]any{"typ": wallet.ProofJWTType, "kid": "did:key:z6Mk" + strings.Repeat("z", wallet.MaxProofJWTBytes)},
		map[string]any{"aud": issuer, "iat": now.Unix(), "nonce": "n"})
	_, err := wallet.VerifyProofJWT(tok, issuer, now)
	if !errors.Is(err, wallet.ErrInvalidProof) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("got %v, want ErrInvalidProof for its size", err)
	}
}

// lcwPresentation has the Learner Credential Wallet's own libraries make a DID authentication
// (test/vc-verify/didauth.mjs), with the VC context of version (1 or 2).
func lcwPresentation(t *testing.T, seed []byte, challenge, domain string, version int) []byte {
	t.Helper()
	dir := "../../test/vc-verify"
	node := testkit.Node(t, dir, "@digitalcredentials/vc")
	in, _ := json.Marshal(map[string]any{"seed": hex.EncodeToString(seed), "challenge": challenge, "domain": domain, "version": version})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "didauth.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("didauth.mjs: %v\n%s", err, stderr.String())
	}
	return out
}

func TestTheLearnerCredentialWalletsDIDAuthenticationVerifies(t *testing.T) {
	t.Parallel()
	seed := bytes.Repeat([]byte{7}, 32)
	want := didKeyEd25519(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	for _, version := range []int{1, 2} {
		vp := lcwPresentation(t, seed, "challenge-1", "certs.example.org:8443", version)
		check := vc.AuthenticationCheck{Domain: "certs.example.org:8443", Resolve: wallet.Ed25519Key}
		auth, err := vc.VerifyDIDAuthentication(vp, check)
		if err != nil || auth.Holder != want || auth.Challenge != "challenge-1" {
			t.Fatalf("VC %d.0 presentation: %+v, %v; want holder %s, challenge-1", version, auth, err, want)
		}
		anotherDomain := vc.AuthenticationCheck{Domain: "evil.example", Resolve: wallet.Ed25519Key}
		if _, err := vc.VerifyDIDAuthentication(vp, anotherDomain); !errors.Is(err, vc.ErrInvalidPresentation) {
			t.Errorf("VC %d.0, another domain: %v, want ErrInvalidPresentation", version, err)
		}
		var m map[string]any
		_ = json.Unmarshal(vp, &m)
		m["holder"] = didKeyEd25519(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, 32)).Public().(ed25519.PublicKey))
		tampered, _ := json.Marshal(m)
		if _, err := vc.VerifyDIDAuthentication(tampered, check); !errors.Is(err, vc.ErrInvalidPresentation) {
			t.Errorf("VC %d.0, another holder: %v, want ErrInvalidPresentation", version, err)
		}
		m["holder"] = want
		m["id"] = "urn:uuid:0193a1b2-0000-7000-8000-000000000009"
		tampered, _ = json.Marshal(m)
		if _, err := vc.VerifyDIDAuthentication(tampered, check); !errors.Is(err, vc.ErrInvalidPresentation) {
			t.Errorf("VC %d.0, a member added after signing: %v, want ErrInvalidPresentation", version, err)
		}
	}
}
