package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// The totals that list_totals keeps (migration 00025) equal the rows counted, whatever wrote
// them: inserts of many rows and of one, COPY, concurrent writers on other connections (other
// shards), status changes, deletions, an event's deletion that takes its attendees along, and
// issued certificates past their expiry that list as expired.
func TestListTotalsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, url := openStore(t)
	acct, events := seedAccount(t, st, conn, "alpha", 600)
	seedAccount(t, st, conn, "beta", 100)
	exec := func(c *pgx.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	// Writers on connections of their own, at once: each its own backend, so its own shard.
	var wg sync.WaitGroup
	for w := range 6 {
		c := connect(t, url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			event := events[w%len(events)]
			for i := range 5 {
				rows := [][]any{}
				for j := range 20 {
					rows = append(rows, []any{acct, event, "Writer", fmt.Sprintf("W%d", w), fmt.Sprintf("w%d.%d.%d@example.org", w, i, j)})
				}
				if _, err := c.CopyFrom(ctx, pgx.Identifier{"attendees"}, []string{"account_id", "event_id", "first_name", "last_name", "email"},
					pgx.CopyFromRows(rows)); err != nil {
					t.Errorf("COPY: %v", err)
					return
				}
				// Revoke one issued certificate and issue one draft of the event, a row at a time.
				for _, sql := range []string{
					`UPDATE certificates SET status = 'revoked', revoked_at = now() WHERE id = (
						SELECT id FROM certificates WHERE account_id = $1 AND event_id = $2 AND status = 'issued'
						ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)`,
					`UPDATE certificates SET status = 'issued', issued_at = now() WHERE id = (
						SELECT id FROM certificates WHERE account_id = $1 AND event_id = $2 AND status = 'draft'
						ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)`,
				} {
					if _, err := c.Exec(ctx, sql, acct, event); err != nil {
						t.Errorf("%s: %v", sql, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()

	// Issued certificates past their expiry (listed as expired), one stored expired, a draft
	// deleted, an attendee deleted, and an event deleted with its attendees.
	exec(conn, `UPDATE certificates SET expires_at = now() - interval '1 day' WHERE id IN (
		SELECT DISTINCT ON (event_id) id FROM certificates WHERE account_id = $1 AND status = 'issued' ORDER BY event_id, created_at)`, acct)
	exec(conn, `UPDATE certificates SET expires_at = now() + interval '1 day' WHERE id IN (
		SELECT id FROM certificates WHERE account_id = $1 AND status = 'issued' AND expires_at IS NULL ORDER BY created_at DESC LIMIT 5)`, acct)
	exec(conn, `UPDATE certificates SET status = 'expired' WHERE id = (
		SELECT id FROM certificates WHERE account_id = $1 AND status = 'issued' AND expires_at IS NULL ORDER BY created_at LIMIT 1)`, acct)
	exec(conn, `DELETE FROM certificates WHERE id = (SELECT id FROM certificates WHERE account_id = $1 AND status = 'draft' LIMIT 1)`, acct)
	exec(conn, `DELETE FROM attendees WHERE id = (SELECT a.id FROM attendees a WHERE a.account_id = $1
		AND NOT EXISTS (SELECT 1 FROM certificates c WHERE c.attendee_id = a.id) LIMIT 1)`, acct)
	empty, err := st.CreateEvent(ctx, acct, domain.EventFields{Name: "Cancelled", EventDate: time.Now(), TemplateID: templateOf(t, conn, acct)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	exec(conn, `INSERT INTO attendees (account_id, event_id, first_name, last_name, email)
		SELECT $1, $2, 'Gone', 'Soon', 'gone' || i || '@example.org' FROM generate_series(1, 7) i`, acct, empty.ID)
	exec(conn, `DELETE FROM events WHERE id = $1`, empty.ID)

	// Every total, account-wide and by event, beside the rows counted.
	kept := func(sql string) []string {
		t.Helper()
		rows, err := conn.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			var acct, event uuid.UUID
			var list, status string
			var n int64
			err := r.Scan(&acct, &list, &event, &status, &n)
			return fmt.Sprintf("%s %s %s %q %d", acct, list, event, status, n), err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	totals := kept(`SELECT account_id, list, event_id, status, sum(n)::bigint FROM list_totals
		GROUP BY account_id, list, event_id, status HAVING sum(n) <> 0`)
	counted := kept(`SELECT account_id, 'attendees', coalesce(event_id, '00000000-0000-0000-0000-000000000000'), '', count(*)
		FROM attendees GROUP BY GROUPING SETS ((account_id, event_id), (account_id))
		UNION ALL
		SELECT account_id, 'certificates', coalesce(event_id, '00000000-0000-0000-0000-000000000000'), status, count(*)
		FROM certificates GROUP BY GROUPING SETS ((account_id, event_id, status), (account_id, status))`)
	if !slices.Equal(totals, counted) {
		t.Fatalf("list_totals:\n%v\ncounted:\n%v", totals, counted)
	}
	var shards int
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT shard) FROM list_totals WHERE account_id = $1`, acct).Scan(&shards); err != nil || shards < 2 {
		t.Errorf("the concurrent writers wrote %d shards (%v): they should have spread", shards, err)
	}

	// And the lists answer them as totals, valid and expired moved by the expiry.
	page := domain.Page{Number: 1, Size: 5}
	seen := map[domain.CertificateStatus]int{}
	for _, event := range append([]*uuid.UUID{nil}, pointers(events)...) {
		for _, status := range []domain.CertificateStatus{"", domain.CertificateValid, domain.CertificateExpired, domain.CertificateRevoked, domain.CertificateDraft} {
			f := domain.CertificateFilter{EventID: event}
			if status != "" {
				f.Status = &status
			}
			_, total, err := st.ListCertificates(ctx, acct, f, page, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var want int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM certificates WHERE account_id = $1
				AND ($2::uuid IS NULL OR event_id = $2) AND CASE $3
					WHEN 'valid' THEN status = 'issued' AND (expires_at IS NULL OR expires_at > now())
					WHEN 'expired' THEN status = 'expired' OR (status = 'issued' AND expires_at <= now())
					WHEN '' THEN true ELSE status = $3 END`, acct, event, string(status)).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if total != want {
				t.Errorf("certificates of event %v, status %q: total %d, counted %d", event, status, total, want)
			}
			if event != nil {
				seen[status] += want
			}
		}
		_, total, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{EventID: event}, page)
		if err != nil {
			t.Fatal(err)
		}
		var want int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM attendees WHERE account_id = $1 AND ($2::uuid IS NULL OR event_id = $2)`,
			acct, event).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if total != want {
			t.Errorf("attendees of event %v: total %d, counted %d", event, total, want)
		}
	}
	for _, status := range []domain.CertificateStatus{domain.CertificateValid, domain.CertificateExpired, domain.CertificateRevoked, domain.CertificateDraft} {
		if seen[status] == 0 {
			t.Errorf("no event has a %s certificate: the totals of that status were not put to the test", status)
		}
	}
}

func pointers[T any](s []T) []*T {
	out := make([]*T, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// openStore opens a store on a fresh database, closed at the test's end, and answers it with
// a connection of the test's own to that database.
func openStore(t *testing.T) (*store.Store, *pgx.Conn, string) {
	t.Helper()
	url := testkit.Database(t)
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, connect(t, url), url
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func templateOf(t *testing.T, conn *pgx.Conn, acct uuid.UUID) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := conn.QueryRow(context.Background(), `SELECT id FROM templates WHERE account_id = $1 LIMIT 1`, acct).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
