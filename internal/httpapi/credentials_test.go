package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/openbadges"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/vc"
)

// issuerDocs are what a verifier fetches to check an account's credentials offline.
type issuerDocs struct {
	did  vc.DIDDocument
	jwks jwk.Set
}

func fetchIssuer(t *testing.T, c *contract.Client, accountID string) issuerDocs {
	t.Helper()
	var d issuerDocs
	res := c.Get("/issuers/" + accountID + "/did.json")
	require.Equal(t, 200, res.StatusCode, "did.json: status (body %s)", res.Body)
	require.Equal(t, "application/did+json", res.Header.Get("Content-Type"), `did.json: res.Header.Get("Content-Type")`)
	require.Equal(t, "public, max-age=300", res.Header.Get("Cache-Control"), `did.json: res.Header.Get("Cache-Control")`)
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), `did.json: res.Header.Get("Access-Control-Allow-Origin")`)
	res.JSON(t, &d.did)
	notModified(t, c, "/issuers/"+accountID+"/did.json", res.Header.Get("ETag"))
	res = c.Get("/issuers/" + accountID + "/jwks.json")
	require.Equal(t, 200, res.StatusCode, "jwks.json: status (body %s)", res.Body)
	require.Equal(t, "application/jwk-set+json", res.Header.Get("Content-Type"), `jwks.json: res.Header.Get("Content-Type")`)
	notModified(t, c, "/issuers/"+accountID+"/jwks.json", res.Header.Get("ETag"))
	set, err := jwk.Parse(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	d.jwks = set
	return d
}

// signedCredential fetches a credential.json and checks its proof against the issuer's DID
// document, and its credential.jwt against the JWK Set; it returns the credential.
func signedCredential(t *testing.T, c *contract.Client, code string, issuer issuerDocs) map[string]any {
	t.Helper()
	res := c.Get("/api/v1/verify/" + code + "/credential.json")
	require.Equal(t, 200, res.StatusCode, "credential.json: status (body %s)", res.Body)
	require.Equal(t, "application/vc", res.Header.Get("Content-Type"), `credential.json: res.Header.Get("Content-Type")`)
	require.NotEmpty(t, res.Header.Get("ETag"), `credential.json: res.Header.Get("ETag")`)
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), `credential.json: res.Header.Get("Access-Control-Allow-Origin")`)
	proof, err := vc.VerifyDataIntegrity(res.Body, issuer.did.PublicKey)
	if err != nil {
		t.Fatalf("credential.json does not verify: %v\n%s", err, res.Body)
	}
	var cred map[string]any
	res.JSON(t, &cred)
	if proof.VerificationMethod != cred["issuer"].(map[string]any)["id"].(string)+"#"+strings.Split(proof.VerificationMethod, "#")[1] {
		t.Fatalf("proof by %s", proof.VerificationMethod)
	}
	if again := c.Do(withHeader(c.Request("GET", "/api/v1/verify/"+code+"/credential.json", nil), "If-None-Match", res.Header.Get("ETag"))); again.StatusCode != 304 {
		t.Fatalf("revalidation: %d", again.StatusCode)
	}
	jwt := c.Get("/api/v1/verify/" + code + "/credential.jwt")
	require.Equal(t, 200, jwt.StatusCode, "credential.jwt: status (body %s)", jwt.Body)
	require.Equal(t, "application/vc+jwt", jwt.Header.Get("Content-Type"), `credential.jwt: jwt.Header.Get("Content-Type")`)
	notModified(t, c, "/api/v1/verify/"+code+"/credential.jwt", jwt.Header.Get("ETag"))
	payload, err := vc.VerifyJWT(string(jwt.Body), issuer.jwks)
	if err != nil {
		t.Fatalf("credential.jwt does not verify: %v", err)
	}
	var fromJWT map[string]any
	if err := json.Unmarshal(payload, &fromJWT); err != nil {
		t.Fatal(err)
	}
	checkJWTClaims(t, fromJWT)
	delete(cred, "proof")
	a, _ := json.Marshal(cred)
	b, _ := json.Marshal(fromJWT)
	if string(a) != string(b) {
		t.Fatalf("the JWT says\n%s\nthe JSON\n%s", b, a)
	}
	return cred
}

