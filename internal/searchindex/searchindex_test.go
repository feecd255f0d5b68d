package searchindex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/searchindex"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// searchDB is a fresh database whose search indexes only the test and the cleaner merge
// (autovacuum merges a pending list too: off for the search tables), with pgstattuple to read
// the pending pages (skipped where the test's role cannot create it).
func searchDB(t *testing.T) (*store.Store, string) {
	t.Helper()
	st, dbURL := testkit.Store(t)
	if err := execAt(t, dbURL, `CREATE EXTENSION IF NOT EXISTS pgstattuple`); err != nil {
		t.Skipf("pgstattuple, to read the index's pending pages: %v", err)
	}
	testkit.SQLAt(t, dbURL, `ALTER TABLE certificate_search SET (autovacuum_enabled = false)`)
	testkit.SQLAt(t, dbURL, `ALTER TABLE attendee_search SET (autovacuum_enabled = false)`)
	return st, dbURL
}

func execAt(t *testing.T, dbURL, sql string) error {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), sql)
	return err
}

// searchRows writes n certificates' search rows, each about as long as a real one (number,
// code, names, email), in one statement, and answers the pending pages of the index after it,
// read with pgstattuple (which changes nothing).
func searchRows(t *testing.T, dbURL string, n int) int64 {
	t.Helper()
	testkit.SQLAt(t, dbURL, `INSERT INTO certificate_search (account_id, certificate_id, event_id, search_text)
		SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(),
		       lower('CERT-2026-' || lpad(g::text, 6, '0') || ' ' || upper(substr(md5(g::text), 1, 12)) || ' ada' || g
		             || ' lovelace' || g || ' ada' || g || '@example.org')
		FROM generate_series(1, $1::integer) g`, n)
	return pendingPages(t, dbURL, "certificate_search_trgm_idx")
}

func pendingPages(t *testing.T, dbURL, index string) int64 {
	t.Helper()
	var pages int64
	testkit.QueryRowAt(t, dbURL, `SELECT pending_pages::bigint FROM pgstatginindex($1::regclass)`, []any{index}, &pages)
	return pages
}

// Inserts leave their entries pending past the default limit of 4 MB (512 pages), where an
// insert, holding its account's credit row, would have merged them; the store merges them on
// demand, and then nothing is pending.
func TestInsertsLeaveTheMergeToTheCleaner(t *testing.T) {
	t.Parallel()
	st, dbURL := searchDB(t)
	pending := searchRows(t, dbURL, 4000)
	if pending <= 512 {
		t.Fatalf("%d pages pending after 4,000 search rows: an insert merged them at the default limit", pending)
	}
	merged, err := st.CleanCertificateSearch(t.Context())
	if err != nil || merged < pending {
		t.Fatalf("merged %d of %d pending pages: %v", merged, pending, err)
	}
	if left := pendingPages(t, dbURL, "certificate_search_trgm_idx"); left != 0 {
		t.Fatalf("%d pages still pending after the merge", left)
	}
}

// The indexer's inserts leave the attendees' search entries pending too (migration 00037), past
// the default limit, and the store merges them on demand.
func TestIndexedAttendeesLeaveTheMergeToTheCleaner(t *testing.T) {
	t.Parallel()
	_, dbURL := searchDB(t)
	w := worldAt(t, dbURL)
	importAttendees(t, w, 20_000)
	done, err := w.Store.IndexAttendeeSearch(t.Context())
	require.NoError(t, err)
	require.Equal(t, store.Indexed{Entries: 1, Rows: 20_000}, done)
	pending := pendingPages(t, dbURL, "attendee_search_trgm_idx")
	require.Greater(t, pending, int64(512), "pages pending after 20,000 search rows: an insert merged them at the default limit")
	merged, err := w.Store.CleanAttendeeSearch(t.Context())
	require.NoError(t, err)
	require.GreaterOrEqual(t, merged, pending, "pages merged")
	require.Zero(t, pendingPages(t, dbURL, "attendee_search_trgm_idx"), "pages still pending after the merge")
}

// A Cleaner indexes the queued attendees and merges what is pending on its own, each tick, and
// stops when its context ends.
func TestTheCleanerIndexesAndMergesEachTickUntilStopped(t *testing.T) {
	t.Parallel()
	st, dbURL := searchDB(t)
	ctx, stop := context.WithCancel(t.Context())
	var logs testkit.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&searchindex.Cleaner{Store: st, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Every: 20 * time.Millisecond}).Run(ctx)
	}()
	w := worldAt(t, dbURL)
	for round := range 3 {
		importAttendees(t, w, 300)
		pending := searchRows(t, dbURL, 300)
		deadline := time.Now().Add(10 * time.Second)
		for pending != 0 || searchedOf(t, dbURL, w.Event) != 300*(round+1) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: entries still pending, or attendees not indexed, 10 s after they were written", round)
			}
			time.Sleep(10 * time.Millisecond)
			pending = pendingPages(t, dbURL, "certificate_search_trgm_idx") + pendingPages(t, dbURL, "attendee_search_trgm_idx")
		}
	}
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the cleaner did not stop with its context")
	}
	if logs.String() != "" {
		t.Fatalf("the cleaner logged: %s", logs.String())
	}
}

