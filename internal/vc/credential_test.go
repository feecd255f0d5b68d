package vc

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// testCredential is a certificate's credential for recipient, pointing at index 1234 of list 1.
func testCredential(t testing.TB, s Signer, recipient string) OpenBadgeCredential {
	t.Helper()
	entry, err := NewStatusEntry(testStatusURL(1), 1234)
	if err != nil {
		t.Fatal(err)
	}
	expires := testTime.AddDate(2, 0, 0)
	c, err := NewOpenBadgeCredential(CredentialInput{
		ID:                     "0190f1f2-0000-7000-8000-000000000001",
		IssuerDID:              s.DID(),
		IssuerName:             "Example Events GmbH",
		IssuerURL:              "https://events.example.org/",
		IssuerImageURL:         testSite + "/logo.png",
		Name:                   "Certificate of Attendance: " + recipient,
		IdentityHash:           "sha256$3f1d4c0a9b1e2f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706",
		Salt:                   "c2FsdA",
		AchievementID:          testSite + "/events/0190f1f2-0000-7000-8000-0000000000ee",
		AchievementName:        "GopherCon EU 2026",
		AchievementDescription: "Three days of talks.\nBerlin.",
		Narrative:              "Attend the conference.",
		AchievementType:        "Certificate",
		IssuedAt:               testTime,
		ExpiresAt:              &expires,
		Status:                 &entry,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The credential has exactly the shape of contract-decisions.md, members in that order, dates
// in UTC to the second.
func TestOpenBadgeCredentialShape(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	b, _ := json.Marshal(testCredential(t, s, "Ana"))
	want := `{"@context":["https://www.w3.org/ns/credentials/v2","https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"],` +
		`"id":"urn:uuid:0190f1f2-0000-7000-8000-000000000001","type":["VerifiableCredential","OpenBadgeCredential"],` +
		`"issuer":{"id":"` + s.DID() + `","type":["Profile"],"name":"Example Events GmbH","url":"https://events.example.org/","image":{"id":"https://certs.example.org:8443/logo.png","type":"Image"}},` +
		`"validFrom":"2026-03-20T09:30:00Z","validUntil":"2028-03-20T09:30:00Z","name":"Certificate of Attendance: Ana",` +
		`"credentialSubject":{"type":["AchievementSubject"],` +
		`"identifier":[{"type":"IdentityObject","identityHash":"sha256$3f1d4c0a9b1e2f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706","identityType":"emailAddress","hashed":true,"salt":"c2FsdA"}],` +
		`"achievement":{"id":"https://certs.example.org:8443/events/0190f1f2-0000-7000-8000-0000000000ee","type":["Achievement"],"name":"GopherCon EU 2026","description":"Three days of talks.\nBerlin.","criteria":{"narrative":"Attend the conference."},"achievementType":"Certificate"}},` +
		`"credentialStatus":{"id":"https://certs.example.org:8443/issuers/` + testAccount + `/status/1#1234","type":"BitstringStatusListEntry","statusPurpose":"revocation","statusListIndex":"1234","statusListCredential":"https://certs.example.org:8443/issuers/` + testAccount + `/status/1"}}`
	if string(b) != want {
		t.Fatalf("credential:\n%s\nwant\n%s", b, want)
	}
}

// Optional parts are left out rather than written empty, and every variant stays valid
// JSON-LD (no term its contexts do not define).
func TestOpenBadgeCredentialOptionalParts(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	c := testCredential(t, s, "Ana")
	in := CredentialInput{
		ID: "0190f1f2-0000-7000-8000-000000000002", IssuerDID: s.DID(), IssuerName: "Org", Name: "Speaker",
		IdentityHash: "sha256$00", Salt: "s", AchievementID: "urn:uuid:0190f1f2-0000-7000-8000-0000000000bb",
		AchievementName: "Speaker", Narrative: "Gave a talk.", AchievementType: "Badge", IssuedAt: testTime,
	}
	bare, err := NewOpenBadgeCredential(in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(bare)
	for _, absent := range []string{"validUntil", "credentialStatus", `"url"`, `"image"`, "description"} {
		if strings.Contains(string(b), absent) {
			t.Errorf("%s written: %s", absent, b)
		}
	}
	for name, doc := range map[string]any{"full": c, "bare": bare} {
		if _, err := Canonicalize(toMap(t, doc)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, f := range map[string]func(*CredentialInput){
		"no id":            func(in *CredentialInput) { in.ID = "" },
		"id with a slash":  func(in *CredentialInput) { in.ID = "a/b" },
		"issuer not a DID": func(in *CredentialInput) { in.IssuerDID = "https://certs.example.org" },
		"relative achievement": func(in *CredentialInput) {
			in.AchievementID = "badges/1"
		},
		"unhashed identity": func(in *CredentialInput) { in.IdentityHash = "ana@example.org" },
		"no issue time":     func(in *CredentialInput) { in.IssuedAt = time.Time{} },
	} {
		bad := in
		f(&bad)
		if _, err := NewOpenBadgeCredential(bad); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}

// The revocation list is a BitstringStatusListCredential of the same issuer, signed like any
// credential.
func TestStatusListCredentialShape(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	l := NewStatusList()
	_ = l.Set(1234, true)
	slc := NewStatusListCredential(testStatusURL(1), s.DID(), l, testTime)
	b, _ := json.Marshal(slc)
	want := `{"@context":["https://www.w3.org/ns/credentials/v2"],"id":"https://certs.example.org:8443/issuers/` + testAccount + `/status/1",` +
		`"type":["VerifiableCredential","BitstringStatusListCredential"],"issuer":"` + s.DID() + `","validFrom":"2026-03-20T09:30:00Z",` +
		`"credentialSubject":{"id":"https://certs.example.org:8443/issuers/` + testAccount + `/status/1#list","type":"BitstringStatusList","statusPurpose":"revocation","encodedList":"` + l.Encode() + `"}}`
	if string(b) != want {
		t.Fatalf("status list credential:\n%s\nwant\n%s", b, want)
	}
	signed, err := s.SignDataIntegrity(slc, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyDataIntegrity(signed, NewDIDDocument(s.DID(), []ed25519.PublicKey{s.PublicKey()}).PublicKey); err != nil {
		t.Fatalf("signed status list: %v", err)
	}
	if _, err := VerifyDataIntegrity(signed, NewDIDDocument(s.DID(), nil).PublicKey); err == nil {
		t.Fatal("verified against a document without the key")
	}
	entry, err := NewStatusEntry(testStatusURL(1), 1234)
	if err != nil || entry.ID != testStatusURL(1)+"#1234" || entry.StatusListIndex != "1234" || entry.StatusPurpose != "revocation" || entry.Type != "BitstringStatusListEntry" {
		t.Fatalf("entry %+v %v", entry, err)
	}
	if _, err := NewStatusEntry(testStatusURL(1), StatusListSize); err == nil {
		t.Fatal("an entry past the list")
	}
}