// checkJWTClaims checks the registered claims of a credential.jwt payload against the
// credential it carries (Open Badges 3.0, 8.2.4.1: a verifier MUST find iss, jti and nbf, and
// exp when the credential has validUntil), then removes them, leaving the credential.
func checkJWTClaims(t *testing.T, payload map[string]any) {
	t.Helper()
	unix := func(member string) any {
		v, ok := payload[member].(string)
		if !ok {
			return nil
		}
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t.Fatalf("%s %q: %v", member, v, err)
		}
		return float64(at.Unix())
	}
	want := map[string]any{"iss": payload["issuer"].(map[string]any)["id"], "jti": payload["id"], "nbf": unix("validFrom"),
		"exp": unix("validUntil")}
	if subject, _ := payload["credentialSubject"].(map[string]any); subject["id"] != nil {
		want["sub"] = subject["id"]
	}
	for claim, v := range want {
		if payload[claim] != v {
			t.Errorf("JWT claim %s = %v, want %v", claim, payload[claim], v)
		}
		delete(payload, claim)
	}
	iat, ok := payload["iat"].(float64)
	if assert.True(t, ok, "JWT claim iat = %v: not a number", payload["iat"]) {
		assert.GreaterOrEqual(t, iat, want["nbf"].(float64)-60, "JWT claim iat: not the signing time, from validFrom on")
	}
	delete(payload, "iat")
	if payload["sub"] != nil {
		t.Errorf("JWT claim sub = %v for a credential bound to no holder", payload["sub"])
	}
}

// notModified asks for path again with its tag (weakly, in a list): 304, the same tag, no body.
func notModified(t *testing.T, c *contract.Client, path, tag string) {
	t.Helper()
	res := c.Do(withHeader(c.Request("GET", path, nil), "If-None-Match", `"other", W/`+tag))
	require.NotEmpty(t, tag, "%s: no ETag", path)
	require.Equal(t, 304, res.StatusCode, "%s with If-None-Match %s: status", path, tag)
	require.Equal(t, tag, res.Header.Get("ETag"), `%s with If-None-Match %s: res.Header.Get("ETag")`, path, tag)
	require.Empty(t, res.Body, "%s with If-None-Match %s: body", path, tag)
}

func withHeader(r *http.Request, name, value string) *http.Request {
	r.Header.Set(name, value)
	return r
}

