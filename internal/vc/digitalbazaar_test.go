package vc

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// verifierDir is the Node verifier's folder (test/vc-verify), from this package's directory.
const verifierDir = "../../test/vc-verify"

// nodeVerifier returns the node binary, or skips the test where the verifier cannot run, except
// in CI (CI set), where a missing verifier is a failure.
func nodeVerifier(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(verifierDir, "node_modules", "@digitalbazaar", "vc"))
	}
	if err != nil {
		msg := "the independent verifier needs node and its packages: (cd test/vc-verify && npm ci): " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}

type verifierCase struct {
	Name       string          `json:"name"`
	Credential json.RawMessage `json:"credential"`
	Documents  map[string]any  `json:"documents,omitempty"`
	Expect     map[string]any  `json:"expect"`
	Token      string          `json:"token,omitempty"`
	JWKS       any             `json:"jwks,omitempty"`
}

type verifierResult struct {
	Libraries   map[string]string `json:"libraries"`
	Contexts    map[string]string `json:"contexts"`
	Credentials []struct {
		Name      string   `json:"name"`
		Verified  bool     `json:"verified"`
		Revoked   *bool    `json:"revoked"`
		OK        bool     `json:"ok"`
		Errors    []string `json:"errors"`
		Canonical string   `json:"canonical"`
	} `json:"credentials"`
	JWTs []struct {
		Name     string          `json:"name"`
		Verified bool            `json:"verified"`
		OK       bool            `json:"ok"`
		Error    string          `json:"error"`
		Header   map[string]any  `json:"header"`
		Payload  json.RawMessage `json:"payload"`
	} `json:"jwts"`
}

