package vc

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func signCredential(t *testing.T, s Signer, recipient string) []byte {
	t.Helper()
	signed, err := s.SignDataIntegrity(testCredential(t, s, recipient), testTime)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// The signed credential is the unsigned one, byte for byte, with the proof appended last.
func TestSignedCredentialKeepsTheDocumentAndAppendsTheProof(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	unsigned, _ := json.Marshal(testCredential(t, s, "Ana"))
	signed := signCredential(t, s, "Ana")
	if !bytes.HasPrefix(signed, unsigned[:len(unsigned)-1]) || !bytes.Contains(signed, []byte(`,"proof":{"type":"DataIntegrityProof","cryptosuite":"eddsa-rdfc-2022","created":"2026-03-20T09:30:00Z","verificationMethod":"`+s.VerificationMethod+`","proofPurpose":"assertionMethod","proofValue":"z`)) {
		t.Fatalf("signed:\n%s", signed)
	}
	if !strings.HasPrefix(s.VerificationMethod, "did:web:certs.example.org%3A8443:issuers:"+testAccount+"#z6Mk") {
		t.Fatalf("verification method %s", s.VerificationMethod)
	}
	doc := NewDIDDocument(s.DID(), []ed25519.PublicKey{s.PublicKey()})
	proof, err := VerifyDataIntegrity(signed, doc.PublicKey)
	if err != nil || proof.VerificationMethod != s.VerificationMethod {
		t.Fatalf("verify: %+v %v", proof, err)
	}
	// Ed25519 is deterministic: the same credential signs to the same bytes.
	if again := signCredential(t, s, "Ana"); !bytes.Equal(again, signed) {
		t.Fatal("signing twice gave two signatures")
	}
}

// Any change after signing breaks the proof: a name, a date, the status index, the proof's own
// members; and so does a key that is not the issuer's.
func TestAlteredCredentialIsRejected(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	signed := signCredential(t, s, "Ana")
	doc := NewDIDDocument(s.DID(), []ed25519.PublicKey{s.PublicKey()})
	alter := map[string]func(m map[string]any){
		"name":       func(m map[string]any) { m["name"] = "Certificate of Attendance: Mallory" },
		"validUntil": func(m map[string]any) { m["validUntil"] = "2099-01-01T00:00:00Z" },
		"status index": func(m map[string]any) {
			m["credentialStatus"].(map[string]any)["statusListIndex"] = "1235"
		},
		"recipient hash": func(m map[string]any) {
			m["credentialSubject"].(map[string]any)["identifier"].([]any)[0].(map[string]any)["salt"] = "other"
		},
		"created":      func(m map[string]any) { m["proof"].(map[string]any)["created"] = "2026-03-20T09:30:01Z" },
		"extra member": func(m map[string]any) { m["proof"].(map[string]any)["expires"] = "2030-01-01T00:00:00Z" },
		"proof purpose": func(m map[string]any) {
			m["proof"].(map[string]any)["proofPurpose"] = "authentication"
		},
		"proof value": func(m map[string]any) {
			v := m["proof"].(map[string]any)["proofValue"].(string)
			m["proof"].(map[string]any)["proofValue"] = v[:len(v)-2] + "11"
		},
		"issuer": func(m map[string]any) {
			m["issuer"].(map[string]any)["id"] = "did:web:evil.example:issuers:" + testAccount
		},
	}
	for name, f := range alter {
		m := toMap(t, json.RawMessage(signed))
		f(m)
		b, _ := json.Marshal(m)
		if _, err := VerifyDataIntegrity(b, doc.PublicKey); !errors.Is(err, ErrInvalidProof) && !errors.Is(err, ErrNotCanonicalizable) {
			t.Errorf("%s altered: %v, want a rejection", name, err)
		}
	}
	// The same bytes re-serialized (other member order) still verify: the proof covers
	// the RDF statements, not the JSON text.
	if _, err := VerifyDataIntegrity(func() []byte { b, _ := json.Marshal(toMap(t, json.RawMessage(signed))); return b }(), doc.PublicKey); err != nil {
		t.Fatalf("re-serialized: %v", err)
	}
	// Another account's key, even listed in a document, is not the issuer's.
	other := NewSigner("did:web:certs.example.org%3A8443:issuers:other", testKey(9))
	forged, err := other.SignDataIntegrity(testCredential(t, s, "Ana"), testTime)
	if err != nil {
		t.Fatal(err)
	}
	otherDoc := NewDIDDocument(other.DID(), []ed25519.PublicKey{other.PublicKey()})
	if _, err := VerifyDataIntegrity(forged, otherDoc.PublicKey); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("signed by another issuer: %v", err)
	}
}

// After a rotation the account signs with its new key; what the old key signed still verifies
// because the DID document keeps listing it; a key the document does not list fails.
func TestOldCredentialStillVerifiesAfterRotation(t *testing.T) {
	t.Parallel()
	old, current := testSigner(t, 1), testSigner(t, 2)
	before := signCredential(t, old, "Ana")
	after := signCredential(t, current, "Ana")
	if old.VerificationMethod == current.VerificationMethod {
		t.Fatal("rotation kept the verification method")
	}
	doc := NewDIDDocument(old.DID(), []ed25519.PublicKey{old.PublicKey(), current.PublicKey()})
	for name, signed := range map[string][]byte{"before": before, "after": after} {
		if _, err := VerifyDataIntegrity(signed, doc.PublicKey); err != nil {
			t.Errorf("%s the rotation: %v", name, err)
		}
	}
	onlyNew := NewDIDDocument(old.DID(), []ed25519.PublicKey{current.PublicKey()})
	if _, err := VerifyDataIntegrity(before, onlyNew.PublicKey); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("old key dropped from the document: %v, want ErrUnknownKey", err)
	}
}

// The signer refuses what it cannot sign faithfully, before any signature exists.
func TestSignerRefusesWhatItCannotSignFaithfully(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	c := testCredential(t, s, "Ana")
	c.Name = "Certificate\x1b[31m"
	if _, err := s.SignDataIntegrity(c, testTime); !errors.Is(err, ErrNotCanonicalizable) {
		t.Errorf("escape character in the name: %v", err)
	}
	for name, raw := range map[string]string{
		"invalid UTF-8":  `{"@context":["https://www.w3.org/ns/credentials/v2"],"name":"\xff"}`,
		"lone surrogate": `{"@context":["https://www.w3.org/ns/credentials/v2"],"name":"\ud800"}`,
		"no context":     `{"name":"x"}`,
		"not an object":  `["https://www.w3.org/ns/credentials/v2"]`,
		"not JSON":       `{"@context":`,
		"already signed": `{"@context":["https://www.w3.org/ns/credentials/v2"],"name":"x","proof":{}}`,
		"undefined term": `{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential"],"issuer":"did:example:1","credentialSubject":{"favouriteColour":"red"}}`,
		"empty object":   `{}`,
		"trailing space": `{"@context":["https://www.w3.org/ns/credentials/v2"],"name":"x"}  `,
	} {
		signed, err := s.SignDataIntegrity([]byte(raw), testTime)
		if name == "trailing space" { // whitespace only: compacted, then signed
			if err != nil || !json.Valid(signed) {
				t.Errorf("%s: %v %s", name, err, signed)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: signed %s", name, signed)
		}
	}
}
