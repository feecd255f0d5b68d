package store

import (
	"context"
	"errors"
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
	UpdatedAt     *time.Time // nil until first set
}

// FindBranding returns the account's branding; an account that never set it has all fields nil.
func (d queries) FindBranding(ctx context.Context, accountID uuid.UUID) (Branding, error) {
	r, err := d.q.GetBranding(ctx, accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Branding{}, nil
	} else if err != nil {
		return Branding{}, mapError(err)
	}
	return brandingFrom(r), nil
}

// PutBranding replaces the account's branding as a whole, at now.
func (d queries) PutBranding(ctx context.Context, accountID uuid.UUID, b Branding, now time.Time) (Branding, error) {
	r, err := d.q.PutBranding(ctx, db.PutBrandingParams{AccountID: accountID, IssuerName: b.IssuerName,
		Website: b.Website, Logo: b.Logo, PrimaryColor: b.PrimaryColor, EmailFromName: b.EmailFromName,
		EmailReplyTo: b.EmailReplyTo, Now: now})
	if err != nil {
		return Branding{}, mapError(err)
	}
	return brandingFrom(r), nil
}

func brandingFrom(r db.Branding) Branding {
	return Branding{IssuerName: r.IssuerName, Website: r.Website, Logo: r.Logo, PrimaryColor: r.PrimaryColor,
		EmailFromName: r.EmailFromName, EmailReplyTo: r.EmailReplyTo, UpdatedAt: &r.UpdatedAt}
}
