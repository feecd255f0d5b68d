package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// The triggers of migration 00034 keep what the foreign key from attendees to events kept: an
// attendee names an event of its own account, whatever writes it (INSERT, COPY, UPDATE); an
// event's deletion takes its attendees along; an event named by attendees keeps its key. A
// refusal is a foreign_key_violation naming attendees_event_fkey, which the store maps to a
// conflict on that constraint, and the statement refused writes nothing.
func TestAttendeesNameAnEventOfTheirAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, _ := openStore(t)
	alpha, _ := seedAccount(t, st, conn, "alpha", 10)
	beta, _ := seedAccount(t, st, conn, "beta", 10)
	first, second := bareEvent(t, st, conn, alpha), bareEvent(t, st, conn, alpha)
	foreign := bareEvent(t, st, conn, beta)

	count := func(event uuid.UUID) int { return attendeesOf(t, conn, event) }
	refused := func(what string, err error) {
		t.Helper()
		if pgErr := wantSQLState(t, what, err, "23503"); pgErr.ConstraintName != "attendees_event_fkey" {
			t.Fatalf("%s: refused by %s, want attendees_event_fkey", what, pgErr.ConstraintName)
		}
		if !errors.Is(store.MapError(err), store.Conflict("attendees_event_fkey")) {
			t.Fatalf("%s: the store does not map %v to a conflict on attendees_event_fkey", what, err)
		}
	}
	copyRows := func(n int, event func(i int) uuid.UUID) error { return copyAttendees(ctx, conn, alpha, n, event) }

	// Of the account's own events, in one COPY: written.
	if err := copyRows(300, func(i int) uuid.UUID { return []uuid.UUID{first, second}[i%2] }); err != nil {
		t.Fatalf("COPY into two events of the account: %v", err)
	}
	if count(first) != 150 || count(second) != 150 {
		t.Fatalf("after the COPY: %d and %d attendees, want 150 each", count(first), count(second))
	}
	// One row of a COPY naming another account's event, or none: the whole COPY refused.
	refused("COPY with one row of another account's event", copyRows(300, func(i int) uuid.UUID {
		return map[bool]uuid.UUID{true: foreign, false: first}[i == 299]
	}))
	refused("COPY with one row of no event", copyRows(300, func(i int) uuid.UUID {
		return map[bool]uuid.UUID{true: uuid.New(), false: first}[i == 0]
	}))
	_, err := conn.Exec(ctx, `INSERT INTO attendees (account_id, event_id, first_name, last_name, email)
		VALUES ($1, $2, 'Grace', 'Hopper', 'grace@example.org')`, alpha, foreign)
	refused("INSERT of another account's event", err)
	if count(first) != 150 || count(foreign) != 0 {
		t.Fatalf("after the refused writes: %d and %d attendees, want 150 and 0", count(first), count(foreign))
	}

	// Moved: to another event of the account, yes; to another account's, or to none, no.
	var moved uuid.UUID
	if err := conn.QueryRow(ctx, `UPDATE attendees SET event_id = $2 WHERE id = (
		SELECT id FROM attendees WHERE event_id = $1 LIMIT 1) RETURNING id`, first, second).Scan(&moved); err != nil {
		t.Fatalf("moving an attendee to another event of the account: %v", err)
	}
	_, err = conn.Exec(ctx, `UPDATE attendees SET event_id = $2 WHERE id = $1`, moved, foreign)
	refused("moving an attendee to another account's event", err)
	_, err = conn.Exec(ctx, `UPDATE attendees SET account_id = $2 WHERE id = $1`, moved, beta)
	refused("moving an attendee to another account", err)
	if _, err := conn.Exec(ctx, `UPDATE attendees SET first_name = 'Augusta' WHERE event_id = $1`, second); err != nil {
		t.Fatalf("renaming attendees: %v", err)
	}

	// An event's key stays while attendees name it; an event without any may take another.
	_, err = conn.Exec(ctx, `UPDATE events SET id = $2 WHERE id = $1`, first, uuid.New())
	refused("changing the key of an event with attendees", err)
	empty := bareEvent(t, st, conn, alpha)
	if _, err := conn.Exec(ctx, `UPDATE events SET id = $2 WHERE id = $1`, empty, uuid.New()); err != nil {
		t.Fatalf("changing the key of an event without attendees: %v", err)
	}

	// Not by TRUNCATE, nor in a transaction whose snapshot would miss attendees committed while
	// it waited; and a temporary table of the session stands for neither table.
	kept := count(first)
	_, err = conn.Exec(ctx, `TRUNCATE events CASCADE`)
	wantSQLState(t, "TRUNCATE events CASCADE", err, "0A000")
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, `DELETE FROM events WHERE id = $1`, first)
	wantSQLState(t, "deleting an event in REPEATABLE READ", err, "0A000")
	_ = tx.Rollback(ctx)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE events (account_id uuid, id uuid)`); err != nil {
		t.Fatal(err)
	}
	ghost := uuid.New()
	if _, err := conn.Exec(ctx, `INSERT INTO pg_temp.events VALUES ($1, $2)`, alpha, ghost); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `INSERT INTO public.attendees (account_id, event_id, first_name, last_name, email)
		VALUES ($1, $2, 'Grace', 'Hopper', 'grace@example.org')`, alpha, ghost)
	refused("INSERT of an event only a temporary table holds", err)
	if _, err := conn.Exec(ctx, `DROP TABLE pg_temp.events`); err != nil {
		t.Fatal(err)
	}
	if count(first) != kept || count(ghost) != 0 {
		t.Fatalf("after the refused statements: %d and %d attendees, want %d and 0", count(first), count(ghost), kept)
	}

	// Deleting events deletes their attendees, and no other (a temporary attendees table of
	// the session changes nothing).
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE attendees (account_id uuid, event_id uuid)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), `DROP TABLE IF EXISTS pg_temp.attendees`) })
	if _, err := conn.Exec(ctx, `DELETE FROM public.events WHERE id = ANY($1)`, []uuid.UUID{first, second}); err != nil {
		t.Fatalf("deleting the events: %v", err)
	}
	if count(first) != 0 || count(second) != 0 {
		t.Fatalf("after the events' deletion: %d and %d attendees, want none", count(first), count(second))
	}
	var all int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM public.attendees WHERE account_id = ANY($1)`, []uuid.UUID{alpha, beta}).Scan(&all); err != nil || all != 20 {
		t.Fatalf("the seeded attendees after the deletion: %d (%v), want 20", all, err)
	}
}

