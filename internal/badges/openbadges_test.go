package badges_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"hash/crc32"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/openbadges"
)

// Deleting a badge that was issued retires it: it leaves the list, still answers, cannot be
// issued or changed, and every assertion is revoked (listed, verified and hosted as revoked).
// A badge never issued is removed.
func TestDeletingRetiresAnIssuedBadgeAndRemovesANeverIssuedOne(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	b := w.badge(t, domain.BadgeFields{Name: "Speaker"})
	unused := w.badge(t, domain.BadgeFields{Name: "Unused"})
	ada := w.attendee(t, "Ada")
	a := w.issue(t, b.ID, ada)[0]

	w.clock.Advance(time.Minute)
	for _, id := range []uuid.UUID{b.ID, unused.ID} {
		if err := w.svc.Delete(ctx, w.account, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.svc.Get(ctx, w.account, unused.ID); err == nil {
		t.Fatal("a never-issued badge survived its deletion")
	}
	got, err := w.svc.Get(ctx, w.account, b.ID)
	if err != nil || got.Status != "retired" || got.RetiredAt == nil || got.IssuedCount != 1 {
		t.Fatalf("retired badge: %+v %v", got, err)
	}
	if list, total, err := w.svc.List(ctx, w.account, domain.Page{Number: 1, Size: 20}); err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("the list holds %d badges (%v)", total, err)
	}
	listed, _, err := w.svc.Assertions(ctx, w.account, b.ID, domain.Page{Number: 1, Size: 20})
	if err != nil || len(listed) != 1 || listed[0].Status != "revoked" || listed[0].RevokedAt == nil {
		t.Fatalf("assertions of the retired badge: %+v %v", listed, err)
	}
	_, err = w.svc.Issue(ctx, badges.IssueParams{AccountID: w.account, BadgeID: b.ID, AttendeeIDs: []uuid.UUID{w.attendee(t, "Late")}})
	wantCode(t, err, apperr.Conflict)
	_, err = w.svc.Replace(ctx, w.account, b.ID, domain.BadgeFields{Name: "Renamed"})
	wantCode(t, err, apperr.Conflict)
	before := w.fingerprint(t)
	if err := w.svc.Delete(ctx, w.account, b.ID); err != nil || w.fingerprint(t) != before {
		t.Fatalf("deleting a retired badge again: %v, or it changed the database", err)
	}

	hosted, err := w.svc.OpenBadgesAssertion(ctx, a.ID)
	if err != nil || hosted.Assertion != nil || hosted.Revoked == nil || !hosted.Revoked.Revoked ||
		hosted.Revoked.ID != site+"/ob/v2/assertions/"+a.ID.String() || hosted.Revoked.RevocationReason == "" {
		t.Fatalf("hosted assertion of a retired badge: %+v %v", hosted, err)
	}
	v, err := w.svc.AssertionByCode(ctx, a.VerificationCode)
	if err != nil || v.Status != "revoked" || v.RevokedAt == nil || v.RevocationReason == nil {
		t.Fatalf("verification of a retired badge's assertion: %+v %v", v, err)
	}
	// The badge class still answers: the assertion names it.
	if _, err := w.svc.OpenBadgesBadgeClass(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
}

// What verification needs of an assertion, found by its code in any case: status (valid, then
// expired), badge, issuer from the branding, recipient's name, dates and the URLs; a
// certificate's code and an unknown one are not badge assertions.
func TestAssertionByCodeShowsWhatVerificationNeeds(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	color, issuerName, website := "#7B1FA2", "Gophers e.V.", "https://gophers.example"
	if _, err := w.st.PutBranding(ctx, w.account, domain.Branding{IssuerName: &issuerName, Website: &website, PrimaryColor: &color}, w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	days, desc := 10, "Gave a talk"
	b := w.badge(t, domain.BadgeFields{Name: "Speaker", Description: &desc, ValidityDays: &days, Tags: []string{"talk"}})
	a := w.issue(t, b.ID, w.attendee(t, "Ada"))[0]

	v, err := w.svc.AssertionByCode(ctx, strings.ToLower(a.VerificationCode))
	if err != nil {
		t.Fatal(err)
	}
	if v.ID != a.ID || v.Status != "valid" || v.BadgeName != "Speaker" || *v.BadgeDescription != desc ||
		v.RecipientName != "Ada Lovelace" || v.Issuer.Name != issuerName || v.Issuer.URL != website ||
		!v.IssuedAt.Equal(a.IssuedAt) || v.ExpiresAt == nil || v.RevokedAt != nil || v.RevocationReason != nil ||
		v.VerificationURL != site+"/verify/"+a.VerificationCode || v.AssertionURL != site+"/ob/v2/assertions/"+a.ID.String() ||
		v.ImagePNGURL != site+"/api/v1/verify/"+a.VerificationCode+"/badge.png" ||
		v.ImageSVGURL != site+"/api/v1/verify/"+a.VerificationCode+"/badge.svg" || v.BadgeImage != b.ImageURI {
		t.Fatalf("view: %+v", v)
	}
	svg, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(v.BadgeImage, "data:image/svg+xml;base64,"))
	if !strings.HasPrefix(v.BadgeImage, "data:image/svg+xml;base64,") || !strings.Contains(string(svg), `fill="#7b1fa2"`) {
		t.Fatalf("the generated image is not in the issuer's colour: %.200s", svg)
	}
	w.clock.Advance(11 * 24 * time.Hour)
	if v, err := w.svc.AssertionByCode(ctx, a.VerificationCode); err != nil || v.Status != "expired" {
		t.Fatalf("after its expiry: %q %v", v.Status, err)
	}
	hosted, err := w.svc.OpenBadgesAssertion(ctx, a.ID)
	if err != nil || hosted.Assertion == nil || hosted.Assertion.Expires == "" {
		t.Fatalf("an expired assertion is still hosted, with its expiry: %+v %v", hosted, err)
	}

	var certCode string
	w.query(t, `INSERT INTO verification_codes (code, kind) VALUES ('CERTCODE00001', 'certificate') RETURNING code`, nil, &certCode)
	for _, code := range []string{certCode, "NOSUCHCODE000"} {
		_, err := w.svc.AssertionByCode(ctx, code)
		wantCode(t, err, apperr.NotFound)
		_, err = w.svc.BakedPNG(ctx, code)
		wantCode(t, err, apperr.NotFound)
	}
}

// pngChunks lists a PNG's chunks (type and data), checking the framing as it goes.
func pngChunks(t *testing.T, img []byte) [][2]string {
	t.Helper()
	if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatal("not a PNG")
	}
	var out [][2]string
	for rest := img[8:]; len(rest) >= 12; {
		n := binary.BigEndian.Uint32(rest)
		typ, data := string(rest[4:8]), rest[8:8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			t.Fatalf("chunk %s fails its CRC", typ)
		}
		out = append(out, [2]string{typ, string(data)})
		rest = rest[12+n:]
	}
	return out
}

// checkBakedAssertion reads the assertion baked into an image: its id is the assertion's URL,
// and its recipient is the email hashed with the assertion's salt, as an independent SHA-256
// computes it.
func checkBakedAssertion(t *testing.T, text []byte, a badges.Issued, email string) {
	t.Helper()
	var doc struct {
		Context   string `json:"@context"`
		Type, ID  string
		Badge     string
		Recipient struct {
			Type     string
			Hashed   bool
			Salt     string
			Identity string
		}
		Verification struct{ Type string }
		Image        string
	}
	if err := json.Unmarshal(text, &doc); err != nil {
		t.Fatalf("baked text %q: %v", text, err)
	}
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email)) + a.RecipientSalt))
	if doc.Context != "https://w3id.org/openbadges/v2" || doc.Type != "Assertion" ||
		doc.ID != site+"/ob/v2/assertions/"+a.ID.String() || doc.Badge != site+"/ob/v2/badges/"+a.BadgeID.String() ||
		doc.Recipient.Type != "email" || !doc.Recipient.Hashed || doc.Recipient.Salt != a.RecipientSalt ||
		doc.Recipient.Identity != "sha256$"+hex.EncodeToString(sum[:]) || doc.Verification.Type != "hosted" ||
		doc.Image != site+"/api/v1/verify/"+a.VerificationCode+"/badge.png" {
		t.Fatalf("baked assertion: %+v", doc)
	}
}

