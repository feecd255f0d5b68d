package vc

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

const (
	testSite    = "https://certs.example.org:8443"
	testAccount = "0190f1f2-5a6b-7c8d-9e0f-112233445566"
)

// testTime is in the past (verifiers refuse a validFrom in the future) and not in UTC, so that
// every date written is seen to be converted.
var testTime = time.Date(2026, 3, 20, 10, 30, 0, 123456789, time.FixedZone("CET", 3600))

func testDID(t testing.TB) string {
	t.Helper()
	did, err := DIDWeb(testSite, testAccount)
	if err != nil {
		t.Fatal(err)
	}
	return did
}

// testKey is the account's n-th key, the same in every run.
func testKey(n int) ed25519.PrivateKey {
	seed := sha256.Sum256(fmt.Appendf(nil, "credentiald test key %d", n))
	return ed25519.NewKeyFromSeed(seed[:])
}

func testSigner(t testing.TB, n int) Signer {
	return NewSigner(testDID(t), testKey(n))
}

func testStatusURL(list int) string { return StatusListURL(testSite, testAccount, list) }

func toMap(t testing.TB, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
