package badges

import (
	"cmp"
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/openbadges"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// Every assertion is published as Open Badges 2.0, verified by hosting: its Assertion, its
// badge's BadgeClass and the account's Issuer Profile live at the site root under /ob/v2/
// (links.Site.OpenBadgesAssertion and its siblings), and each document's id is its own URL.
// The baked images carry the same Assertion.

// HostedAssertion is what an assertion's URL answers: the Assertion while it is in force
// (valid, or expired: verifiers read expires), or, once it is revoked or its badge retired,
// the revocation (answered with 410 Gone). Exactly one is set.
type HostedAssertion struct {
	Assertion *openbadges.Assertion
	Revoked   *openbadges.RevokedAssertion
}

// OpenBadgesAssertion returns the hosted Open Badges 2.0 document of an assertion of any
// account.
func (s *Service) OpenBadgesAssertion(ctx context.Context, id uuid.UUID) (HostedAssertion, error) {
	ab, err := s.store.FindBadgeAssertion(ctx, id)
	if err != nil {
		return HostedAssertion{}, noSuchAssertion(err)
	}
	a, b := ab.Assertion, ab.Badge
	if a.StatusAt(b, s.now()) == domain.AssertionRevoked {
		return HostedAssertion{Revoked: &openbadges.RevokedAssertion{Context: openbadges.Context, ID: s.links.OpenBadgesAssertion(a.ID),
			Revoked: true, RevocationReason: revocationReason(a)}}, nil
	}
	doc := s.hostedAssertion(a)
	return HostedAssertion{Assertion: &doc}, nil
}

func (s *Service) hostedAssertion(a domain.BadgeAssertion) openbadges.Assertion {
	return openbadges.NewAssertion(s.links.OpenBadgesAssertion(a.ID), s.links.OpenBadgesBadgeClass(a.BadgeID), a.Recipient.Email, a.RecipientSalt,
		s.links.BakedBadge(a.VerificationCode, "png"), a.IssuedAt, a.ExpiresAt)
}

// revocationReason is why a revoked assertion is revoked: the reason it was revoked with
// ("" when none was given), or its badge's retirement.
func revocationReason(a domain.BadgeAssertion) string {
	if a.Revoked {
		return store.Deref(a.RevocationReason)
	}
	return retiredReason
}

// OpenBadgesBadgeClass returns the Open Badges 2.0 BadgeClass of a badge of any account,
// active or retired (the assertions issued from a retired badge still name it).
func (s *Service) OpenBadgesBadgeClass(ctx context.Context, id uuid.UUID) (openbadges.BadgeClass, error) {
	b, err := s.store.FindBadgeByID(ctx, id)
	if err != nil {
		return openbadges.BadgeClass{}, noSuchBadge(err)
	}
	iss, err := issuerOf(ctx, s.store, b.AccountID)
	if err != nil {
		return openbadges.BadgeClass{}, err
	}
	v, err := s.viewFor(b, iss)
	if err != nil {
		return openbadges.BadgeClass{}, err
	}
	return openbadges.BadgeClass{Context: openbadges.Context, Type: "BadgeClass", ID: s.links.OpenBadgesBadgeClass(b.ID), Name: b.Name,
		Description: cmp.Or(store.Deref(b.Description), credentials.BadgeDescription(locale.Default, b.Name, iss.Name)), Image: v.ImageURI,
		Criteria: criteriaOf(b, iss.Name),
		Issuer:   s.links.OpenBadgesIssuer(b.AccountID), Tags: b.Tags}, nil
}

// criteriaOf is a BadgeClass's criteria: its URL and narrative, or, when the badge states
// neither, the generated narrative its credentials carry too. A BadgeClass is one document for
// the assertions of every event the badge is issued at, so its generated words are English;
// each assertion's credential says them in its own language.
func criteriaOf(b domain.Badge, issuerName string) openbadges.Criteria {
	c := openbadges.Criteria{ID: store.Deref(b.CriteriaURL), Narrative: store.Deref(b.CriteriaNarrative)}
	if c.ID == "" && c.Narrative == "" {
		c.Narrative = credentials.BadgeNarrative(locale.Default, b.Name, issuerName)
	}
	return c
}

// OpenBadgesIssuer returns the Open Badges 2.0 Issuer Profile of an account that has badges;
// any other account is not found, so that the profile publishes nobody who issues no badge.
// Open Badges 2.0 requires a url and an email: the branding's website and publicEmail, else
// the service's own address and sender address.
func (s *Service) OpenBadgesIssuer(ctx context.Context, accountID uuid.UUID) (openbadges.Issuer, error) {
	ok, err := s.store.AccountHasBadges(ctx, accountID)
	if err != nil {
		return openbadges.Issuer{}, err
	}
	if !ok {
		return openbadges.Issuer{}, apperr.NoSuch("issuer")
	}
	iss, err := issuerOf(ctx, s.store, accountID)
	if err != nil {
		return openbadges.Issuer{}, err
	}
	return openbadges.Issuer{Context: openbadges.Context, Type: "Issuer", ID: s.links.OpenBadgesIssuer(accountID), Name: iss.Name,
		URL: cmp.Or(iss.URL, s.links.Root()), Email: cmp.Or(iss.PublicEmail, s.contactEmail), Image: iss.Logo}, nil
}

// AssertionView is what public verification shows of a badge assertion, found by its code.
type AssertionView struct {
	ID, BadgeID, AccountID uuid.UUID
	AttendeeID             uuid.UUID
	EventID                uuid.UUID // the attendee's event
	VerificationCode       string
	VerificationURL        string // {site}/verify/{code}, the human page
	// Status is verification's: valid, expired (ExpiresAt passed) or revoked (the assertion
	// revoked, or its badge retired).
	Status           string
	BadgeName        string
	BadgeDescription *string
	// BadgeImage is the badge's image as a data URI (its own, or the generated one); the same
	// picture with the assertion baked in is BakedPNG / BakedSVG, at ImagePNGURL / ImageSVGURL.
	BadgeImage           string
	CriteriaNarrative    *string
	CriteriaURL          *string
	Tags                 []string
	Issuer               IssuerView
	RecipientName        string // the whole name as render.FullName writes it; the email is never shown publicly
	RecipientFirstName   string // the given name, for greetings
	Locale               string // the assertion's language, its attendee's event's when issued
	IssuedAt             time.Time
	ExpiresAt            *time.Time
	RevokedAt            *time.Time // set when revoked, with RevocationReason and its code
	RevocationReason     *string
	RevocationReasonCode *string
	AssertionURL         string // the hosted Open Badges 2.0 Assertion
	ImagePNGURL          string
	ImageSVGURL          string
}

// IssuerView is the issuer as verification shows it (from the account's branding).
type IssuerView struct {
	Name string // branding issuerName, else the account's name
	URL  string // branding website, or ""
	Logo string // branding logo as a data URI, or ""
	// Color is the branding's primaryColor, or "".
	Color string
}

// AssertionByCode returns what public verification shows of the badge assertion a
// verification code names, in any letter case. A code of no badge assertion (a certificate's
// included) is NOT_FOUND.
func (s *Service) AssertionByCode(ctx context.Context, code string) (AssertionView, error) {
	ab, iss, err := s.byCode(ctx, code)
	if err != nil {
		return AssertionView{}, err
	}
	a, b := ab.Assertion, ab.Badge
	v, err := s.viewFor(b, iss)
	if err != nil {
		return AssertionView{}, err
	}
	status := string(a.StatusAt(b, s.now()))
	if status == string(domain.AssertionActive) {
		status = "valid" // verification's word, as for certificates
	}
	out := AssertionView{ID: a.ID, BadgeID: b.ID, AccountID: a.AccountID, AttendeeID: a.AttendeeID, EventID: ab.EventID, VerificationCode: a.VerificationCode,
		VerificationURL: s.links.Verification(a.VerificationCode), Status: status, BadgeName: b.Name,
		BadgeDescription: b.Description, BadgeImage: v.ImageURI, CriteriaNarrative: b.CriteriaNarrative,
		CriteriaURL: b.CriteriaURL, Tags: b.Tags, Issuer: IssuerView{Name: iss.Name, URL: iss.URL, Logo: iss.Logo, Color: iss.Color},
		RecipientName: render.FullName(a.Recipient.FirstName, a.Recipient.LastName), RecipientFirstName: a.Recipient.FirstName,
		IssuedAt: a.IssuedAt, Locale: a.Locale,
		ExpiresAt: a.ExpiresAt, AssertionURL: s.links.OpenBadgesAssertion(a.ID),
		ImagePNGURL: s.links.BakedBadge(a.VerificationCode, "png"), ImageSVGURL: s.links.BakedBadge(a.VerificationCode, "svg")}
	if status != "revoked" {
		return out, nil
	}
	reasonCode := cmp.Or(store.Deref(a.RevocationReasonCode), retiredReasonCode)
	out.RevocationReasonCode = &reasonCode
	if reason := revocationReason(a); reason != "" {
		out.RevocationReason = &reason
	}
	out.RevokedAt = a.RevokedAt
	if out.RevokedAt == nil {
		out.RevokedAt = b.RetiredAt
	}
	return out, nil
}

// BakedPNG returns the badge image of the assertion a verification code names as a PNG with
// its Open Badges 2.0 Assertion in one uncompressed iTXt chunk, keyword openbadges: the
// badge's own PNG, its own SVG rasterised, or the generated image. A revoked assertion's image
// is baked too: its Assertion's URL says it is revoked.
func (s *Service) BakedPNG(ctx context.Context, code string) ([]byte, error) {
	ab, iss, err := s.byCode(ctx, code)
	if err != nil {
		return nil, err
	}
	img, err := s.pngOf(ab.Badge, iss)
	if err != nil {
		return nil, err
	}
	return s.bakeAssertion(picture{data: img}, ab.Assertion)
}

// BakedSVG returns the badge image of the assertion a verification code names as an SVG with
// its Open Badges 2.0 Assertion in <openbadges:assertion verify="<assertion URL>">: the
// badge's own SVG, its own PNG inside an SVG, or the generated image.
func (s *Service) BakedSVG(ctx context.Context, code string) ([]byte, error) {
	ab, iss, err := s.byCode(ctx, code)
	if err != nil {
		return nil, err
	}
	img, err := s.svgOf(ab.Badge, iss)
	if err != nil {
		return nil, err
	}
	return s.bakeAssertion(picture{data: img, svg: true}, ab.Assertion)
}

func (s *Service) bakeAssertion(pic picture, a domain.BadgeAssertion) ([]byte, error) {
	doc, err := json.Marshal(s.hostedAssertion(a))
	if err != nil {
		return nil, err
	}
	return bake(pic, doc, s.links.OpenBadgesAssertion(a.ID))
}

func (s *Service) byCode(ctx context.Context, code string) (store.AssertionOfBadge, issuer, error) {
	ab, err := s.store.FindBadgeAssertionByCode(ctx, code)
	if err != nil {
		return store.AssertionOfBadge{}, issuer{}, noSuchAssertion(err)
	}
	iss, err := issuerOf(ctx, s.store, ab.Assertion.AccountID)
	return ab, iss, err
}

func noSuchAssertion(err error) error {
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("badge assertion"))
}

// BakedCredential returns the badge image of the assertion a verification code names, a PNG
// or (svg) an SVG, with credential baked in: its signed Open Badges 3.0 credential, in one
// uncompressed iTXt chunk openbadgecredential, or in <openbadges:credential>.
func (s *Service) BakedCredential(ctx context.Context, code string, svg bool, credential []byte) ([]byte, error) {
	ab, iss, err := s.byCode(ctx, code)
	if err != nil {
		return nil, err
	}
	if svg {
		img, err := s.svgOf(ab.Badge, iss)
		if err != nil {
			return nil, err
		}
		return openbadges.BakeSVG(img, openbadges.SVGElementCredential, "", credential)
	}
	img, err := s.pngOf(ab.Badge, iss)
	if err != nil {
		return nil, err
	}
	return openbadges.BakePNG(img, openbadges.PNGKeywordCredential, credential)
}
