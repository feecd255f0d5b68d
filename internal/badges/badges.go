// Package badges holds the rules of digital badges: creating, changing, retiring and issuing
// them (credits all or nothing, one assertion per attendee and badge), their generated images,
// their Open Badges 2.0 documents and baked images, and what public verification needs of an
// assertion. The service opens the transactions; the store only keeps the data.
package badges

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/store"
)

// Service creates, issues and retires badges.
type Service struct {
	store *store.Store
	links links.Site
	// contactEmail is the service's own address, the Open Badges 2.0 issuer email of an
	// account whose branding sets no publicEmail.
	contactEmail string
	now          func() time.Time
	images       *imageCache
}

// New returns the service. siteURL roots verification links and Open Badges URLs;
// contactEmail is the service's sender address, which stands in for an issuer's public email.
func New(s *store.Store, siteURL, contactEmail string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: s, links: links.New(siteURL), contactEmail: contactEmail, now: now,
		images: newImageCache()}
}

// Badge is a badge as clients see it.
type Badge struct {
	domain.Badge
	// ImageURI is the badge's own image, or the generated one, as a data URI.
	ImageURI string
}

// Create validates f and stores a new active badge in the account.
func (s *Service) Create(ctx context.Context, accountID uuid.UUID, f domain.BadgeFields) (Badge, error) {
	if err := normalize(&f); err != nil {
		return Badge{}, err
	}
	b, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Badge, error) {
		b, err := tx.InsertBadge(ctx, accountID, f, s.now())
		if err == nil {
			audit.Describe(ctx, "badge", b.ID.String(), "")
		}
		return b, err
	})
	if err != nil {
		return Badge{}, err
	}
	return s.view(ctx, s.store, b)
}

// Get returns a badge of the account, active or retired.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (Badge, error) {
	b, err := s.store.FindBadge(ctx, accountID, id)
	if err != nil {
		return Badge{}, noSuchBadge(err)
	}
	return s.view(ctx, s.store, b)
}

// List returns a page of the account's active badges, newest first, and their total.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, p domain.Page) ([]Badge, int, error) {
	list, total, err := s.store.ListActiveBadges(ctx, accountID, p)
	if err != nil {
		return nil, 0, err
	}
	iss, err := issuerOf(ctx, s.store, accountID)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Badge, len(list))
	for i, b := range list {
		if out[i], err = s.viewFor(b, iss); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Replace validates f and replaces the badge's fields with it; a retired badge answers 409.
func (s *Service) Replace(ctx context.Context, accountID, id uuid.UUID, f domain.BadgeFields) (Badge, error) {
	if err := normalize(&f); err != nil {
		return Badge{}, err
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (Badge, error) {
		cur, err := tx.LockBadge(ctx, accountID, id)
		if err != nil {
			return Badge{}, noSuchBadge(err)
		}
		if cur.Status == domain.BadgeRetired {
			return Badge{}, apperr.New(apperr.Conflict, "The badge is retired; a retired badge does not change.")
		}
		b, err := tx.UpdateBadge(ctx, id, f, cur.IssuedCount, now)
		if err != nil {
			return Badge{}, err
		}
		return s.view(ctx, tx, b)
	})
}

// retiredReason and retiredReasonCode are the revocation of the assertions of a retired badge.
const (
	retiredReason     = "The issuer retired this badge."
	retiredReasonCode = "other"
)

// Delete removes a badge that was never issued. A badge that was ever issued is retired
// instead and nothing is erased: it can no longer be issued or changed, and its active
// assertions are revoked (their status list bits set, a badge.revoked event each). Deleting a
// retired badge changes nothing.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	now := s.now().UTC()
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		cur, err := tx.LockBadge(ctx, accountID, id)
		if err != nil {
			return struct{}{}, noSuchBadge(err)
		}
		switch {
		case cur.Status == domain.BadgeRetired:
			return struct{}{}, nil
		case cur.IssuedCount == 0:
			return struct{}{}, tx.DeleteBadge(ctx, id)
		}
		if _, err := tx.RetireBadge(ctx, id, cur.IssuedCount, now); err != nil {
			return struct{}{}, err
		}
		reason := retiredReason
		revoked, err := tx.RevokeAssertionsOfBadge(ctx, id, store.Revocation{At: now, Reason: &reason, ReasonCode: retiredReasonCode})
		if err != nil {
			return struct{}{}, err
		}
		if err := credentials.RevokeBadgeStatus(ctx, tx, id, now); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, outboxAssertions(ctx, tx, "badge.revoked", now, revoked)
	})
	return err
}

func noSuchBadge(err error) error {
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("badge"))
}

// normalize trims the texts, clears blank optional ones, and checks what the contract's schema
// cannot: a name that is not blank, an http(s) criteria URL, tags that are not blank and an
// image whose content is what its data URI says and can carry an assertion.
func normalize(f *domain.BadgeFields) error {
	var details []apperr.Detail
	f.Name = strings.TrimSpace(f.Name)
	if f.Name == "" {
		details = append(details, apperr.Detail{Field: "name", Message: "must not be blank"})
	}
	blankToNil := func(p **string) {
		if *p != nil {
			if v := strings.TrimSpace(**p); v == "" {
				*p = nil
			} else {
				*p = &v
			}
		}
	}
	blankToNil(&f.Description)
	blankToNil(&f.CriteriaNarrative)
	blankToNil(&f.CriteriaURL)
	if f.CriteriaURL != nil {
		if u, err := url.Parse(*f.CriteriaURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			details = append(details, apperr.Detail{Field: "criteria.url", Message: "must be an absolute http(s) URL"})
		}
	}
	tags := make([]string, 0, len(f.Tags))
	for i, t := range f.Tags {
		if t = strings.TrimSpace(t); t == "" {
			details = append(details, apperr.Detail{Field: "tags[" + strconv.Itoa(i) + "]", Message: "must not be blank"})
		}
		tags = append(tags, t)
	}
	f.Tags = tags
	if f.Image != nil {
		if msg := checkImage(*f.Image); msg != "" {
			details = append(details, apperr.Detail{Field: "image", Message: msg})
		}
	}
	if len(details) > 0 {
		return &apperr.Error{Code: apperr.ValidationError, Message: "The badge is not valid.", Details: details}
	}
	return nil
}

// checkImage accepts what a logo may be (a PNG or SVG data URI of at most 256 KiB whose content
// is what it says) when it can also carry an assertion: a PNG of valid chunks, a well-formed
// SVG whose root element is svg.
func checkImage(uri string) string {
	if msg := accounts.CheckImageDataURI(uri); msg != "" {
		return msg
	}
	img, err := decodeImage(uri)
	if err != nil {
		return err.Error()
	}
	if _, err := bake(img, []byte("{}"), "https://example.org/"); err != nil || (img.svg && !wellFormed(img.data)) {
		if img.svg {
			return "is not a well-formed SVG image whose root element is svg"
		}
		return "is not a PNG image made of valid chunks"
	}
	return ""
}

// wellFormed reports whether doc is well-formed XML.
func wellFormed(doc []byte) bool {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	for {
		if _, err := dec.Token(); err == io.EOF {
			return true
		} else if err != nil {
			return false
		}
	}
}
