package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
)

// Credential kinds of the verification code registry.
const (
	KindCertificate    = "certificate"
	KindBadgeAssertion = "badge_assertion"
)

// VerificationRecord is what the registry holds behind a verification code: its kind and the
// credential of that kind (only certificates are read so far).
type VerificationRecord struct {
	Kind        string
	Certificate *VerifiedCertificate
}

// VerifiedCertificate is what public verification reads of a certificate. Status is the
// stored one (draft, issued, expired, revoked): what it means at a given time is the
// service's rule.
type VerifiedCertificate struct {
	ID, AccountID, EventID, AttendeeID uuid.UUID
	Code                               string
	Number                             string
	Status                             string
	FirstName, LastName                string
	// The event as the certificate's snapshot holds it.
	EventName        string
	EventDate        *time.Time
	EventLocation    string
	Locale           string // the event's, frozen in the snapshot; en for older certificates
	IssuedAt         *time.Time
	ExpiresAt        *time.Time
	RevokedAt        *time.Time
	RevocationReason *string
	ReasonCode       *string
	// RecipientTokenHash is the SHA-256 of the token in the delivery email's link.
	RecipientTokenHash []byte
	// ViewedBefore: the recipient opened the page before; VerifiedBefore: someone verified it.
	ViewedBefore, VerifiedBefore bool
	UpdatedAt                    time.Time
	Issuer                       PublicIssuer
}

// PublicIssuer is the issuer as its branding shows it now (the account's name when the
// branding has none).
type PublicIssuer struct {
	Name    string
	Website *string
	Color   *string
	HasLogo bool
}

// LookupVerificationCode reads the credential behind code (upper case, as stored). A
// certificate is read in one round trip; a code of another kind only says its kind so far.
// An unknown code is ErrNotFound.
func (d queries) LookupVerificationCode(ctx context.Context, code string) (VerificationRecord, error) {
	r, err := d.q.LookupCertificateByCode(ctx, code)
	if errors.Is(err, pgx.ErrNoRows) {
		kind, err := d.q.VerificationCodeKind(ctx, code)
		if errors.Is(err, pgx.ErrNoRows) {
			return VerificationRecord{}, fmt.Errorf("verification code %s: %w", code, ErrNotFound)
		}
		return VerificationRecord{Kind: kind}, mapError(err)
	} else if err != nil {
		return VerificationRecord{}, mapError(err)
	}
	c := &VerifiedCertificate{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, AttendeeID: r.AttendeeID,
		Code: code, Number: r.CertificateNumber, Status: r.Status, FirstName: r.RecipientFirstName, LastName: r.RecipientLastName,
		EventName: r.EventName, EventLocation: r.EventLocation, Locale: r.EventLocale,
		IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt,
		RevocationReason: r.RevocationReason, ReasonCode: r.RevocationReasonCode,
		RecipientTokenHash: r.RecipientTokenHash, ViewedBefore: r.ViewedBefore, VerifiedBefore: r.VerifiedBefore,
		UpdatedAt: r.UpdatedAt,
		Issuer:    PublicIssuer{Name: r.IssuerName, Website: r.IssuerWebsite, Color: r.IssuerColor, HasLogo: r.IssuerHasLogo}}
	if d, err := time.Parse(time.RFC3339, r.EventDate); err == nil {
		c.EventDate = &d
	}
	return VerificationRecord{Kind: KindCertificate, Certificate: c}, nil
}

// IssuerLogo returns the account's logo as stored (a data URI); none is ErrNotFound.
func (d queries) IssuerLogo(ctx context.Context, accountID uuid.UUID) (string, error) {
	logo, err := d.q.GetIssuerLogo(ctx, accountID)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && logo == nil) {
		return "", fmt.Errorf("logo of account %s: %w", accountID, ErrNotFound)
	} else if err != nil {
		return "", mapError(err)
	}
	return *logo, nil
}

// MarkCertificateViewed records the recipient's first open of the certificate's page at at.
// It reports false when a first open was recorded before.
func (d queries) MarkCertificateViewed(ctx context.Context, id uuid.UUID, at time.Time) (bool, error) {
	n, err := d.q.MarkCertificateViewed(ctx, db.MarkCertificateViewedParams{ID: id, ViewedAt: &at})
	return n == 1, mapError(err)
}

// DailyActivity is one row of daily counters: an account's credentials of one kind, issued
// for one event, on one day (UTC). AddVerificationActivity writes the public activity's four;
// Issued and IssuedVerified are written by issuances (IssuancePlan.Counts) and by first verifications.
type DailyActivity struct {
	AccountID      uuid.UUID
	Day            time.Time
	EventID        uuid.UUID
	CredentialKind string
	Views          int
	Verifications  int
	Downloads      int
	Shares         int
	Issued         int
	IssuedVerified int
}

// FirstVerification is the time a credential was first verified.
type FirstVerification struct {
	Kind string
	ID   uuid.UUID
	At   time.Time
}

// AddVerificationActivity adds a batch of counters and records first verifications (an
// earlier one stays), each first verification adding one to the credentials verified of its
// issue day, in one statement whatever the batch's size.
func (d queries) AddVerificationActivity(ctx context.Context, days []DailyActivity, firsts []FirstVerification) error {
	var p db.AddVerificationActivityParams
	for _, d := range days {
		p.AccountIds = append(p.AccountIds, d.AccountID)
		p.Days = append(p.Days, d.Day)
		p.EventIds = append(p.EventIds, d.EventID)
		p.Kinds = append(p.Kinds, d.CredentialKind)
		p.Views = append(p.Views, int32(d.Views))
		p.Verifications = append(p.Verifications, int32(d.Verifications))
		p.Downloads = append(p.Downloads, int32(d.Downloads))
		p.Shares = append(p.Shares, int32(d.Shares))
	}
	for _, f := range firsts {
		p.FirstKinds = append(p.FirstKinds, f.Kind)
		p.FirstIds = append(p.FirstIds, f.ID)
		p.FirstAts = append(p.FirstAts, f.At)
	}
	if len(days) == 0 && len(firsts) == 0 {
		return nil
	}
	return mapError(d.q.AddVerificationActivity(ctx, p))
}

// VerificationActivity returns the account's counters, oldest day first.
func (d queries) VerificationActivity(ctx context.Context, accountID uuid.UUID) ([]DailyActivity, error) {
	rows, err := d.q.VerificationActivity(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.AnalyticsDaily) DailyActivity {
		return DailyActivity{AccountID: r.AccountID, Day: r.Day, EventID: r.EventID, CredentialKind: r.CredentialKind,
			Views: int(r.Views), Verifications: int(r.Verifications), Downloads: int(r.Downloads), Shares: int(r.Shares),
			Issued: int(r.Issued), IssuedVerified: int(r.IssuedVerified)}
	}), nil
}
