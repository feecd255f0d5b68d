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
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// FindBranding returns the account's branding; an account that never set it has all fields nil and
// no signatories.
func (d queries) FindBranding(ctx context.Context, accountID uuid.UUID) (domain.Branding, error) {
	r, err := d.q.GetBranding(ctx, accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Branding{Signatories: []domain.Signatory{}}, nil
	} else if err != nil {
		return domain.Branding{}, mapError(err)
	}
	return brandingFrom(r)
}

// PutBranding replaces the account's branding as a whole, at now.
func (d queries) PutBranding(ctx context.Context, accountID uuid.UUID, b domain.Branding, now time.Time) (domain.Branding, error) {
	signatories, err := json.Marshal(b.Signatories)
	if err != nil {
		return domain.Branding{}, err
	}
	if b.Signatories == nil {
		signatories = []byte("[]")
	}
	r, err := d.q.PutBranding(ctx, db.PutBrandingParams{AccountID: accountID, IssuerName: b.IssuerName,
		Website: b.Website, Logo: b.Logo, PrimaryColor: b.PrimaryColor, EmailFromName: b.EmailFromName,
		EmailReplyTo: b.EmailReplyTo, PublicEmail: b.PublicEmail, Signatories: signatories, DefaultLocale: b.DefaultLocale, Now: now})
	if err != nil {
		return domain.Branding{}, mapError(err)
	}
	d.changed(changefeed.Change{Account: accountID})
	return brandingFrom(r)
}

func brandingFrom(r db.Branding) (domain.Branding, error) {
	b := domain.Branding{IssuerName: r.IssuerName, Website: r.Website, Logo: r.Logo, PrimaryColor: r.PrimaryColor,
		EmailFromName: r.EmailFromName, EmailReplyTo: r.EmailReplyTo, PublicEmail: r.PublicEmail, Signatories: []domain.Signatory{},
		DefaultLocale: r.DefaultLocale, UpdatedAt: &r.UpdatedAt}
	if err := json.Unmarshal(r.Signatories, &b.Signatories); err != nil {
		return domain.Branding{}, fmt.Errorf("store: branding of account %s: signatories: %w", r.AccountID, err)
	}
	return b, nil
}
