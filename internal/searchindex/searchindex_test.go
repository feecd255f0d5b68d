package searchindex_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/searchindex"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// searchDB is a fresh database whose certificates' search index only the test and the
// cleaner merge (autovacuum merges a pending list too: off for the search table), with
// pgstattuple to read the pending pages (skipped where the test's role cannot create it).
func searchDB(t *testing.T) (*store.Store, string) {
	t.Helper()
	st, dbURL := testkit.Store(t)
	if err := execAt(t, dbURL, `CREATE EXTENSION IF NOT EXISTS pgstattuple`); err != nil {
		t.Skipf("pgstattuple, to read the index's pending pages: %v", err)
	}
	testkit.SQLAt(t, dbURL, `ALTER TABLE certificate_search SET (autovacuum_enabled = false)`)
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
	return pendingPages(t, dbURL)
}

func pendingPages(t *testing.T, dbURL string) int64 {
	t.Helper()
	var pages int64
	testkit.QueryRowAt(t, dbURL, `SELECT pending_pages::bigint FROM pgstatginindex('certificate_search_trgm_idx')`, nil, &pages)
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
	if left := pendingPages(t, dbURL); left != 0 {
		t.Fatalf("%d pages still pending after the merge", left)
	}
}

// A Cleaner merges what is pending on its own, each tick, and stops when its context ends.
func TestTheCleanerMergesEachTickUntilStopped(t *testing.T) {
	t.Parallel()
	st, dbURL := searchDB(t)
	ctx, stop := context.WithCancel(t.Context())
	var logs testkit.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&searchindex.Cleaner{Store: st, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Every: 20 * time.Millisecond}).Run(ctx)
	}()
	for round := range 3 {
		if searchRows(t, dbURL, 300) == 0 {
			continue // merged already
		}
		deadline := time.Now().Add(10 * time.Second)
		for pendingPages(t, dbURL) != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: entries still pending 10 s after they were written", round)
			}
			time.Sleep(10 * time.Millisecond)
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

// A role that does not own the index cannot merge it: the Cleaner says so once, with what to
// do, and stops instead of failing every second.
func TestACleanerOfAnotherRoleSaysWhyAndStops(t *testing.T) {
	t.Parallel()
	_, dbURL := testkit.Store(t)
	role := fmt.Sprintf("searchindex_%d", time.Now().UnixNano())
	if err := execAt(t, dbURL, `CREATE ROLE `+role+` LOGIN PASSWORD 'not-the-owner'`); err != nil {
		t.Skipf("a role of the test's own: %v", err)
	}
	t.Cleanup(func() {
		if err := execAt(t, dbURL, `DROP ROLE IF EXISTS `+role); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "not-the-owner")
	other, err := store.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.CleanCertificateSearch(t.Context())
	other.Close()
	if !errors.Is(err, store.ErrNoPrivilege) {
		t.Fatalf("another role merged the index: %v", err)
	}
	other, err = store.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var logs testkit.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&searchindex.Cleaner{Store: other, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Every: 10 * time.Millisecond}).Run(t.Context())
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the cleaner of a role that cannot merge kept running")
	}
	if n := strings.Count(logs.String(), "does not own it"); n != 1 || !strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("the cleaner logged %d times: %s", n, logs.String())
	}
}
