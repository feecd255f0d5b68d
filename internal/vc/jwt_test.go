package vc

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

func TestJWTIsTheCredentialSecuredAsVCJOSE(t *testing.T) {
	t.Parallel()
	old, current := testSigner(t, 1), testSigner(t, 2)
	cred := testCredential(t, current, "Ana")
	token, err := current.SignJWT(cred)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWS: %s", token)
	}
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var hdr map[string]any
	if err := json.Unmarshal(hb, &hdr); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"alg": "EdDSA", "kid": current.VerificationMethod, "typ": "vc+jwt", "cty": "vc"}
	if len(hdr) != len(want) {
		t.Fatalf("header %v, want %v", hdr, want)
	}
	for k, v := range want {
		if hdr[k] != v {
			t.Errorf("header %s = %v, want %v", k, hdr[k], v)
		}
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	unsigned, _ := json.Marshal(cred)
	if !bytes.Equal(payload, unsigned) {
		t.Fatalf("payload is not the credential:\n%s", payload)
	}

	set, err := NewJWKSet(current.DID(), []ed25519.PublicKey{old.PublicKey(), current.PublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyJWT(token, set)
	if err != nil || !bytes.Equal(got, unsigned) {
		t.Fatalf("VerifyJWT: %v", err)
	}
	// Signed before a rotation, still verifies against the set that keeps the old key.
	oldToken, _ := old.SignJWT(testCredential(t, old, "Ana"))
	if _, err := VerifyJWT(oldToken, set); err != nil {
		t.Fatalf("old key: %v", err)
	}

	altered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(bytes.Replace(payload, []byte("Ana"), []byte("Eve"), 1)) + "." + parts[2]
	onlyOld, _ := NewJWKSet(current.DID(), []ed25519.PublicKey{old.PublicKey()})
	for name, tc := range map[string]struct {
		token string
		keys  jwk.Set
	}{
		"altered payload": {altered, set},
		"key not listed":  {token, onlyOld},
		"not a JWS":       {"abc", set},
	} {
		if _, err := VerifyJWT(tc.token, tc.keys); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

// The JWK Set lists the DID document's keys under the same ids.
func TestJWKSetListsTheDIDDocumentKeys(t *testing.T) {
	t.Parallel()
	did := testDID(t)
	keys := []ed25519.PublicKey{testKey(1).Public().(ed25519.PublicKey), testKey(2).Public().(ed25519.PublicKey)}

	set, err := NewJWKSet(did, keys)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(set)
	var jwks struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(b, &jwks); err != nil || len(jwks.Keys) != 2 {
		t.Fatalf("JWK Set %s: %v", b, err)
	}
	for i, k := range jwks.Keys {
		if k["kid"] != VerificationMethodID(did, keys[i]) || k["kty"] != "OKP" || k["crv"] != "Ed25519" || k["alg"] != "EdDSA" || k["use"] != "sig" || k["d"] != "" {
			t.Errorf("JWK %d: %v", i, k)
		}
	}
}

// credential.jwt and credential.json are one credential: what the Data Integrity form refuses
// to sign, the JWT refuses too, though a JWS could carry it.
func TestJWTRefusesWhatTheDataIntegrityFormRefuses(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	c := testCredential(t, s, "Ana")
	c.Name = "Certificate\x1b[31m"
	if _, err := s.SignJWT(c); !errors.Is(err, ErrNotCanonicalizable) {
		t.Errorf("escape character in the name: %v", err)
	}
	if _, err := s.SignJWT([]byte(`{"@context":["https://www.w3.org/ns/credentials/v2"],"name":"x","proof":{}}`)); err == nil {
		t.Error("a payload with an embedded proof: signed")
	}
}
