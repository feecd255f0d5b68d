package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// attendeeEventKey is the foreign key from attendees to events (migration 00002, back in
// 00037): an attendee names an event of its own account.
const attendeeEventKey = "attendees_account_id_event_id_fkey"

// The foreign key keeps an attendee on an event of its own account, whatever writes it
// (INSERT, COPY, UPDATE): a statement that names another account's event, or none, is refused
// whole with the key's violation, which the store maps to a conflict on the key; an event's
// deletion takes its attendees and their search rows along; an event named by attendees keeps
// its key.
func TestAttendeesNameAnEventOfTheirAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, _ := openStore(t)
	alpha, _ := seedAccount(t, st, conn, "alpha", 10)
	beta, _ := seedAccount(t, st, conn, "beta", 10)
	first, second := bareEvent(t, st, conn, alpha), bareEvent(t, st, conn, alpha)
	foreign := bareEvent(t, st, conn, beta)

	refused := func(what string, err error) {
		t.Helper()
		pgErr := wantSQLState(t, what, err, "23503")
		require.Equal(t, attendeeEventKey, pgErr.ConstraintName, what)
		require.ErrorIs(t, store.MapError(err), store.Conflict(attendeeEventKey), what)
	}
	copyRows := func(n int, event func(i int) uuid.UUID) error { return copyAttendees(ctx, conn, alpha, n, event) }

	// Of the account's own events, in one COPY: written.
	require.NoError(t, copyRows(300, func(i int) uuid.UUID { return []uuid.UUID{first, second}[i%2] }))
	require.Empty(t, cmp.Diff([]int{150, 150}, []int{attendeesOf(t, conn, first), attendeesOf(t, conn, second)}))

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
	require.Empty(t, cmp.Diff([]int{150, 0}, []int{attendeesOf(t, conn, first), attendeesOf(t, conn, foreign)}),
		"attendees after the refused writes")

	// Moved: to another event of the account, yes; to another account's, or to none, no.
	var moved uuid.UUID
	require.NoError(t, conn.QueryRow(ctx, `UPDATE attendees SET event_id = $2 WHERE id = (
		SELECT id FROM attendees WHERE event_id = $1 LIMIT 1) RETURNING id`, first, second).Scan(&moved))
	_, err = conn.Exec(ctx, `UPDATE attendees SET event_id = $2 WHERE id = $1`, moved, foreign)
	refused("moving an attendee to another account's event", err)
	_, err = conn.Exec(ctx, `UPDATE attendees SET account_id = $2 WHERE id = $1`, moved, beta)
	refused("moving an attendee to another account", err)

	// An event's key stays while attendees name it; an event without any may take another.
	_, err = conn.Exec(ctx, `UPDATE events SET id = $2 WHERE id = $1`, first, uuid.New())
	refused("changing the key of an event with attendees", err)
	empty := bareEvent(t, st, conn, alpha)
	_, err = conn.Exec(ctx, `UPDATE events SET id = $2 WHERE id = $1`, empty, uuid.New())
	require.NoError(t, err, "changing the key of an event without attendees")

	// Deleting events deletes their attendees and the attendees' search rows, and no other.
	_, err = conn.Exec(ctx, `INSERT INTO attendee_search_queue (event_id, attendee_id) SELECT event_id, id FROM attendees`)
	require.NoError(t, err)
	_, err = st.IndexAttendeeSearch(ctx)
	require.NoError(t, err)
	_, err = store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, errors.Join(tx.DeleteEvent(ctx, alpha, first), tx.DeleteEvent(ctx, alpha, second))
	})
	require.NoError(t, err, "deleting the events")
	var left struct{ attendees, searched, others int }
	require.NoError(t, conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM attendees WHERE event_id = ANY($1)),
		(SELECT count(*) FROM attendee_search WHERE event_id = ANY($1)),
		(SELECT count(*) FROM attendee_search WHERE account_id = ANY($2))`,
		[]uuid.UUID{first, second}, []uuid.UUID{alpha, beta}).Scan(&left.attendees, &left.searched, &left.others))
	require.Zero(t, left.attendees, "attendees of the deleted events")
	require.Zero(t, left.searched, "search rows of the deleted events' attendees")
	require.Equal(t, 20, left.others, "search rows of the seeded attendees")
}

// An event and the attendees being written to it meet on the event's row, by the key: an
// event deleted while a transaction writes attendees to it waits for that transaction, then
// takes its attendees along; attendees written while the event's deletion is under way wait
// for it, and are refused once it commits.
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
			require.NoError(t, conn.QueryRow(ctx, `SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&waiting))
			if waiting {
				return
			}
		}
		t.Fatal("the second transaction never waited for the first")
	}

	// The attendees first: the deletion waits, then takes them.
	event := bareEvent(t, st, conn, acct)
	tx, err := writer.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, copyInto(tx, event), "COPY")
	deleted := make(chan error, 1)
	running.Add(1)
	go func() {
		defer running.Done()
		_, err := deleter.Exec(work, `DELETE FROM events WHERE id = $1`, event)
		deleted <- err
	}()
	waitsForLock(deleter)
	require.NoError(t, tx.Commit(ctx))
	require.NoError(t, <-deleted, "deleting the event")
	require.Zero(t, attendeesOf(t, conn, event), "attendees written while their event was being deleted")

	// The deletion first: the attendees wait, then are refused.
	event = bareEvent(t, st, conn, acct)
	del, err := deleter.Begin(ctx)
	require.NoError(t, err)
	_, err = del.Exec(ctx, `DELETE FROM events WHERE id = $1`, event)
	require.NoError(t, err)
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
	require.NoError(t, del.Commit(ctx))
	pgErr := wantSQLState(t, "attendees written to an event deleted meanwhile", <-written, "23503")
	require.Equal(t, attendeeEventKey, pgErr.ConstraintName)
	require.Zero(t, attendeesOf(t, conn, event), "attendees of a deleted event")
}

