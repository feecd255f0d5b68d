package certificates

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/store"
)

// Credits are an account's figures for one month.
type Credits struct {
	Plan      string
	Period    time.Time // first day of the month, UTC
	Limit     *int      // nil: unlimited
	Used      int
	Remaining *int // nil: unlimited
	ResetsAt  time.Time
}

// Credits returns the account's credit figures for this month.
func (s *Service) Credits(ctx context.Context, accountID uuid.UUID) (Credits, error) {
	return CreditsOf(ctx, s.store, accountID, s.now())
}

// CreditReader reads an account's credit usage: a *store.Store, or a *store.Tx.
type CreditReader interface {
	CreditUsage(ctx context.Context, accountID uuid.UUID, period time.Time) (store.CreditUsage, error)
}

// CreditsOf returns the account's credit figures for the month of now. Credits renew on the
// first day of each month, UTC.
func CreditsOf(ctx context.Context, r CreditReader, accountID uuid.UUID, now time.Time) (Credits, error) {
	period := CreditPeriod(now)
	u, err := r.CreditUsage(ctx, accountID, period)
	if err != nil {
		return Credits{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("account"))
	}
	c := Credits{Plan: u.Plan, Period: period, Limit: u.Limit, Used: u.Used, ResetsAt: period.AddDate(0, 1, 0)}
	if c.Limit != nil {
		r := max(0, *c.Limit-c.Used)
		c.Remaining = &r
	}
	return c, nil
}

// Figures are the credit figures as CREDIT_LIMIT carries them.
func (c Credits) Figures() *apperr.Credits {
	return &apperr.Credits{Limit: c.Limit, Used: c.Used, Remaining: c.Remaining, ResetsAt: c.ResetsAt}
}

// CreditPeriod is the month whose credits a spend at t takes: its first day, UTC (credits
// renew on the first day of each month, UTC). Badge issuance spends by it too.
func CreditPeriod(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// spendCredit takes one credit of the account's month in tx: CREDIT_LIMIT, with the figures,
// when none is left. Concurrent spends never pass the plan's limit.
func spendCredit(ctx context.Context, tx *store.Tx, accountID uuid.UUID, now time.Time) error {
	if ok, err := tx.SpendCredit(ctx, accountID, CreditPeriod(now)); err != nil || ok {
		return err
	}
	return creditLimit(ctx, tx, accountID, now)
}

// creditLimit is CREDIT_LIMIT with the account's figures, read in tx.
func creditLimit(ctx context.Context, tx *store.Tx, accountID uuid.UUID, now time.Time) error {
	c, err := CreditsOf(ctx, tx, accountID, now)
	if err != nil {
		return err
	}
	e := apperr.New(apperr.CreditLimit, "No credits left this month: the %s plan has %d; they renew on %s.", c.Plan,
		store.Deref(c.Limit), c.ResetsAt.Format("2 January 2006"))
	e.Credits = c.Figures()
	return e
}
