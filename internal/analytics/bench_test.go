package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/analytics"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// BenchmarkDashboard reads the dashboard of an account with 1,000,000 verifications recorded
// over a year (365 days, 20 events, certificates and badges: 14,600 daily rows), beside 29
// other accounts of the same shape in the same table, seeded through the store's own writers.
// Sub-benchmarks: one daily row read through the store (the yardstick), the default 30 days,
// the whole year, and one event's year day by day.
func BenchmarkDashboard(b *testing.B) {
	st, dbURL := testkit.Store(b)
	ctx := context.Background()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	const accounts, events, days = 30, 20, 365
	system, err := st.ListSystemTemplates(ctx)
	if err != nil || len(system) == 0 {
		b.Fatalf("system templates: %v", err)
	}
	var target uuid.UUID
	var targetEvent uuid.UUID
	for a := range accounts {
		acct, err := st.CreateAccount(ctx, store.NewAccount{Name: fmt.Sprintf("Account %d", a), Plan: "free"}, today)
		if err != nil {
			b.Fatal(err)
		}
		evs := make([]uuid.UUID, events)
		for i := range evs {
			evs[i] = uuid.New()
		}
		if a == 0 {
			ev, err := st.CreateEvent(ctx, acct.ID, domain.EventFields{Name: "Go Conference", EventDate: today, TemplateID: system[0].ID}, today)
			if err != nil {
				b.Fatal(err)
			}
			target, targetEvent, evs[0] = acct.ID, ev.ID, ev.ID
		}
		if err := seed(ctx, st, acct.ID, evs, today, days); err != nil {
			b.Fatal(err)
		}
	}
	testkit.SQLAt(b, dbURL, `VACUUM ANALYZE analytics_daily`)
	svc := analytics.New(st, nil)
	yearAgo := today.AddDate(0, 0, -(days - 1))
	d, err := svc.Dashboard(ctx, target, &yearAgo, &today)
	if err != nil || d.Verifications != 1_000_000 {
		b.Fatalf("the seeded year holds %d verifications (%v)", d.Verifications, err)
	}
	// The yardstick: one indexed read of one daily row through the same store, the least a
	// figure can cost.
	b.Run("baseline-one-row", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.EventAnalyticsDays(ctx, target, targetEvent, today, today); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("last-30-days", func(b *testing.B) {
		for b.Loop() {
			if _, err := svc.Dashboard(ctx, target, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("year", func(b *testing.B) {
		for b.Loop() {
			if _, err := svc.Dashboard(ctx, target, &yearAgo, &today); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("event-year", func(b *testing.B) {
		for b.Loop() {
			if _, err := svc.Event(ctx, target, targetEvent, &yearAgo, &today); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// seed writes days x events x 2 kinds of counters for the account: 1,000,000 verifications in
// all, a view for every second, a download for every fourth, a share for every tenth, and
// 40 credentials issued a day. Only the events read by event id need to exist: the counters do
// not refer to events.
func seed(ctx context.Context, st *store.Store, account uuid.UUID, events []uuid.UUID, today time.Time, days int) error {
	rows := days * len(events) * 2
	var batch []store.DailyActivity
	written := 0
	for d := range days {
		day := today.AddDate(0, 0, -d)
		for _, ev := range events {
			for _, kind := range []string{store.KindCertificate, store.KindBadgeAssertion} {
				v := 1_000_000 / rows
				if written < 1_000_000%rows {
					v++
				}
				written++
				batch = append(batch, store.DailyActivity{AccountID: account, Day: day, EventID: ev, CredentialKind: kind,
					Verifications: v, Views: v / 2, Downloads: v / 4, Shares: v / 10})
			}
		}
	}
	_, err := store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
		for i := 0; i < len(batch); i += 5000 {
			if err := tx.AddVerificationActivity(ctx, batch[i:min(i+5000, len(batch))], nil); err != nil {
				return struct{}{}, err
			}
		}
		// The day's issued counters, as issuances add to them (one each), in one plan.
		now := time.Now().UTC()
		plan := store.IssuancePlan{AccountID: account, Now: now, CreditPeriod: time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)}
		for _, r := range batch {
			plan.Counts = append(plan.Counts, store.IssuedCount{N: 1,
				IssuedKey: store.IssuedKey{AccountID: r.AccountID, EventID: r.EventID, Kind: r.CredentialKind, Day: store.DayOf(r.Day)}})
		}
		_, err := tx.ApplyIssuance(ctx, plan)
		return struct{}{}, err
	})
	return err
}
