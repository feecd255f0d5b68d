package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"

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
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/did+json" ||
		res.Header.Get("Cache-Control") != "public, max-age=300" || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("did.json: %d %v %s", res.StatusCode, res.Header, res.Body)
	}
	res.JSON(t, &d.did)
	res = c.Get("/issuers/" + accountID + "/jwks.json")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("jwks.json: %d %s", res.StatusCode, res.Body)
	}
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
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/vc" || res.Header.Get("ETag") == "" ||
		res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("credential.json: %d %v %s", res.StatusCode, res.Header, res.Body)
	}
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
	if jwt.StatusCode != 200 || jwt.Header.Get("Content-Type") != "application/vc+jwt" {
		t.Fatalf("credential.jwt: %d %s", jwt.StatusCode, jwt.Body)
	}
	payload, err := vc.VerifyJWT(string(jwt.Body), issuer.jwks)
	if err != nil {
		t.Fatalf("credential.jwt does not verify: %v", err)
	}
	var fromJWT map[string]any
	if err := json.Unmarshal(payload, &fromJWT); err != nil {
		t.Fatal(err)
	}
	delete(cred, "proof")
	a, _ := json.Marshal(cred)
	b, _ := json.Marshal(fromJWT)
	if string(a) != string(b) {
		t.Fatalf("the JWT says\n%s\nthe JSON\n%s", b, a)
	}
	return cred
}

func withHeader(r *http.Request, name, value string) *http.Request {
	r.Header.Set(name, value)
	return r
}

// revokedBits fetches a status list, checks its proof, and returns the list.
func statusListOf(t *testing.T, c *contract.Client, url string, issuer issuerDocs) *vc.StatusList {
	t.Helper()
	path := url[strings.Index(url, "/issuers/"):]
	res := c.Get(path)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/vc" || res.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("status list: %d %v %s", res.StatusCode, res.Header, res.Body)
	}
	if _, err := vc.VerifyDataIntegrity(res.Body, issuer.did.PublicKey); err != nil {
		t.Fatalf("status list does not verify: %v", err)
	}
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
	if cred["name"] != "Go Conference" || cred["id"] != "urn:uuid:"+c.Data.ID || cred["validUntil"] == nil {
		t.Fatalf("credential: %v", cred)
	}
	if strings.Contains(mustJSON(t, cred), "@example.org") {
		t.Fatal("the credential shows the recipient's email")
	}
	var v struct {
		Data struct {
			Links struct{ CredentialJSON, CredentialJWT string }
		}
	}
	public.Get("/api/v1/verify/" + code).JSON(t, &v)
	if !strings.HasSuffix(v.Data.Links.CredentialJSON, "/api/v1/verify/"+c.Data.VerificationCode+"/credential.json") ||
		!strings.HasSuffix(v.Data.Links.CredentialJWT, "/credential.jwt") {
		t.Fatalf("links: %+v", v.Data.Links)
	}
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
	if cred["name"] != "Speaker" || achievement["achievementType"] != "Badge" || achievement["description"] != "Gave a talk" ||
		identity["identityHash"] != openbadges.RecipientIdentity("ada@example.org", identity["salt"].(string)) {
		t.Fatalf("credential: %v", cred)
	}
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
	if png.StatusCode != 200 || err != nil || len(chunks) != 1 || string(chunks[0]) != string(signed) {
		t.Fatalf("badge.png?version=3: %d, %d chunks (%v)", png.StatusCode, len(chunks), err)
	}
	if old, _ := openbadges.UnbakePNG(png.Body, openbadges.PNGKeywordAssertion); len(old) != 0 {
		t.Fatal("the version 3 image carries the 2.0 assertion too")
	}
	svg := public.Get("/api/v1/verify/" + code + "/badge.svg?version=3")
	_, texts, err := openbadges.UnbakeSVG(svg.Body, openbadges.SVGElementCredential)
	if svg.StatusCode != 200 || err != nil || len(texts) != 1 || string(texts[0]) != string(signed) {
		t.Fatalf("badge.svg?version=3: %d, %d texts (%v)", svg.StatusCode, len(texts), err)
	}
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