// Digital Bazaar's verifier (and jose for the JWTs), run offline on what this package signs:
// a certificate's credential signed before a key rotation and a badge's signed after it both
// verify against the one DID document; after its status bit is set (and the list re-signed)
// the certificate is reported revoked; a name altered after signing and a key the DID document
// does not list are rejected; the JWT verifies against the JWK Set, an altered one does not.
// rdf-canonize's canonical form of each credential equals json-gold's, and the shipped
// contexts equal the npm packages' copies.
func TestDigitalBazaarVerifiesOurCredentials(t *testing.T) {
	t.Parallel()
	node := nodeVerifier(t)
	old, current := testSigner(t, 1), testSigner(t, 2)
	did := current.DID()
	keys := []ed25519.PublicKey{old.PublicKey(), current.PublicKey()}
	issued := time.Now().Add(-time.Hour)

	taken := NewStatusList()
	index := func() int {
		i, err := taken.RandomClearIndex()
		if err != nil {
			t.Fatal(err)
		}
		_ = taken.Set(i, true)
		return i
	}
	listURL := testStatusURL(1)
	certIndex := index()
	certEntry, _ := NewStatusEntry(listURL, certIndex)
	cert := testCredential(t, old, "Łukasz Żółć")
	cert.ValidFrom, cert.CredentialStatus = formatTime(issued), &certEntry
	badgeEntry, _ := NewStatusEntry(listURL, index())
	badge, err := NewOpenBadgeCredential(CredentialInput{
		ID: "0190f1f2-0000-7000-8000-000000000002", IssuerDID: did, IssuerName: "Example Events GmbH",
		IssuerURL: "https://events.example.org/", Name: "Speaker 🎤",
		IdentityHash: "sha256$5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8", Salt: "abc",
		AchievementID: testSite + "/ob/v2/badges/0190f1f2-0000-7000-8000-0000000000bb", AchievementName: "Speaker 🎤",
		AchievementDescription: "Gave a talk at \"GopherCon\"\\EU.", Narrative: "Give a talk.\nOn stage.",
		AchievementType: "Badge", IssuedAt: issued, Status: &badgeEntry,
	})
	if err != nil {
		t.Fatal(err)
	}

	signedCert, err := old.SignDataIntegrity(cert, issued) // before the rotation
	if err != nil {
		t.Fatal(err)
	}
	signedBadge, err := current.SignDataIntegrity(badge, issued) // after it
	if err != nil {
		t.Fatal(err)
	}
	signList := func(l *StatusList) json.RawMessage {
		b, err := current.SignDataIntegrity(NewStatusListCredential(listURL, did, l, issued), issued)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	revocations := NewStatusList()
	listBefore := signList(revocations)
	_ = revocations.Set(certIndex, true)
	listAfter := signList(revocations)

	tampered := toMap(t, json.RawMessage(signedCert))
	tampered["name"] = "Certificate of Attendance: Mallory"
	tamperedBytes, _ := json.Marshal(tampered)
	stranger := NewSigner(did, testKey(7)) // claims the issuer's DID with a key it does not list
	strangerSigned, err := stranger.SignDataIntegrity(badge, issued)
	if err != nil {
		t.Fatal(err)
	}

	jwks, err := NewJWKSet(did, keys)
	if err != nil {
		t.Fatal(err)
	}
	token, err := current.SignJWT(cert, testTime)
	if err != nil {
		t.Fatal(err)
	}
	oldToken, err := old.SignJWT(badge, testTime)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	alteredToken := parts[0] + "." + parts[1][:len(parts[1])-4] + "AAAA." + parts[2]

	dir := t.TempDir()
	contexts := map[string]string{}
	if err := os.Mkdir(filepath.Join(dir, "contexts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for url, b := range Contexts() {
		name := filepath.Join("contexts", filepath.Base(contextFileNames[url]))
		contexts[url] = name
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fixtures := map[string]any{
		"contexts":  contexts,
		"documents": map[string]any{did: NewDIDDocument(did, keys), listURL: listBefore},
		"credentials": []verifierCase{
			{Name: "certificate", Credential: signedCert, Expect: map[string]any{"verified": true, "revoked": false}},
			{Name: "badge", Credential: signedBadge, Expect: map[string]any{"verified": true, "revoked": false}},
			{Name: "certificate after revocation", Credential: signedCert, Documents: map[string]any{listURL: listAfter},
				Expect: map[string]any{"verified": true, "revoked": true}},
			{Name: "badge after the certificate's revocation", Credential: signedBadge, Documents: map[string]any{listURL: listAfter},
				Expect: map[string]any{"verified": true, "revoked": false}},
			{Name: "certificate with its name altered", Credential: tamperedBytes, Expect: map[string]any{"verified": false}},
			{Name: "badge signed by a key the DID document does not list", Credential: strangerSigned, Expect: map[string]any{"verified": false}},
		},
		"jwts": []verifierCase{
			{Name: "certificate JWT", Token: token, JWKS: jwks, Expect: map[string]any{"verified": true}},
			{Name: "badge JWT signed before the rotation", Token: oldToken, JWKS: jwks, Expect: map[string]any{"verified": true}},
			{Name: "certificate JWT with its payload altered", Token: alteredToken, JWKS: jwks, Expect: map[string]any{"verified": false}},
		},
	}
	b, err := json.MarshalIndent(fixtures, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(verifierDir, "verify.mjs"), dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var res verifierResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("verifier output (%v): %v\n%s\n%s", runErr, err, out, stderr.String())
	}
	t.Logf("verified offline by %v", res.Libraries)
	for url, v := range res.Contexts {
		if v != "same" {
			t.Errorf("shipped context %s: %s the npm package's copy", url, v)
		}
	}
	if len(res.Contexts) != len(contextFileNames) {
		t.Errorf("%d contexts compared", len(res.Contexts))
	}
	signedByName := map[string][]byte{"certificate": signedCert, "badge": signedBadge}
	for _, r := range res.Credentials {
		revoked := "-"
		if r.Revoked != nil {
			revoked = map[bool]string{true: "revoked", false: "not revoked"}[*r.Revoked]
		}
		t.Logf("%s: verified=%v %s %v", r.Name, r.Verified, revoked, r.Errors)
		if !r.OK {
			t.Errorf("%s: verified=%v, %s, errors %v", r.Name, r.Verified, revoked, r.Errors)
		}
		if signed, ok := signedByName[r.Name]; ok {
			m := toMap(t, json.RawMessage(signed))
			delete(m, "proof")
			if mine, err := Canonicalize(m); err != nil || mine != r.Canonical {
				t.Errorf("%s: json-gold\n%s\nrdf-canonize\n%s (%v)", r.Name, mine, r.Canonical, err)
			}
		}
	}
	for _, r := range res.JWTs {
		t.Logf("%s: verified=%v %s", r.Name, r.Verified, r.Error)
		if !r.OK {
			t.Errorf("%s: verified=%v %s", r.Name, r.Verified, r.Error)
		}
	}
	if len(res.Credentials) != 6 || len(res.JWTs) != 3 {
		t.Errorf("%d credential and %d JWT results", len(res.Credentials), len(res.JWTs))
	}
	if got := res.JWTs[0]; got.Header["kid"] != current.VerificationMethod || got.Header["cty"] != "vc" {
		t.Errorf("JWT header as jose read it: %v", got.Header)
	}
	// jose reads the credential with the registered claims beside its members.
	payload := toMap(t, res.JWTs[0].Payload)
	if payload["iss"] != did || payload["jti"] != cert.ID {
		t.Errorf("JWT claims as jose read them: iss %v jti %v", payload["iss"], payload["jti"])
	}
	for _, claim := range []string{"iss", "jti", "nbf", "iat", "exp"} {
		delete(payload, claim)
	}
	if got, _ := json.Marshal(payload); !jsonEqual(t, got, mustJSON(t, cert)) {
		t.Errorf("JWT payload as jose read it:\n%s", res.JWTs[0].Payload)
	}
	var exit *exec.ExitError
	if runErr != nil && !(errors.As(runErr, &exit) && t.Failed()) {
		t.Errorf("verifier exit: %v\n%s", runErr, stderr.String())
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	x, _ := json.Marshal(toMap(t, json.RawMessage(a)))
	y, _ := json.Marshal(toMap(t, json.RawMessage(b)))
	return string(x) == string(y)
}
