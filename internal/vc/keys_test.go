package vc

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
)

func TestDIDWebNamesTheAccountUnderTheSite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ site, account, want string }{
		{"https://certs.example.org", "acc", "did:web:certs.example.org:issuers:acc"},
		{"https://certs.example.org/", "acc", "did:web:certs.example.org:issuers:acc"},
		{"http://localhost:8080", "acc", "did:web:localhost%3A8080:issuers:acc"},
		{"https://Example.ORG:8443/credentiald/", "acc", "did:web:example.org%3A8443:credentiald:issuers:acc"},
	} {
		got, err := DIDWeb(tc.site, tc.account)
		if err != nil || got != tc.want {
			t.Errorf("DIDWeb(%q, %q) = %q, %v; want %q", tc.site, tc.account, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ site, account string }{
		{"certs.example.org", "acc"}, {"https://certs.example.org", ""}, {"https://certs.example.org", "a:b"},
		{"https://certs.example.org", "a/b"}, {"https://certs.example.org", "a#b"},
	} {
		if got, err := DIDWeb(tc.site, tc.account); err == nil {
			t.Errorf("DIDWeb(%q, %q) = %q, want an error", tc.site, tc.account, got)
		}
	}
}

func TestMultibaseRoundTripsAndRefusesOtherKeys(t *testing.T) {
	t.Parallel()
	pub := testKey(1).Public().(ed25519.PublicKey)
	mb := Multibase(pub)
	if !strings.HasPrefix(mb, "z6Mk") {
		t.Fatalf("Multibase = %s", mb)
	}
	if back, err := ParseMultibase(mb); err != nil || !back.Equal(pub) {
		t.Fatalf("ParseMultibase: %v", err)
	}
	for _, bad := range []string{
		"", "6Mk", mb[1:], "z" + mb[2:], // no prefix, not base58btc, truncated
		"zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme", // a secp256k1 did:key
		"z0OIl",
	} {
		if _, err := ParseMultibase(bad); err == nil {
			t.Errorf("ParseMultibase(%q) accepted", bad)
		}
	}
}

// The DID document and the JWK Set list the same keys under the same ids.
func TestDIDDocumentAndJWKSetListEveryKey(t *testing.T) {
	t.Parallel()
	did := testDID(t)
	keys := []ed25519.PublicKey{testKey(1).Public().(ed25519.PublicKey), testKey(2).Public().(ed25519.PublicKey)}
	doc := NewDIDDocument(did, keys)
	b, _ := json.Marshal(doc)
	vm1, vm2 := VerificationMethodID(did, keys[0]), VerificationMethodID(did, keys[1])
	want := `{"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/multikey/v1"],"id":"` + did + `",` +
		`"verificationMethod":[{"id":"` + vm1 + `","type":"Multikey","controller":"` + did + `","publicKeyMultibase":"` + Multibase(keys[0]) + `"},` +
		`{"id":"` + vm2 + `","type":"Multikey","controller":"` + did + `","publicKeyMultibase":"` + Multibase(keys[1]) + `"}],` +
		`"assertionMethod":["` + vm1 + `","` + vm2 + `"]}`
	if string(b) != want {
		t.Fatalf("DID document:\n%s\nwant\n%s", b, want)
	}
	if _, err := Canonicalize(toMap(t, doc)); err != nil {
		t.Fatalf("the DID document is not valid JSON-LD under its contexts: %v", err)
	}
	for i, vm := range []string{vm1, vm2} {
		if pub, err := doc.PublicKey(vm); err != nil || !pub.Equal(keys[i]) {
			t.Errorf("PublicKey(%s): %v", vm, err)
		}
	}
	if _, err := doc.PublicKey(did + "#" + Multibase(testKey(3).Public().(ed25519.PublicKey))); err == nil {
		t.Error("an unlisted key resolved")
	}

}