// A role that does not own the indexes cannot merge them: the Cleaner says so once, with what
// to do, and goes on indexing the queued attendees (which the role may write) without merging.
func TestACleanerOfAnotherRoleSaysWhyAndGoesOnIndexing(t *testing.T) {
	t.Parallel()
	_, dbURL := testkit.Store(t)
	role := fmt.Sprintf("searchindex_%d", time.Now().UnixNano())
	if err := execAt(t, dbURL, `CREATE ROLE `+role+` LOGIN PASSWORD 'not-the-owner'`); err != nil {
		t.Skipf("a role of the test's own: %v", err)
	}
	t.Cleanup(func() {
		require.NoError(t, execAt(t, dbURL, `DROP OWNED BY `+role+`; DROP ROLE IF EXISTS `+role))
	})
	testkit.SQLAt(t, dbURL, `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO `+role)
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	u.User = url.UserPassword(role, "not-the-owner")
	other, err := store.Open(t.Context(), u.String())
	require.NoError(t, err)
	defer other.Close()
	_, err = other.CleanCertificateSearch(t.Context())
	require.ErrorIs(t, err, store.ErrNoPrivilege, "another role merged the certificates' index")
	_, err = other.CleanAttendeeSearch(t.Context())
	require.ErrorIs(t, err, store.ErrNoPrivilege, "another role merged the attendees' index")

	w := worldAt(t, dbURL)
	var logs testkit.Buffer
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&searchindex.Cleaner{Store: other, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Every: 10 * time.Millisecond}).Run(ctx)
	}()
	for round := range 3 {
		importAttendees(t, w, 10)
		deadline := time.Now().Add(10 * time.Second)
		for searchedOf(t, dbURL, w.Event) != 10*(round+1) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the attendees not indexed 10 s after they were written", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	stop()
	<-done
	require.Equal(t, 1, strings.Count(logs.String(), "does not own them"), "warnings: %s", logs.String())
	require.Contains(t, logs.String(), "level=WARN")
	require.NotContains(t, logs.String(), "level=ERROR")
}

// worldAt is an account with an event in the database at dbURL, on a store of the test's own.
func worldAt(t *testing.T, dbURL string) testkit.World {
	t.Helper()
	st, err := store.Open(t.Context(), dbURL)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	account, _, err := accounts.New(st, nil).Create(t.Context(), accounts.CreateParams{Email: fmt.Sprintf("w%d@example.org", time.Now().UnixNano()),
		Password: testkit.Password, Name: "Owner", AccountName: "Society"})
	require.NoError(t, err)
	tmpl, err := st.InsertTemplate(t.Context(), store.NewTemplate{AccountID: &account.ID, Name: "Plain", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"x"}}]}]}`)}, time.Now())
	require.NoError(t, err)
	ev, err := st.CreateEvent(t.Context(), account.ID, domain.EventFields{Name: "Congress", EventDate: time.Now(), TemplateID: tmpl.ID}, time.Now())
	require.NoError(t, err)
	return testkit.World{Store: st, DBURL: dbURL, Account: account.ID, Template: tmpl.ID, Event: ev.ID}
}

// importAttendees imports n attendees to the world's event, each with an email of its own,
// which queues them for the indexer.
func importAttendees(t *testing.T, w testkit.World, n int) {
	t.Helper()
	rows := make([]domain.AttendeeFields, n)
	first := time.Now().UnixNano()
	for i := range rows {
		rows[i] = domain.AttendeeFields{FirstName: "Ada", LastName: fmt.Sprintf("Lovelace %d", i), Email: fmt.Sprintf("ada.%d.%d@example.org", first, i)}
	}
	added, err := store.InTx(t.Context(), w.Store, func(tx *store.Tx) (int, error) {
		return tx.ImportAttendees(t.Context(), w.Account, w.Event, rows, false, time.Now())
	})
	require.NoError(t, err)
	require.Equal(t, n, added)
}

// searchedOf counts the search rows of the event's attendees.
func searchedOf(t *testing.T, dbURL string, event uuid.UUID) int {
	t.Helper()
	var n int
	testkit.QueryRowAt(t, dbURL, `SELECT count(*) FROM attendee_search WHERE event_id = $1`, []any{event}, &n)
	return n
}
