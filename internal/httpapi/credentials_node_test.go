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

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"

	"github.com/certhub/credentiald/internal/vc"
)

// verifierDir is the independent verifier (test/vc-verify), from this package's directory.
const verifierDir = "../../test/vc-verify"

// Other people's verifiers, run offline (one node process) on what the LIVE endpoints answer
// for a certificate, a certificate with an expiry, a badge with a description, one created
// without, and a certificate of a Japanese event (its generated sentences Japanese): Digital Bazaar's libraries verify each credential.json with a document loader that
// serves the issuer's DID document and status list as the service answered them, and the
// shipped contexts; after the certificate is revoked through the API, the list the service
// then answers reports it revoked (and the badge not); a credential whose name was altered is
// rejected; every credential.jwt verifies against the JWK Set the service answers and carries
// the registered claims Open Badges 3.0 requires. The standards' own validators check the same
// documents: every credential and JWT payload validates against 1EdTech's Open Badges 3.0 JSON
// Schema (test/standards), and the DCC's verifier-core (what the Learner Credential Wallet and
// VerifierPlus run) reports a valid signature, expiry, status and schema for each credential,
// the revoked one as revoked and the altered one as an invalid signature.
func TestDigitalBazaarVerifiesTheServedCredentials(t *testing.T) {
	t.Parallel()
	node := nodeWith(t, "@digitalbazaar/vc", "@digitalcredentials/verifier-core", "ajv")
	b := newBadging(t)
	issueBadge := func(body map[string]any, attendee string) string {
		t.Helper()
		badge := b.badge(t, body)
		res, assertions := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, attendee)))
		if len(assertions.Data) != 1 {
			t.Fatalf("issue %s: %d %s", body["name"], res.StatusCode, res.Body)
		}
		return assertions.Data[0].VerificationCode
	}
	badgeCode := issueBadge(map[string]any{"name": "Speaker 🎤", "description": "Gave a talk at \"GopherCon\"."}, "Łukasz")
	// A badge created without a description: its credential must carry one all the same.
	plainBadgeCode := issueBadge(map[string]any{"name": "Volunteer"}, "Grace")
	// Certificates of the same account, issued through the API; the second with an expiry.
	tmpl := b.acct.Template(t, b.env)
	generate := func(first, email string, extra map[string]any) certificateBody {
		t.Helper()
		body := map[string]any{"eventId": b.event, "templateId": tmpl, "attendeeId": b.acct.Attendee(t, b.event, first, "Lovelace", email)}
		for k, v := range extra {
			body[k] = v
		}
		res := b.acct.Client.Post("/api/v1/certificates/generate", body)
		var cert certificateBody
		res.JSON(t, &cert)
		if cert.Data.VerificationCode == "" {
			t.Fatalf("generate for %s: %d %s", first, res.StatusCode, res.Body)
		}
		return cert
	}
	cert := generate("Ada", "ada.cert@example.org", nil)
	expiresAt := time.Now().UTC().Add(90 * 24 * time.Hour).Truncate(time.Second)
	expiring := generate("Alan", "alan.cert@example.org", map[string]any{"expiresAt": expiresAt.Format(time.RFC3339), "sendEmail": false})
	// A certificate of a Japanese event without a description: the sentences its credential
	// generates are Japanese, signed and canonicalised as any other text.
	var jaEvent eventBody
	b.acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
		"templateId": tmpl, "locale": "ja"}).JSON(t, &jaEvent)
	var japanese certificateBody
	b.acct.Client.Post("/api/v1/certificates/generate", map[string]any{"eventId": jaEvent.Data.ID, "templateId": tmpl,
		"attendeeId": b.acct.Attendee(t, uuid.MustParse(jaEvent.Data.ID), "Hana", "Sato", "hana@example.org")}).JSON(t, &japanese)
	public := b.env.Client
	get := func(path string) json.RawMessage {
		t.Helper()
		res := public.Get(path)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
		}
		return res.Body
	}
	served := func(code string) (json.RawMessage, string) {
		t.Helper()
		return get("/api/v1/verify/" + code + "/credential.json"), string(get("/api/v1/verify/" + code + "/credential.jwt"))
	}
	certJSON, certJWT := served(cert.Data.VerificationCode)
	expiringJSON, expiringJWT := served(expiring.Data.VerificationCode)
	badgeJSON, badgeJWT := served(badgeCode)
	plainBadgeJSON, plainBadgeJWT := served(plainBadgeCode)
	japaneseJSON, japaneseJWT := served(japanese.Data.VerificationCode)
	if !strings.Contains(string(japaneseJSON), "2026年11月12日に開催されたGophertage 2026の参加証明書です") {
		t.Fatalf("the Japanese event's credential: %s", japaneseJSON)
	}
	account := b.acct.ID.String()
	didDoc := get("/issuers/" + account + "/did.json")
	jwks := get("/issuers/" + account + "/jwks.json")
	type credentialFields struct {
		Issuer           struct{ ID string }
		ValidUntil       *time.Time
		CredentialStatus struct{ StatusListCredential string }
	}
	fields := func(credential json.RawMessage) credentialFields {
		t.Helper()
		var c credentialFields
		if err := json.Unmarshal(credential, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := fields(certJSON)
	e := fields(expiringJSON)
	if assert.NotNil(t, e.ValidUntil, "the certificate expiring at %s: validUntil", expiresAt) {
		assert.True(t, e.ValidUntil.Equal(expiresAt), "the certificate expiring at %s has validUntil %v", expiresAt, e.ValidUntil)
	}
	listPath := func(url string) string { return url[strings.Index(url, "/issuers/"):] }
	// Each credential's status list as served before the revocation (they may share one).
	documents := map[string]any{c.Issuer.ID: didDoc}
	for _, credential := range []json.RawMessage{certJSON, expiringJSON, badgeJSON, plainBadgeJSON, japaneseJSON} {
		if url := fields(credential).CredentialStatus.StatusListCredential; documents[url] == nil {
			documents[url] = get(listPath(url))
		}
	}
	listURL := c.CredentialStatus.StatusListCredential
	if res := b.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/revoke", map[string]any{"reasonCode": "fraud"}); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	listAfter := get(listPath(listURL))

	var tampered map[string]any
	if err := json.Unmarshal(certJSON, &tampered); err != nil {
		t.Fatal(err)
	}
	tampered["name"] = "Certificate of Attendance: Mallory"
	tamperedJSON, _ := json.Marshal(tampered)

	// What verifier-core must report (its own check names; revocation_status false = revoked).
	// Its registered_issuer check is false offline (no registry): reported, not expected.
	verifierCore := func(revoked bool) map[string]any {
		return map[string]any{"fatal": nil, "valid_signature": true, "expiration": true, "revocation_status": !revoked, "schema_check": true}
	}
	valid := func(revoked bool) map[string]any {
		return map[string]any{"verified": true, "revoked": revoked, "schema": true, "verifierCore": verifierCore(revoked)}
	}
	afterRevocation := map[string]any{listURL: listAfter}
	jwtValid := map[string]any{"verified": true, "schema": true, "claims": true}
	fixtures := map[string]any{
		"documents": documents,
		"credentials": []credentialCase{
			{Name: "certificate", Credential: certJSON, Expect: valid(false)},
			{Name: "badge", Credential: badgeJSON, Expect: valid(false)},
			{Name: "certificate after revocation", Credential: certJSON, Documents: afterRevocation, Expect: valid(true)},
			{Name: "badge after the certificate's revocation", Credential: badgeJSON, Documents: afterRevocation, Expect: valid(false)},
			{Name: "certificate with its name altered", Credential: tamperedJSON,
				Expect: map[string]any{"verified": false, "verifierCore": map[string]any{"fatal": "invalid_signature"}}},
			{Name: "certificate with an expiry", Credential: expiringJSON, Expect: valid(false)},
			{Name: "badge created without a description", Credential: plainBadgeJSON, Expect: valid(false)},
			{Name: "certificate of a Japanese event", Credential: japaneseJSON, Expect: valid(false)},
		},
		"jwts": []jwtCase{
			{Name: "certificate JWT", Token: certJWT, JWKS: jwks, Expect: jwtValid},
			{Name: "badge JWT", Token: badgeJWT, JWKS: jwks, Expect: jwtValid},
			{Name: "certificate with an expiry JWT", Token: expiringJWT, JWKS: jwks, Expect: jwtValid},
			{Name: "badge created without a description JWT", Token: plainBadgeJWT, JWKS: jwks, Expect: jwtValid},
			{Name: "certificate of a Japanese event JWT", Token: japaneseJWT, JWKS: jwks, Expect: jwtValid},
		},
	}
	runNodeVerifier(t, node, fixtures, 8, 5)
}

// credentialCase and jwtCase are what verify.mjs checks, each with what it must report.
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

// runNodeVerifier has test/vc-verify/verify.mjs check fixtures (credentials and JWTs, each
// with what it must report; the documents its offline loader serves), with the shipped
// contexts, and fails the test on any mismatch; credentials and jwts are the counts of
// results expected.
func runNodeVerifier(t *testing.T, node string, fixtures map[string]any, credentials, jwts int) {
	t.Helper()
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
	fixtures["contexts"] = contexts
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
	type schemaError struct{ Schema, InstancePath, Message string }
	var result struct {
		Contexts    map[string]string
		Credentials []struct {
			Name         string
			Verified     bool
			Revoked      *bool
			OK           bool
			Mismatches   []string
			Errors       []string
			SchemaErrors []schemaError
			VerifierCore *struct {
				Fatal            *string       `json:"fatal"`
				ValidSignature   *bool         `json:"valid_signature"`
				Expiration       *bool         `json:"expiration"`
				RevocationStatus *bool         `json:"revocation_status"`
				RegisteredIssuer *bool         `json:"registered_issuer"`
				SchemaCheck      bool          `json:"schema_check"`
				Schemas          []string      `json:"schemas"`
				SchemaErrors     []schemaError `json:"schemaErrors"`
				Errors           []string      `json:"errors"`
			}
		}
		JWTs []struct {
			Name         string
			Verified     bool
			OK           bool
			Error        string
			Mismatches   []string
			SchemaErrors []schemaError
			ClaimErrors  []string
		}
	}
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("verifier output (%v): %v\n%s\n%s", runErr, err, out, stderr.String())
	}
	// schemaFailures reports each failing schema path, once (ajv's and verifier-core's agree).
	schemaFailures := func(name, by string, errs []schemaError, seen map[schemaError]bool) {
		t.Helper()
		for _, e := range errs {
			key := schemaError{InstancePath: e.InstancePath, Message: e.Message}
			if !seen[key] {
				seen[key] = true
				t.Errorf("%s: %s: %s %s", name, by, e.InstancePath, e.Message)
			}
		}
	}
	orDash := func(v any) string {
		switch v := v.(type) {
		case *bool:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *string:
			if v != nil {
				return *v
			}
		}
		return "-"
	}
	for _, r := range result.Credentials {
		revoked := "-"
		if r.Revoked != nil {
			revoked = fmt.Sprint(*r.Revoked)
		}
		core := "-"
		if v := r.VerifierCore; v != nil {
			core = fmt.Sprintf("fatal=%s signature=%s expiration=%s status=%s registry=%s schema=%v %v",
				orDash(v.Fatal), orDash(v.ValidSignature), orDash(v.Expiration), orDash(v.RevocationStatus), orDash(v.RegisteredIssuer), v.SchemaCheck, v.Errors)
		}
		t.Logf("%s: verified=%v revoked=%s %v; verifier-core: %s", r.Name, r.Verified, revoked, r.Errors, core)
		if r.OK {
			continue
		}
		t.Errorf("%s: %s (Digital Bazaar: verified=%v revoked=%s %v)", r.Name, strings.Join(r.Mismatches, "; "), r.Verified, revoked, r.Errors)
		seen := map[schemaError]bool{}
		schemaFailures(r.Name, "schema", r.SchemaErrors, seen)
		if v := r.VerifierCore; v != nil {
			schemaFailures(r.Name, "verifier-core schema", v.SchemaErrors, seen)
			if !v.SchemaCheck && len(v.SchemaErrors) == 0 {
				t.Errorf("%s: verifier-core checked no schema: %v", r.Name, v.Schemas)
			}
			for _, e := range v.Errors {
				t.Errorf("%s: verifier-core: %s", r.Name, e)
			}
		}
	}
	for _, r := range result.JWTs {
		t.Logf("%s: verified=%v %s", r.Name, r.Verified, r.Error)
		if r.OK {
			continue
		}
		t.Errorf("%s: %s %s", r.Name, strings.Join(r.Mismatches, "; "), r.Error)
		schemaFailures(r.Name, "schema", r.SchemaErrors, map[schemaError]bool{})
		for _, e := range r.ClaimErrors {
			t.Errorf("%s: claim %s", r.Name, e)
		}
	}
	assert.Len(t, result.Credentials, credentials, "credential results")
	assert.Len(t, result.JWTs, jwts, "JWT results")
	if runErr != nil && !t.Failed() {
		t.Errorf("verifier exit: %v\n%s", runErr, stderr.String())
	}
}