// statusListOf fetches a status list, checks its proof and its revalidation, and returns the list.
func statusListOf(t *testing.T, c *contract.Client, url string, issuer issuerDocs) *vc.StatusList {
	t.Helper()
	path := url[strings.Index(url, "/issuers/"):]
	res := c.Get(path)
	require.Equal(t, 200, res.StatusCode, "status list: status (body %s)", res.Body)
	require.Equal(t, "application/vc", res.Header.Get("Content-Type"), `status list: res.Header.Get("Content-Type")`)
	require.Equal(t, "public, max-age=300", res.Header.Get("Cache-Control"), `status list: res.Header.Get("Cache-Control")`)
	if _, err := vc.VerifyDataIntegrity(res.Body, issuer.did.PublicKey); err != nil {
		t.Fatalf("status list does not verify: %v", err)
	}
	notModified(t, c, path, res.Header.Get("ETag"))
	var l struct {
		CredentialSubject struct{ EncodedList string }
	}
	res.JSON(t, &l)
	list, err := vc.DecodeStatusList(l.CredentialSubject.EncodedList)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func statusOf(t *testing.T, cred map[string]any) (url string, index int) {
	t.Helper()
	s := cred["credentialStatus"].(map[string]any)
	if err := json.Unmarshal([]byte(s["statusListIndex"].(string)), &index); err != nil {
		t.Fatal(err)
	}
	return s["statusListCredential"].(string), index
}

func revoked(t *testing.T, c *contract.Client, cred map[string]any, issuer issuerDocs) bool {
	t.Helper()
	url, i := statusOf(t, cred)
	on, err := statusListOf(t, c, url, issuer).Get(i)
	if err != nil {
		t.Fatal(err)
	}
	return on
}

// A certificate is also a signed Open Badges 3.0 credential: credential.json verifies against
// the issuer's DID document, credential.jwt against its JWK Set, both say the same, its
// status bit is clear until it is revoked and set by the revoking request; the lookup links
// both forms; a code is read in any letter case.
func TestCertificateIsASignedCredentialUntilRevoked(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	public := s.env.Client
	issuer := fetchIssuer(t, public, s.acct.ID.String())
	if len(issuer.did.VerificationMethod) != 1 {
		t.Fatalf("DID document: %+v", issuer.did)
	}
	code := strings.ToLower(c.Data.VerificationCode)
	cred := signedCredential(t, public, code, issuer)
	require.Equal(t, "Go Conference", cred["name"], `credential: cred["name"]`)
	require.Equal(t, "urn:uuid:"+c.Data.ID, cred["id"], `credential: cred["id"]`)
	require.NotNil(t, cred["validUntil"], `credential: cred["validUntil"]`)
	if strings.Contains(mustJSON(t, cred), "@example.org") {
		t.Fatal("the credential shows the recipient's email")
	}
	var v struct {
		Data struct {
			Links struct{ CredentialJSON, CredentialJWT string }
		}
	}
	public.Get("/api/v1/verify/"+code).JSON(t, &v)
	require.True(t, strings.HasSuffix(v.Data.Links.CredentialJSON, "/api/v1/verify/"+c.Data.VerificationCode+"/credential.json"), "links: %q should end with %q", v.Data.Links.CredentialJSON, "/api/v1/verify/"+c.Data.VerificationCode+"/credential.json")
	require.True(t, strings.HasSuffix(v.Data.Links.CredentialJWT, "/credential.jwt"), "links: %q should end with %q", v.Data.Links.CredentialJWT, "/credential.jwt")
	if revoked(t, public, cred, issuer) {
		t.Fatal("a valid certificate's bit is set")
	}
	if res := s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "typo"}); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	if !revoked(t, public, cred, issuer) {
		t.Fatal("the revoked certificate's bit is clear")
	}
	if again := signedCredential(t, public, code, issuer); mustJSON(t, again) != mustJSON(t, cred) {
		t.Fatal("revocation changed the credential itself")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A badge assertion is a signed credential too, and its baked images carry it with
// ?version=3; retiring the badge sets its bit.
func TestBadgeAssertionIsASignedCredentialBakedWithVersion3(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker", "description": "Gave a talk", "criteria": map[string]any{"narrative": "Give a talk."}})
	_, issued := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, "Ada")))
	code := issued.Data[0].VerificationCode
	public := b.env.Client
	issuer := fetchIssuer(t, public, b.acct.ID.String())
	cred := signedCredential(t, public, code, issuer)
	subject := cred["credentialSubject"].(map[string]any)
	achievement := subject["achievement"].(map[string]any)
	identity := subject["identifier"].([]any)[0].(map[string]any)
	require.Equal(t, "Speaker", cred["name"], `credential: cred["name"]`)
	require.Equal(t, "Badge", achievement["achievementType"], `credential: achievement["achievementType"]`)
	require.Equal(t, "Gave a talk", achievement["description"], `credential: achievement["description"]`)
	require.Equal(t, openbadges.RecipientIdentity("ada@example.org", identity["salt"].(string)), identity["identityHash"], `credential: identity["identityHash"]`)
	// The badge changes after issuance: the credential says what was issued.
	if res := b.acct.Client.Put("/api/v1/badges/"+badge.Data.ID, map[string]any{"name": "Keynote speaker"}); res.StatusCode != 200 {
		t.Fatalf("replace: %d %s", res.StatusCode, res.Body)
	}
	if again := signedCredential(t, public, code, issuer); again["name"] != "Speaker" {
		t.Fatalf("after the badge changed: %v", again["name"])
	}

	signed := public.Get("/api/v1/verify/" + code + "/credential.json").Body
	png := public.Get("/api/v1/verify/" + code + "/badge.png?version=3")
	chunks, err := openbadges.UnbakePNG(png.Body, openbadges.PNGKeywordCredential)
	require.Equal(t, 200, png.StatusCode, "badge.png?version=3: status (body %d bytes)", len(png.Body))
	require.NoError(t, err, "badge.png?version=3: unbaking")
	require.Len(t, chunks, 1, "badge.png?version=3: chunks")
	require.Equal(t, string(signed), string(chunks[0]), "badge.png?version=3: string(chunks[0])")
	if old, _ := openbadges.UnbakePNG(png.Body, openbadges.PNGKeywordAssertion); len(old) != 0 {
		t.Fatal("the version 3 image carries the 2.0 assertion too")
	}
	svg := public.Get("/api/v1/verify/" + code + "/badge.svg?version=3")
	_, texts, err := openbadges.UnbakeSVG(svg.Body, openbadges.SVGElementCredential)
	require.Equal(t, 200, svg.StatusCode, "badge.svg?version=3: status (body %d bytes)", len(svg.Body))
	require.NoError(t, err, "badge.svg?version=3: unbaking")
	require.Len(t, texts, 1, "badge.svg?version=3: texts")
	require.Equal(t, string(signed), string(texts[0]), "badge.svg?version=3: string(texts[0])")
	if res := public.Get("/api/v1/verify/" + code + "/badge.png?version=4"); res.StatusCode != 400 {
		t.Fatalf("version 4: %d %s", res.StatusCode, res.Body)
	}

	if revoked(t, public, cred, issuer) {
		t.Fatal("a valid assertion's bit is set")
	}
	if res := b.acct.Client.Delete("/api/v1/badges/" + badge.Data.ID); res.StatusCode != 204 {
		t.Fatalf("retire: %d %s", res.StatusCode, res.Body)
	}
	if !revoked(t, public, cred, issuer) {
		t.Fatal("the retired badge's assertion's bit is clear")
	}
}

