package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// A certificate event reads its certificate's number by the certificate's key, whatever the
// planner believes of the account's size: with statistics taken when the table was empty
// (as for an account grown since the last ANALYZE, or one far larger than the average), a
// join of the events with the account's certificates was planned as a hash of all of them,
// 2,000 rows read for three events.
func TestCertificateEventsReadTheirCertificatesByKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, url := openStore(t)
	for _, sql := range []string{`ALTER TABLE certificates SET (autovacuum_enabled = false)`, `ANALYZE certificates`} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	acct, _ := seedAccount(t, st, conn, "grown", 2000)
	type certificate struct {
		ID     uuid.UUID
		Number string
	}
	rows, _ := conn.Query(ctx, `SELECT id, certificate_number FROM certificates WHERE account_id = $1
		ORDER BY certificate_number DESC LIMIT 3`, acct)
	certs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[certificate])
	if err != nil || len(certs) != 3 {
		t.Fatalf("%d certificates: %v", len(certs), err)
	}
	ids := make([]uuid.UUID, len(certs))
	for i, c := range certs {
		ids[i] = c.ID
	}

	read, err := store.InTx(ctx, st, func(tx *store.Tx) (int64, error) {
		before, err := tx.TuplesRead(ctx, "certificates")
		if err != nil {
			return 0, err
		}
		now := time.Now()
		plan := store.IssuancePlan{AccountID: acct, Now: now, CreditPeriod: monthOf(now), EventType: "certificate.issued"}
		for _, id := range ids {
			e, err := store.NewEvent(id, map[string]any{"type": "certificate.issued", "data": map[string]any{"id": id, "certificateNumber": ""}})
			if err != nil {
				return 0, err
			}
			plan.Events = append(plan.Events, e)
		}
		if _, err := tx.ApplyIssuance(ctx, plan); err != nil {
			return 0, err
		}
		after, err := tx.TuplesRead(ctx, "certificates")
		return after - before, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if read > int64(len(ids)) {
		t.Errorf("three events read %d certificates; want each read by its key (3)", read)
	}
	// Each event carries its own certificate's number, in the order given.
	for i, id := range ids {
		var number string
		testkit.QueryRowAt(t, url, `SELECT payload->'data'->>'certificateNumber' FROM outbox_events
			WHERE account_id = $1 AND payload->'data'->>'id' = $2`, []any{acct, id.String()}, &number)
		if number != certs[i].Number {
			t.Errorf("the event of %s says number %q, want %q", id, number, certs[i].Number)
		}
	}
}

// An issuance's writes are planned once a connection: the three statements PostgreSQL would
// plan again at every call (it keeps custom plans for parameters whose arrays it can read)
// run on their generic plans, and the transaction's plan_cache_mode is as it was after them,
// here force_custom_plan, set before.
func TestAnIssuancesWritesArePlannedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, _ := openStore(t)
	acct, events := seedAccount(t, st, conn, "planned", 10)
	tmpl := templateOf(t, conn, acct)
	const issuances = 8
	attendees := make([]uuid.UUID, issuances)
	codes := make([]string, issuances)
	for i := range attendees {
		if err := conn.QueryRow(ctx, `INSERT INTO attendees (account_id, event_id, first_name, last_name, email)
			VALUES ($1, $2, 'Ada', 'Lovelace', $3) RETURNING id`, acct, events[0], fmt.Sprintf("ada.%d@example.org", i)).Scan(&attendees[i]); err != nil {
			t.Fatal(err)
		}
		codes[i] = fmt.Sprintf("PLANNED%04d", i)
		if _, err := conn.Exec(ctx, `INSERT INTO verification_codes (code, kind) VALUES ($1, 'certificate')`, codes[i]); err != nil {
			t.Fatal(err)
		}
	}

	type outcome struct {
		plans map[string]store.PlanCounts
		mode  string
	}
	out, err := store.InTx(ctx, st, func(tx *store.Tx) (outcome, error) {
		if err := tx.SetLocal(ctx, "plan_cache_mode", "force_custom_plan"); err != nil {
			return outcome{}, err
		}
		now := time.Now()
		for i, attendee := range attendees {
			id := uuid.New()
			e, err := store.NewEvent(id, map[string]any{"type": "certificate.issued", "data": map[string]any{"id": id, "certificateNumber": ""}})
			if err != nil {
				return outcome{}, err
			}
			plan := store.IssuancePlan{AccountID: acct, Now: now, CreditPeriod: monthOf(now), EventType: "certificate.issued",
				Certificates: []store.NewCertificate{{ID: id, AccountID: acct,
					CertificateKey: store.CertificateKey{AttendeeID: attendee, EventID: events[0], TemplateID: tmpl},
					Number:         store.NumberFormat{Prefix: "P-", Digits: 4}, VerificationCode: codes[i],
					Recipient: domain.Recipient{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.org"},
					Snapshot:  json.RawMessage(`{}`), IssuedAt: &now}},
				Entries: []store.PlannedEntry{{Credential: store.VerifiableCredential{CredentialID: id, Kind: store.KindCertificate,
					AccountID: acct, Salt: "salt", SignedAt: now}, Candidates: []int{i, i + 100}}},
				Events: []store.PlannedEvent{e}}
			if _, err := tx.ApplyIssuance(ctx, plan); err != nil {
				return outcome{}, fmt.Errorf("issuance %d: %w", i, err)
			}
		}
		plans, err := tx.PreparedPlans(ctx)
		if err != nil {
			return outcome{}, err
		}
		mode, err := tx.Setting(ctx, "plan_cache_mode")
		return outcome{plans, mode}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"IssuanceInsertCertificates", "IssuanceInsertStatusEntries", "IssuanceInsertCertificateEvents"} {
		if got := out.plans[name]; got.Custom != 0 || got.Generic != issuances {
			t.Errorf("%s ran %d times on a custom plan and %d on its generic plan; want its generic plan each time (%d)",
				name, got.Custom, got.Generic, issuances)
		}
	}
	if out.mode != "force_custom_plan" {
		t.Errorf("plan_cache_mode after the writes: %q, want the transaction's own (force_custom_plan)", out.mode)
	}
}

// monthOf is the first day of t's month, UTC: the credit period of an issuance at t.
func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}
