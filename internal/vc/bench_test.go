package vc

import (
	"crypto/ed25519"
	"testing"
)

// BenchmarkSignDataIntegrity is one credential.json: two RDFC-1.0 canonicalizations (proof
// configuration and credential), two hashes, one Ed25519 signature.
func BenchmarkSignDataIntegrity(b *testing.B) {
	s := testSigner(b, 1)
	c := testCredential(b, s, "Ana")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.SignDataIntegrity(c, testTime); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignJWT is one credential.jwt: JSON and one Ed25519 signature, no JSON-LD.
func BenchmarkSignJWT(b *testing.B) {
	s := testSigner(b, 1)
	c := testCredential(b, s, "Ana")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.SignJWT(c, testTime); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyDataIntegrity is the Go-side check of one credential.json.
func BenchmarkVerifyDataIntegrity(b *testing.B) {
	s := testSigner(b, 1)
	signed, err := s.SignDataIntegrity(testCredential(b, s, "Ana"), testTime)
	if err != nil {
		b.Fatal(err)
	}
	doc := NewDIDDocument(s.DID(), []ed25519.PublicKey{s.PublicKey()})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := VerifyDataIntegrity(signed, doc.PublicKey); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignStatusList is a revocation: set a bit, encode the 16 KiB list (GZIP) and sign
// the list credential.
func BenchmarkSignStatusList(b *testing.B) {
	s := testSigner(b, 1)
	l := NewStatusList()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = l.Set(i%StatusListSize, true)
		i += 7919
		if _, err := s.SignDataIntegrity(NewStatusListCredential(testStatusURL(1), s.DID(), l, testTime), testTime); err != nil {
			b.Fatal(err)
		}
	}
}