// An event and the attendees being written to it meet on the event's row, as they met on the
// foreign key: an event deleted while a transaction writes attendees to it waits for that
// transaction, then takes its attendees along; attendees written while the event's deletion is
// under way wait for it, and are refused once it commits.
func TestAnEventDeletedWhileAttendeesAreWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, url := openStore(t)
	acct, _ := seedAccount(t, st, conn, "gamma", 10)
	writer, deleter := connect(t, url), connect(t, url)
	// The goroutines below end before the connections close (cleanups run last first), even
	// when the test fails while one of them waits.
	work, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	t.Cleanup(func() { stop(); running.Wait() })
	copyInto := func(tx pgx.Tx, event uuid.UUID) error {
		return copyAttendees(work, tx, acct, 50, func(int) uuid.UUID { return event })
	}
	// waitsForLock waits until the backend of c waits for a lock.
	waitsForLock := func(c *pgx.Conn) {
		t.Helper()
		pid := c.PgConn().PID()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var waiting bool
			if err := conn.QueryRow(ctx, `SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if waiting {
				return
			}
		}
		t.Fatal("the second transaction never waited for the first")
	}

	// The attendees first: the deletion waits, then takes them.
	event := bareEvent(t, st, conn, acct)
	tx, err := writer.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := copyInto(tx, event); err != nil {
		t.Fatalf("COPY: %v", err)
	}
	deleted := make(chan error, 1)
	running.Add(1)
	go func() {
		defer running.Done()
		_, err := deleter.Exec(work, `DELETE FROM events WHERE id = $1`, event)
		deleted <- err
	}()
	waitsForLock(deleter)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatalf("deleting the event: %v", err)
	}
	if n := attendeesOf(t, conn, event); n != 0 {
		t.Fatalf("%d attendees outlived their event, written while it was being deleted", n)
	}

	// The deletion first: the attendees wait, then are refused.
	event = bareEvent(t, st, conn, acct)
	del, err := deleter.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := del.Exec(ctx, `DELETE FROM events WHERE id = $1`, event); err != nil {
		t.Fatal(err)
	}
	written := make(chan error, 1)
	running.Add(1)
	go func() {
		defer running.Done()
		tx, err := writer.Begin(work)
		if err == nil {
			if err = copyInto(tx, event); err == nil {
				err = tx.Commit(work)
			}
			_ = tx.Rollback(work)
		}
		written <- err
	}()
	waitsForLock(writer)
	if err := del.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantSQLState(t, "attendees written to an event deleted meanwhile", <-written, "23503")
	if n := attendeesOf(t, conn, event); n != 0 {
		t.Fatalf("%d attendees of a deleted event were written", n)
	}
}

// copyAttendees copies n attendees of the account into attendees, the i-th of event(i).
func copyAttendees(ctx context.Context, c interface {
	CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
}, acct uuid.UUID, n int, event func(i int) uuid.UUID) error {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{acct, event(i), "Ada", "Lovelace", fmt.Sprintf("ada.%d@example.org", i)}
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"public", "attendees"}, []string{"account_id", "event_id", "first_name", "last_name", "email"},
		pgx.CopyFromRows(rows))
	return err
}

// attendeesOf counts the event's attendees (in the public schema, whatever the session's
// temporary tables).
func attendeesOf(t *testing.T, conn *pgx.Conn, event uuid.UUID) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM public.attendees WHERE event_id = $1`, event).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// wantSQLState fails the test unless err is PostgreSQL's error of code, which it answers.
func wantSQLState(t *testing.T, what string, err error, code string) *pgconn.PgError {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != code {
		t.Fatalf("%s: want SQLSTATE %s, got %v", what, code, err)
	}
	return pgErr
}

// bareEvent is a new event of the account, without attendees or certificates.
func bareEvent(t *testing.T, st *store.Store, conn *pgx.Conn, acct uuid.UUID) uuid.UUID {
	t.Helper()
	ev, err := st.CreateEvent(context.Background(), acct, domain.EventFields{Name: "Workshop", EventDate: time.Now(),
		TemplateID: templateOf(t, conn, acct)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return ev.ID
}
