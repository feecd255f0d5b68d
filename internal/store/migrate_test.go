package store_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// A database that ran later migrations without an earlier one (branches merged in another
// order than they were numbered: 00026 landed after 00027 and 00028) starts, and gets the
// missing one.
func TestAMissingEarlierMigrationIsApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testkit.Database(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	// As a database migrated by a build without 00026 is.
	if _, err := conn.Exec(ctx, `ALTER TABLE badge_assertions DROP COLUMN locale;
		DELETE FROM goose_db_version WHERE version_id = 26`); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if err := st.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("migrating: %v", err)
	}
	var has bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_name = 'badge_assertions' AND column_name = 'locale')`).Scan(&has); err != nil || !has {
		t.Fatalf("badge_assertions.locale after migrating: %v %v", has, err)
	}
}

// Migration 00029 undone gives the lists' tables their searched text back, and done again fills
// the search tables with every row there is: a search (through the search tables, as a large
// list's) finds the same before and after. Not parallel: it sets the store's size of a small
// list.
func TestTheSearchTablesMigrationGoesDownAndUpAgain(t *testing.T) {
	defer store.SetSmallList(0)()
	ctx := context.Background()
	url := testkit.Database(t)
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	acct, _ := seedAccount(t, st, conn, "migrated", 48)
	indexAttendees(t, st, conn) // seeded by SQL: their search rows are the indexer's (migration 00037)
	grace := "grace"
	before, total, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{}, domain.Page{Number: 1, Size: 100, Q: &grace})
	if err != nil || total != 3 {
		t.Fatalf("before: %d found, %v", total, err)
	}

	if err := st.MigrateDownTo(ctx, 28); err != nil {
		t.Fatalf("down to 28: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM attendees WHERE account_id = $1 AND search_text LIKE '%grace%'`,
		acct).Scan(&n); err != nil || n != 3 {
		t.Fatalf("down: attendees.search_text finds %d, %v", n, err)
	}
	var tables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname IN ('attendee_search', 'certificate_search')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("down: %d search tables left, %v", tables, err)
	}

	if err := st.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("up again: %v", err)
	}
	var attendees, certificates int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM attendee_search WHERE account_id = $1),
		(SELECT count(*) FROM certificate_search WHERE account_id = $1)`, acct).Scan(&attendees, &certificates); err != nil ||
		attendees != 48 || certificates != 48 {
		t.Fatalf("up again: %d attendees and %d certificates in the search tables, %v", attendees, certificates, err)
	}
	after, total, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{}, domain.Page{Number: 1, Size: 100, Q: &grace})
	if err != nil || total != 3 || len(after) != len(before) {
		t.Fatalf("after: %d found, %v", total, err)
	}
	for i := range after {
		if after[i].ID != before[i].ID {
			t.Fatalf("after: %v, before %v", after[i].ID, before[i].ID)
		}
	}
}

// After the last migration, no function of ours writes River's tables (River's jobs are
// inserted through River's client): a River upgrade that changes them cannot break us.
func TestNoFunctionWritesRiversTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	rows, err := conn.Query(ctx, `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.prosrc ~* '(insert\s+into|update|delete\s+from)\s+river_|river_insert'
		  AND p.proname NOT LIKE 'river\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(names) > 0 {
		t.Fatalf("functions that write River's tables: %v", names)
	}
}
