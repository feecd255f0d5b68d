package testkit

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/store/changefeed"
)

// SQL runs a statement on the test's database, for arranging states the API cannot reach yet
// (for example a certificate before issuance exists). Tests assert through the API, never here.
func SQL(t testing.TB, env *Env, query string, args ...any) {
	t.Helper()
	SQLAt(t, env.Config.DatabaseURL, query, args...)
	// What the statement changed is told to the service's lookups by PostgreSQL's notices, a
	// moment later; the test's next request must not race them, so they forget all at once.
	env.Service.Changes().Changed(changefeed.Change{})
}

// SQLAt runs a statement on the database at dbURL, as SQL does, for tests without an Env.
func SQLAt(t testing.TB, dbURL, query string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// QueryRow reads one row from the test's database into dest, for assertions the API cannot
// express (such as "no attendee holds two certificates").
func QueryRow(t testing.TB, env *Env, query string, args []any, dest ...any) {
	t.Helper()
	QueryRowAt(t, env.Config.DatabaseURL, query, args, dest...)
}

// QueryRowAt is QueryRow on the database at dbURL, for tests of a service without a server.
func QueryRowAt(t testing.TB, dbURL, query string, args []any, dest ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if err := conn.QueryRow(t.Context(), query, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// Fingerprint digests the test's database (see store.Fingerprint); a failure to read it fails
// the test, so that two failures never compare equal.
func Fingerprint(t testing.TB, env *Env) string {
	t.Helper()
	fp, err := env.Store.Fingerprint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if fp == "" {
		t.Fatal("the database fingerprint is empty")
	}
	return fp
}