// After a key rotation the DID document lists both keys: the credential signed before still
// verifies and keeps its signature; one issued after is signed with the new key; a regenerate
// re-signs with the key active then.
func TestCredentialsVerifyAcrossAKeyRotation(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	public := s.env.Client
	before := s.issue(t, "Ada", "Lovelace", nil)
	oldJSON := public.Get("/api/v1/verify/" + before.Data.VerificationCode + "/credential.json").Body
	oldJWT := public.Get("/api/v1/verify/" + before.Data.VerificationCode + "/credential.jwt").Body

	rotated, err := s.env.Service.Credentials.Rotate(t.Context(), s.acct.ID)
	require.NoError(t, err, "rotate: err")
	require.NotNil(t, rotated.RetiredVerificationMethod, "rotate: rotated.RetiredVerificationMethod")
	issuer := fetchIssuer(t, public, s.acct.ID.String())
	require.Len(t, issuer.did.AssertionMethod, 2, "DID document after the rotation: issuer.did.AssertionMethod")
	require.Equal(t, rotated.VerificationMethod, issuer.did.AssertionMethod[1], "DID document after the rotation: issuer.did.AssertionMethod[1]")
	proof, err := vc.VerifyDataIntegrity(oldJSON, issuer.did.PublicKey)
	require.NoError(t, err, "the credential signed before the rotation: err")
	require.Equal(t, *rotated.RetiredVerificationMethod, proof.VerificationMethod, "the credential signed before the rotation: proof.VerificationMethod")
	if _, err := vc.VerifyJWT(string(oldJWT), issuer.jwks); err != nil {
		t.Fatalf("the JWT signed before the rotation: %v", err)
	}
	if now := public.Get("/api/v1/verify/" + before.Data.VerificationCode + "/credential.json").Body; string(now) != string(oldJSON) {
		t.Fatal("the rotation changed an issued credential")
	}

	after := s.issue(t, "Grace", "Hopper", nil)
	signed := public.Get("/api/v1/verify/" + after.Data.VerificationCode + "/credential.json").Body
	proof, err = vc.VerifyDataIntegrity(signed, issuer.did.PublicKey)
	require.NoError(t, err, "a credential issued after the rotation: err")
	require.Equal(t, rotated.VerificationMethod, proof.VerificationMethod, "a credential issued after the rotation: proof.VerificationMethod")

	if res := s.acct.Client.Post("/api/v1/certificates/"+before.Data.ID+"/regenerate", nil); res.StatusCode != 200 {
		t.Fatalf("regenerate: %d %s", res.StatusCode, res.Body)
	}
	resigned := public.Get("/api/v1/verify/" + before.Data.VerificationCode + "/credential.json").Body
	proof, err = vc.VerifyDataIntegrity(resigned, issuer.did.PublicKey)
	require.NoError(t, err, "the regenerated credential: err")
	require.Equal(t, rotated.VerificationMethod, proof.VerificationMethod, "the regenerated credential: proof.VerificationMethod")
}

// Deleting an issued certificate revokes it: its bit is set.
func TestDeletingAnIssuedCertificateSetsItsBit(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	public := s.env.Client
	c := s.issue(t, "Ada", "Lovelace", nil)
	issuer := fetchIssuer(t, public, s.acct.ID.String())
	cred := signedCredential(t, public, c.Data.VerificationCode, issuer)
	if res := s.acct.Client.Delete("/api/v1/certificates/" + c.Data.ID); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	if !revoked(t, public, cred, issuer) {
		t.Fatal("the deleted certificate's bit is clear")
	}
}

