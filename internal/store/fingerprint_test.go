package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// seeded is a store with an account, its owner, a template and an event, and a connection to
// its database for arranging rows the store has no method for.
type seeded struct {
	st       *store.Store
	url      string
	conn     *pgx.Conn
	account  domain.Account
	owner    domain.User
	template domain.Template
	event    domain.Event
	now      time.Time
}

func seed(t *testing.T) seeded {
	t.Helper()
	ctx := t.Context()
	st, url := testkit.Store(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	s := seeded{st: st, url: url, conn: conn, now: time.Now()}
	if s.account, err = st.CreateAccount(ctx, store.NewAccount{Name: "Academy", Plan: "free"}, s.now); err != nil {
		t.Fatal(err)
	}
	if s.owner, err = st.CreateUser(ctx, store.NewUser{AccountID: s.account.ID, Email: "owner@example.org", Name: "Owner",
		PasswordHash: "x", Role: "owner"}, s.now); err != nil {
		t.Fatal(err)
	}
	if s.template, err = st.InsertTemplate(ctx, store.NewTemplate{AccountID: &s.account.ID, Name: "Plain", PageSize: "A4",
		Orientation: "landscape", Layout: json.RawMessage(`{"rows":[]}`)}, s.now); err != nil {
		t.Fatal(err)
	}
	if s.event, err = st.CreateEvent(ctx, s.account.ID, domain.EventFields{Name: "Congress", EventDate: s.now,
		TemplateID: s.template.ID}, s.now); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s seeded) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := s.conn.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (s seeded) fingerprint(t *testing.T) string {
	t.Helper()
	fp, err := s.st.Fingerprint(t.Context())
	if err != nil || fp == "" {
		t.Fatalf("fingerprint %q: %v", fp, err)
	}
	return fp
}

// A change to any table moves the fingerprint: the tables it used to leave out, River's job
// queue and goose's version table included. The last use of an API key, which every
// authenticated request moves, does not.
func TestTheFingerprintCoversEveryTable(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ids := pgx.NamedArgs{"owner": s.owner.ID, "account": s.account.ID, "event": s.event.ID, "job": uuid.New(),
		"template": s.template.ID}
	changes := []struct{ table, sql string }{
		{"plans", `INSERT INTO plans (code, monthly_credits) VALUES ('probe', 1)`},
		{"recovery_codes", `INSERT INTO recovery_codes (user_id, code_hash) VALUES (@owner, '\x01')`},
		{"signing_keys", `INSERT INTO signing_keys (kid, private_key, retired_at) VALUES ('probe', '\x01', now())`},
		{"verification_codes", `INSERT INTO verification_codes (code, kind) VALUES ('PROBE', 'certificate')`},
		{"certificate_counters", `INSERT INTO certificate_counters (account_id, last_number) VALUES (@account, 7)`},
		{"bulk_jobs", `INSERT INTO bulk_jobs (id, account_id, event_id, template_id, send_email, draft, total)
			VALUES (@job, @account, @event, @template, false, false, 1)`},
		{"bulk_job_items", `INSERT INTO bulk_job_items (job_id, attendee_id) VALUES (@job, @event)`},
		{"webhook_subscriptions", `INSERT INTO webhook_subscriptions (id, account_id, url, events, secret_sealed)
			VALUES (@job, @account, 'https://hooks.example.org', '{certificate.issued}', '\x01')`},
		{"webhook_deliveries", `INSERT INTO webhook_deliveries (account_id, subscription_id, event_type, payload)
			VALUES (@account, @job, 'certificate.issued', '\x01')`},
		{"analytics_daily", `INSERT INTO analytics_daily (account_id, event_id, day, credential_kind, views) VALUES (@account, @event, current_date, 'certificate', 1)`},
		{"river_job", `INSERT INTO river_job (kind, args, max_attempts) VALUES ('probe', '{}', 1)`},
		{"goose_db_version", `INSERT INTO goose_db_version (version_id, is_applied) VALUES (999999, true)`},
	}
	before := s.fingerprint(t)
	for _, c := range changes {
		s.exec(t, c.sql, ids)
		after := s.fingerprint(t)
		if after == before {
			t.Errorf("a row added to %s leaves the fingerprint as it was", c.table)
		}
		before = after
	}

	key, err := s.st.CreateAPIKey(t.Context(), store.NewAPIKey{AccountID: s.account.ID, CreatedBy: s.owner.ID, Name: "k",
		Scopes: []string{"events:read"}, Prefix: "ck_live_abcd", Hash: []byte{1}}, s.now)
	if err != nil {
		t.Fatal(err)
	}
	before = s.fingerprint(t)
	if err := s.st.TouchAPIKey(t.Context(), key.ID, s.now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if after := s.fingerprint(t); after != before {
		t.Error("using an API key moves the fingerprint")
	}
	s.exec(t, `UPDATE api_keys SET name = 'renamed'`)
	if after := s.fingerprint(t); after == before {
		t.Error("renaming an API key leaves the fingerprint as it was")
	}
}

// A fingerprint that cannot be read is an error, never an empty string that would equal
// another: here one table's rows fail to convert.
func TestAFingerprintThatCannotBeReadIsAnError(t *testing.T) {
	t.Parallel()
	s := seed(t)
	s.exec(t, `CREATE TYPE mood AS ENUM ('calm')`)
	s.exec(t, `CREATE FUNCTION mood_json(mood) RETURNS json LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'unreadable'; END $$`)
	s.exec(t, `CREATE CAST (mood AS json) WITH FUNCTION mood_json(mood)`)
	s.exec(t, `CREATE TABLE moods (m mood)`)
	s.fingerprint(t) // an empty table reads
	s.exec(t, `INSERT INTO moods VALUES ('calm')`)
	fp, err := s.st.Fingerprint(t.Context())
	if err == nil || fp != "" {
		t.Fatalf("a table that cannot be read: fingerprint %q, error %v", fp, err)
	}
}