// Migration 00037 undone puts back 00034's triggers in the key's place and the search
// triggers, with the search rows the indexer had not written yet; done again, it puts the key
// back and keeps every search row.
func TestTheForeignKeyMigrationGoesDownAndUpAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, _ := openStore(t)
	acct, _ := seedAccount(t, st, conn, "migrated", 30)
	indexAttendees(t, st, conn)
	event := bareEvent(t, st, conn, acct)
	_, err := store.InTx(ctx, st, func(tx *store.Tx) (int, error) {
		return tx.ImportAttendees(ctx, acct, event, []domain.AttendeeFields{{FirstName: "Queued", LastName: "Only", Email: "queued@example.org"}}, false, time.Now())
	})
	require.NoError(t, err)
	searched := func() int {
		t.Helper()
		var n int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM attendee_search WHERE account_id = $1`, acct).Scan(&n))
		return n
	}
	require.Equal(t, 30, searched(), "search rows before the indexer ran")

	require.NoError(t, st.MigrateDownTo(ctx, 36))
	require.Equal(t, 31, searched(), "search rows after 00037 was undone")
	require.NoError(t, copyAttendees(ctx, conn, acct, 2, func(int) uuid.UUID { return event }))
	require.Equal(t, 33, searched(), "search rows after a COPY, written by 00029's trigger")
	refusedBy := wantSQLState(t, "an attendee of no event, by 00034's trigger", copyAttendees(ctx, conn, acct, 1, func(int) uuid.UUID { return uuid.New() }), "23503")
	require.Equal(t, "attendees_event_fkey", refusedBy.ConstraintName)

	require.NoError(t, st.Migrate(ctx, slog.New(slog.DiscardHandler)))
	refusedBy = wantSQLState(t, "an attendee of no event, by the key", copyAttendees(ctx, conn, acct, 1, func(int) uuid.UUID { return uuid.New() }), "23503")
	require.Equal(t, attendeeEventKey, refusedBy.ConstraintName)
	require.Equal(t, 33, searched(), "search rows after 00037 was done again")
}

// copyAttendees copies n attendees of the account into attendees, the i-th of event(i).
func copyAttendees(ctx context.Context, c interface {
	CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
}, acct uuid.UUID, n int, event func(i int) uuid.UUID) error {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{acct, event(i), "Ada", "Lovelace", fmt.Sprintf("ada.%d@example.org", i)}
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"attendees"}, []string{"account_id", "event_id", "first_name", "last_name", "email"},
		pgx.CopyFromRows(rows))
	return err
}

// attendeesOf counts the event's attendees.
func attendeesOf(t *testing.T, conn *pgx.Conn, event uuid.UUID) int {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM attendees WHERE event_id = $1`, event).Scan(&n))
	return n
}

// wantSQLState fails the test unless err is PostgreSQL's error of code, which it answers.
func wantSQLState(t *testing.T, what string, err error, code string) *pgconn.PgError {
	t.Helper()
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr, what)
	require.Equal(t, code, pgErr.Code, what)
	return pgErr
}

// bareEvent is a new event of the account, without attendees or certificates.
func bareEvent(t *testing.T, st *store.Store, conn *pgx.Conn, acct uuid.UUID) uuid.UUID {
	t.Helper()
	ev, err := st.CreateEvent(context.Background(), acct, domain.EventFields{Name: "Workshop", EventDate: time.Now(),
		TemplateID: templateOf(t, conn, acct)}, time.Now())
	require.NoError(t, err)
	return ev.ID
}
