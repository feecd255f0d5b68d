package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
)

// Branding is how an account presents itself on credentials, pages and emails. Nil fields are
// unset.
type Branding struct {
	IssuerName    *string
	Website       *string
	Logo          *string
	PrimaryColor  *string
	EmailFromName *string
	EmailReplyTo  *string
	// PublicEmail is the issuer's public contact address (Open Badges 2.0 Issuer email).
	PublicEmail *string
	// Signatories sign the account's certificates, in order (at most two); never nil when
	// read.
	Signatories []Signatory
	UpdatedAt   *time.Time // nil until first set
}

// Signatory is a person who signs an account's certificates, kept as one element of the
// branding's jsonb array.
type Signatory struct {
	Name           string  `json:"name"`
	Title          string  `json:"title,omitempty"`
	SignatureImage *string `json:"signatureImage,omitempty"` // data URI, or nil
}

// FindBranding returns the account's branding; an account that never set it has all fields nil and
// no signatories.
func (d queries) FindBranding(ctx context.Context, accountID uuid.UUID) (Branding, error) {
	r, err := d.q.GetBranding(ctx, accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Branding{Signatories: []Signatory{}}, nil
	} else if err != nil {
		return Branding{}, mapError(err)
	}
	return brandingFrom(r)
}

// PutBranding replaces the account's branding as a whole, at now.
func (d queries) PutBranding(ctx context.Context, accountID uuid.UUID, b Branding, now time.Time) (Branding, error) {
	signatories, err := json.Marshal(b.Signatories)
	if err != nil {
		return Branding{}, err
	}
	if b.Signatories == nil {
		signatories = []byte("[]")
	}
	r, err := d.q.PutBranding(ctx, db.PutBrandingParams{AccountID: accountID, IssuerName: b.IssuerName,
		Website: b.Website, Logo: b.Logo, PrimaryColor: b.PrimaryColor, EmailFromName: b.EmailFromName,
		EmailReplyTo: b.EmailReplyTo, PublicEmail: b.PublicEmail, Signatories: signatories, Now: now})
	if err != nil {
		return Branding{}, mapError(err)
	}
	return brandingFrom(r)
}

func brandingFrom(r db.Branding) (Branding, error) {
	b := Branding{IssuerName: r.IssuerName, Website: r.Website, Logo: r.Logo, PrimaryColor: r.PrimaryColor,
		EmailFromName: r.EmailFromName, EmailReplyTo: r.EmailReplyTo, PublicEmail: r.PublicEmail, Signatories: []Signatory{},
		UpdatedAt: &r.UpdatedAt}
	if err := json.Unmarshal(r.Signatories, &b.Signatories); err != nil {
		return Branding{}, fmt.Errorf("store: branding of account %s: signatories: %w", r.AccountID, err)
	}
	return b, nil
}