// Each account signs with its own keys into its own lists: another account's DID document does
// not verify its credentials, and a revocation in one account sets no bit in the other's list.
func TestIssuersAreIsolated(t *testing.T) {
	t.Parallel()
	a := newIssuing(t)
	b := newIssuing(t)
	ca, cb := a.issue(t, "Ada", "Lovelace", nil), b.issue(t, "Grace", "Hopper", nil)
	ia, ib := fetchIssuer(t, a.env.Client, a.acct.ID.String()), fetchIssuer(t, b.env.Client, b.acct.ID.String())
	credA := signedCredential(t, a.env.Client, ca.Data.VerificationCode, ia)
	credB := signedCredential(t, b.env.Client, cb.Data.VerificationCode, ib)
	require.NotEqual(t, ib.did.ID, ia.did.ID, "two accounts share an issuer or a key: ia.did.ID")
	require.NotEqual(t, ib.did.AssertionMethod[0], ia.did.AssertionMethod[0], "two accounts share an issuer or a key: ia.did.AssertionMethod[0]")
	signedA := a.env.Client.Get("/api/v1/verify/" + ca.Data.VerificationCode + "/credential.json").Body
	if _, err := vc.VerifyDataIntegrity(signedA, ib.did.PublicKey); err == nil {
		t.Fatal("another account's DID document verifies the credential")
	}
	urlA, _ := statusOf(t, credA)
	urlB, _ := statusOf(t, credB)
	require.NotEqual(t, urlB, urlA, "the two accounts' status lists")
	require.Contains(t, urlA, a.acct.ID.String(), "account A's status list")
	if res := a.acct.Client.Post("/api/v1/certificates/"+ca.Data.ID+"/revoke", map[string]any{}); res.StatusCode != 200 {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	require.False(t, revoked(t, b.env.Client, credB, ib), "a revocation crossed accounts: B's credential is revoked")
	require.True(t, revoked(t, a.env.Client, credA, ia), "A's revoked credential is not")
}

// Drafts, unknown codes, unknown accounts and lists answer 404; malformed input 400.
func TestVerifiableCredentialNotFoundAndBadInput(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	public := s.env.Client
	draft := s.acct.Attendee(t, s.event, "Dora", "Draft", "dora@example.org")
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate", map[string]any{"attendeeIds": []uuid.UUID{draft}, "draft": true})
	var d struct {
		Data struct {
			Issued []struct{ VerificationCode, Status string }
		}
	}
	res.JSON(t, &d)
	require.Len(t, d.Data.Issued, 1, "draft: d.Data.Issued")
	require.Equal(t, "draft", d.Data.Issued[0].Status, "draft: d.Data.Issued[0].Status")
	draftCode := d.Data.Issued[0].VerificationCode
	for path, want := range map[string]int{
		"/api/v1/verify/" + draftCode + "/credential.json":      404,
		"/api/v1/verify/" + draftCode + "/credential.jwt":       404,
		"/api/v1/verify/ZZZZZZZZZZZZZ/credential.json":          404,
		"/api/v1/verify/not_a_code!/credential.json":            400,
		"/issuers/" + uuid.NewString() + "/did.json":            404,
		"/issuers/" + uuid.NewString() + "/jwks.json":           404,
		"/issuers/" + s.acct.ID.String() + "/status/1":          404, // nothing issued yet
		"/issuers/" + s.acct.ID.String() + "/status/0":          400,
		"/issuers/" + s.acct.ID.String() + "/status/4294967297": 400, // would wrap to list 1 in 32 bits
		"/issuers/" + s.acct.ID.String() + "/status/x":          400,
		"/issuers/not-a-uuid/did.json":                          400,
	} {
		if res := public.Get(path); res.StatusCode != want {
			t.Errorf("%s: %d, want %d: %s", path, res.StatusCode, want, res.Body)
		}
	}
}

// The verification page says that the credential is signed and links its two signed forms.
func TestVerificationPageLinksTheSignedCredential(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	res := s.env.Client.Get("/verify/" + c.Data.VerificationCode)
	page := string(res.Body)
	require.Equal(t, 200, res.StatusCode, "page: status\n%s", page)
	require.Contains(t, page, "cryptographically signed", "page")
	require.Contains(t, page, `href="/api/v1/verify/`+c.Data.VerificationCode+`/credential.json"`, "page")
	require.Contains(t, page, `href="/api/v1/verify/`+c.Data.VerificationCode+`/credential.jwt"`, "page")
}