// The baked PNG carries exactly one iTXt chunk, keyword openbadges, uncompressed, holding the
// assertion; the baked SVG one <openbadges:assertion> whose verify is the assertion's URL. So
// for a generated image, the badge's own PNG and its own SVG.
func TestBakedImagesCarryTheirAssertion(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	ownPNG := pngOf(t, 40, 30)
	ownSVG := `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>`
	for name, image := range map[string]*string{
		"generated": nil,
		"own PNG":   ptr("data:image/png;base64," + base64.StdEncoding.EncodeToString(ownPNG)),
		"own SVG":   ptr("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(ownSVG))),
	} {
		t.Run(name, func(t *testing.T) {
			b := w.badge(t, domain.BadgeFields{Name: "Speaker " + name, Image: image})
			a := w.issue(t, b.ID, w.attendee(t, strings.ReplaceAll(name, " ", "")))[0]
			email := strings.ReplaceAll(name, " ", "") + "@example.org"

			img, err := w.svc.BakedPNG(ctx, a.VerificationCode)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(bytes.NewReader(img)); err != nil {
				t.Fatalf("the baked PNG does not decode: %v", err)
			}
			var texts []string
			for _, c := range pngChunks(t, img) {
				if c[0] == "iTXt" || c[0] == "tEXt" || c[0] == "zTXt" {
					texts = append(texts, c[0]+":"+c[1])
				}
			}
			if len(texts) != 1 || !strings.HasPrefix(texts[0], "iTXt:openbadges\x00\x00\x00\x00\x00") {
				t.Fatalf("text chunks: %q", texts)
			}
			checkBakedAssertion(t, []byte(strings.TrimPrefix(texts[0], "iTXt:openbadges\x00\x00\x00\x00\x00")), a, email)
			if name == "own PNG" && !bytes.Contains(img, ownPNG[8:len(ownPNG)-12]) {
				t.Fatal("the badge's own PNG was not the one baked")
			}

			svg, err := w.svc.BakedSVG(ctx, a.VerificationCode)
			if err != nil {
				t.Fatal(err)
			}
			verify, baked, err := openbadges.UnbakeSVG(svg, openbadges.SVGElementAssertion)
			if err != nil || len(baked) != 1 || verify[0] != site+"/ob/v2/assertions/"+a.ID.String() {
				t.Fatalf("baked SVG: verify %q, %d assertions, %v", verify, len(baked), err)
			}
			checkBakedAssertion(t, baked[0], a, email)
			var root struct{ XMLName xml.Name }
			if err := xml.Unmarshal(svg, &root); err != nil || root.XMLName.Local != "svg" {
				t.Fatalf("the baked SVG is not an SVG: %v", err)
			}
		})
	}
}

// The hosted documents: the assertion while it is in force, the badge class with what the badge
// says, and the issuer profile of an account that has badges (another is not found).
func TestOpenBadgesDocuments(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	if _, err := w.svc.OpenBadgesIssuer(ctx, w.account); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("an account without badges has a profile: %v", err)
	}
	narrative, criteria := "Gave a talk", "https://example.org/criteria"
	b := w.badge(t, domain.BadgeFields{Name: "Speaker", CriteriaNarrative: &narrative, CriteriaURL: &criteria, Tags: []string{"talk", "2026"}})
	a := w.issue(t, b.ID, w.attendee(t, "Ada"))[0]

	hosted, err := w.svc.OpenBadgesAssertion(ctx, a.ID)
	if err != nil || hosted.Revoked != nil || hosted.Assertion == nil {
		t.Fatalf("%+v %v", hosted, err)
	}
	text, _ := json.Marshal(hosted.Assertion)
	checkBakedAssertion(t, text, a, "ada@example.org")

	class, err := w.svc.OpenBadgesBadgeClass(ctx, b.ID)
	if err != nil || class.ID != site+"/ob/v2/badges/"+b.ID.String() || class.Name != "Speaker" || class.Type != "BadgeClass" ||
		class.Criteria.Narrative != narrative || class.Criteria.ID != criteria || class.Image != b.ImageURI ||
		class.Issuer != site+"/ob/v2/issuers/"+w.account.String() || strings.Join(class.Tags, ",") != "talk,2026" {
		t.Fatalf("badge class: %+v %v", class, err)
	}
	iss, err := w.svc.OpenBadgesIssuer(ctx, w.account)
	if err != nil || iss.Name != "Analytical Society" || iss.ID != class.Issuer || iss.Type != "Issuer" ||
		iss.URL != site || iss.Email != "no-reply@certs.example.org" {
		t.Fatalf("issuer: %+v %v", iss, err)
	}
	if _, err := w.svc.OpenBadgesAssertion(ctx, uuid.New()); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("an unknown assertion: %v", err)
	}
}
