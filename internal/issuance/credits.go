package issuance

import (
	"context"
	"strings"
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
// renew on the first day of each month, UTC).
func CreditPeriod(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// creditLimit is CREDIT_LIMIT with the account's figures, read in tx, for an issuance of n
// credentials of kind that found fewer credits left. The message is the kind's: a certificate
// is issued one at a time, badge assertions n at a time, all or nothing.
func creditLimit(ctx context.Context, tx *store.Tx, accountID uuid.UUID, kind string, n int, now time.Time) error {
	c, err := CreditsOf(ctx, tx, accountID, now)
	if err != nil {
		return err
	}
	var e *apperr.Error
	if kind == store.KindBadgeAssertion {
		e = apperr.New(apperr.CreditLimit, "Not enough credits: %s %s, and %s left this month on the %s plan; nothing was issued. Credits renew on %s.",
			apperr.Count(n, "new recipient needs", "new recipients need"), apperr.Count(n, "credit", "credits"),
			apperr.Count(store.Deref(c.Remaining), "is", "are"), c.Plan, c.ResetsAt.Format("2 January 2006"))
	} else {
		e = apperr.New(apperr.CreditLimit, "No credits left this month: the %s plan has %d; they renew on %s.", c.Plan,
			store.Deref(c.Limit), c.ResetsAt.Format("2 January 2006"))
	}
	e.Credits = c.Figures()
	return e
}

// NameOperatorContact ends a CREDIT_LIMIT error's message with a sentence naming whom to ask
// for a larger plan: contact, the installation's OPERATOR_CONTACT. It takes the error wherever
// it was made (an issuance's spend above, a bulk job refused before it starts) and whatever
// wraps it; other errors, and every error when contact is empty, are returned as they are.
// The message is changed on a copy: the error's maker may hold it still.
func NameOperatorContact(err error, contact string) error {
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.CreditLimit || contact == "" {
		return err
	}
	sentence := "For a larger plan, ask " + contact
	if !strings.HasSuffix(sentence, ".") {
		sentence += "."
	}
	named := *e
	named.Message = strings.TrimSpace(e.Message) + " " + sentence
	return &named
}
