package vc

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

func TestJWTIsTheCredentialSecuredAsVCJOSE(t *testing.T) {
	t.Parallel()
	old, current := testSigner(t, 1), testSigner(t, 2)
	cred := testCredential(t, current, "Ana")
	token, err := current.SignJWT(cred, testTime)
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
	// The payload is the credential, member for member and in its order, followed by the
	// registered claims, each the credential's own value.
	if !bytes.HasPrefix(payload, unsigned[:len(unsigned)-1]) {
		t.Fatalf("payload does not start with the credential:\n%s", payload)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	wantClaims := map[string]any{"iss": current.DID(), "jti": cred.ID, "nbf": float64(testTime.Unix()),
		"exp": float64(testTime.AddDate(2, 0, 0).Unix()), "iat": float64(testTime.Unix())}
	for k, v := range wantClaims {
		if claims[k] != v {
			t.Errorf("claim %s = %v, want %v", k, claims[k], v)
		}
	}
	if _, has := claims["sub"]; has {
		t.Error("claim sub present for a credential bound to no holder")
	}

	set, err := NewJWKSet(current.DID(), []ed25519.PublicKey{old.PublicKey(), current.PublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyJWT(token, set)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("VerifyJWT: %v", err)
	}
	// Signed before a rotation, still verifies against the set that keeps the old key.
	oldToken, _ := old.SignJWT(testCredential(t, old, "Ana"), testTime)
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
	if _, err := s.SignJWT(c, testTime); !errors.Is(err, ErrNotCanonicalizable) {
		t.Errorf("escape character in the name: %v", err)
	}
	if _, err := s.SignJWT([]byte(`{"@context":["https://www.w3.org/ns/credentials/v2"],"name":"x","proof":{}}`), testTime); err == nil {
		t.Error("a payload with an embedded proof: signed")
	}
}

// exp is validUntil and sub the holder's DID once the credential is bound to one; a credential
// whose own members would collide with a claim is refused rather than silently rewritten.
func TestJWTClaimsFollowTheCredential(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	c := testCredential(t, s, "Ana")
	until := testTime.Add(365 * 24 * time.Hour).Truncate(time.Second)
	c.ValidUntil = until.UTC().Format(time.RFC3339)
	c.CredentialSubject.ID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
	token, err := s.SignJWT(c, testTime)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if claims["exp"] != float64(until.Unix()) || claims["sub"] != c.CredentialSubject.ID {
		t.Errorf("exp %v sub %v, want %d %s", claims["exp"], claims["sub"], until.Unix(), c.CredentialSubject.ID)
	}
	m := toMap(t, testCredential(t, s, "Ana"))
	m["jti"] = "urn:uuid:other"
	if _, err := s.SignJWT(m, testTime); err == nil || !strings.Contains(err.Error(), "jti") {
		t.Errorf("a credential with its own jti: %v", err)
	}
}
