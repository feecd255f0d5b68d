package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

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
		p := tx.Pipeline()
		payloads := make([]any, len(ids))
		for i, id := range ids {
			payloads[i] = map[string]any{"type": "certificate.issued", "data": map[string]any{"id": id, "certificateNumber": ""}}
		}
		if err := p.CertificateEvents(ctx, acct, "certificate.issued", time.Now(), ids, payloads); err != nil {
			return 0, err
		}
		if err := p.Send(ctx); err != nil {
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
