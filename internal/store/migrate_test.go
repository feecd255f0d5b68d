package store_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"

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
