package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/vc"
)

// verifierDir is the independent verifier (test/vc-verify), from this package's directory.
const verifierDir = "../../test/vc-verify"

// Digital Bazaar's libraries (and jose for the JWTs), run offline on what the LIVE endpoints
// answer: a certificate's and a badge's credential.json verify with a document loader that
// serves the issuer's DID document and status list as the service answered them, and the
// shipped contexts; after the certificate is revoked through the API, the list the service
// then answers reports it revoked (and the badge not); a credential whose name was altered is
// rejected; both credential.jwt verify against the JWK Set the service answers.
func TestDigitalBazaarVerifiesTheServedCredentials(t *testing.T) {
	t.Parallel()
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
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker 🎤", "description": "Gave a talk at \"GopherCon\"."})
	_, assertions := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, "Łukasz")))
	// A certificate of the same account, issued through the API.
	tmpl := b.acct.Template(t, b.env)
	attendee := b.acct.Attendee(t, b.event, "Ada", "Lovelace", "ada.cert@example.org")
	res := b.acct.Client.Post("/api/v1/certificates/generate", map[string]any{"eventId": b.event, "templateId": tmpl, "attendeeId": attendee})
	var cert certificateBody
	res.JSON(t, &cert)
	public := b.env.Client
	get := func(path string) json.RawMessage {
		t.Helper()
		res := public.Get(path)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
		}
		return res.Body
	}
	account := b.acct.ID.String()
	certJSON := get("/api/v1/verify/" + cert.Data.VerificationCode + "/credential.json")
	badgeJSON := get("/api/v1/verify/" + assertions.Data[0].VerificationCode + "/credential.json")
	certJWT := string(get("/api/v1/verify/" + cert.Data.VerificationCode + "/credential.jwt"))
	badgeJWT := string(get("/api/v1/verify/" + assertions.Data[0].VerificationCode + "/credential.jwt"))
	didDoc := get("/issuers/" + account + "/did.json")
	jwks := get("/issuers/" + account + "/jwks.json")
	var c struct {
		Issuer           struct{ ID string }
		CredentialStatus struct{ StatusListCredential string }
	}
	if err := json.Unmarshal(certJSON, &c); err != nil {
		t.Fatal(err)
	}
	listURL := c.CredentialStatus.StatusListCredential
	listPath := listURL[strings.Index(listURL, "/issuers/"):]
	listBefore := get(listPath)
	if res := b.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/revoke", map[string]any{"reasonCode": "fraud"}); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	listAfter := get(listPath)

	var tampered map[string]any
	if err := json.Unmarshal(certJSON, &tampered); err != nil {
		t.Fatal(err)
	}
	tampered["name"] = "Certificate of Attendance: Mallory"
	tamperedJSON, _ := json.Marshal(tampered)

	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "contexts"), 0o755); err != nil {
		t.Fatal(err)
	}
	contexts := map[string]string{}
	n := 0
	for url, body := range vc.Contexts() {
		n++
		name := filepath.Join("contexts", fmt.Sprintf("%d.json", n))
		contexts[url] = name
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type credentialCase struct {
		Name       string          `json:"name"`
		Credential json.RawMessage `json:"credential"`
		Documents  map[string]any  `json:"documents,omitempty"`
		Expect     map[string]any  `json:"expect"`
	}
	type jwtCase struct {
		Name   string          `json:"name"`
		Token  string          `json:"token"`
		JWKS   json.RawMessage `json:"jwks"`
		Expect map[string]any  `json:"expect"`
	}
	fixtures := map[string]any{
		"contexts":  contexts,
		"documents": map[string]any{c.Issuer.ID: didDoc, listURL: listBefore},
		"credentials": []credentialCase{
			{Name: "certificate", Credential: certJSON, Expect: map[string]any{"verified": true, "revoked": false}},
			{Name: "badge", Credential: badgeJSON, Expect: map[string]any{"verified": true, "revoked": false}},
			{Name: "certificate after revocation", Credential: certJSON, Documents: map[string]any{listURL: listAfter},
				Expect: map[string]any{"verified": true, "revoked": true}},
			{Name: "badge after the certificate's revocation", Credential: badgeJSON, Documents: map[string]any{listURL: listAfter},
				Expect: map[string]any{"verified": true, "revoked": false}},
			{Name: "certificate with its name altered", Credential: tamperedJSON, Expect: map[string]any{"verified": false}},
		},
		"jwts": []jwtCase{
			{Name: "certificate JWT", Token: certJWT, JWKS: jwks, Expect: map[string]any{"verified": true}},
			{Name: "badge JWT", Token: badgeJWT, JWKS: jwks, Expect: map[string]any{"verified": true}},
		},
	}
	body, err := json.MarshalIndent(fixtures, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures.json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(verifierDir, "verify.mjs"), dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var result struct {
		Contexts    map[string]string
		Credentials []struct {
			Name     string
			Verified bool
			Revoked  *bool
			OK       bool
			Errors   []string
		}
		JWTs []struct {
			Name     string
			Verified bool
			OK       bool
			Error    string
		}
	}
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("verifier output (%v): %v\n%s\n%s", runErr, err, out, stderr.String())
	}
	for _, r := range result.Credentials {
		revoked := "-"
		if r.Revoked != nil {
			revoked = fmt.Sprint(*r.Revoked)
		}
		t.Logf("%s: verified=%v revoked=%s %v", r.Name, r.Verified, revoked, r.Errors)
		if !r.OK {
			t.Errorf("%s: verified=%v revoked=%s %v", r.Name, r.Verified, revoked, r.Errors)
		}
	}
	for _, r := range result.JWTs {
		if !r.OK {
			t.Errorf("%s: verified=%v %s", r.Name, r.Verified, r.Error)
		}
	}
	if len(result.Credentials) != 5 || len(result.JWTs) != 2 {
		t.Errorf("%d credential and %d JWT results", len(result.Credentials), len(result.JWTs))
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("verifier exit: %v\n%s", runErr, stderr.String())
	}
}
