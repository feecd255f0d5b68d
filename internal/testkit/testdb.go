// Package testkit gives tests real parts: a fresh PostgreSQL database per test, cloned from a
// template migrated once, and the service behind an HTTP server whose every answer goes
// through the contract-validating client.
package testkit

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/internal/embeddedpg"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

// Main runs a package's tests and records the contract coverage they observed.
func Main(m *testing.M) {
	// Tests run in a non-UTC zone to flush out time bugs.
	if loc, err := time.LoadLocation("America/St_Johns"); err == nil {
		time.Local = loc
	}
	code := m.Run()
	if err := coverage.Flush(coverage.DefaultDir()); err != nil {
		fmt.Fprintln(os.Stderr, "recording contract coverage:", err)
	}
	os.Exit(code)
}

var (
	setupOnce sync.Once
	serverURL *url.URL // any database of the test server; the admin connection
	template  string
	setupErr  error
)

// Database returns the URL of a new database with every migration applied, dropped when the
// test ends. It uses $TEST_DATABASE_URL's server, or starts the private test cluster.
func Database(t testing.TB) string {
	t.Helper()
	setupOnce.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatalf("test database: %v", setupErr)
	}
	ctx := context.Background()
	name := "t_" + randomHex(8)
	admin, err := pgx.Connect(ctx, serverURL.String())
	if err != nil {
		t.Fatalf("connecting to the test server: %v", err)
	}
	defer admin.Close(ctx)
	// Concurrent clones of one template can collide briefly; try again.
	for attempt := 0; ; attempt++ {
		_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{template}.Sanitize())
		if err == nil || attempt == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("cloning the template database: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, serverURL.String())
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	return withDatabase(serverURL, name)
}

// Store opens a fresh database as a store, closed when the test ends.
func Store(t testing.TB) (*store.Store, string) {
	t.Helper()
	dbURL := Database(t)
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, dbURL
}

func setup() error {
	ctx := context.Background()
	raw := os.Getenv("TEST_DATABASE_URL")
	if raw == "" {
		c, err := embeddedpg.Start(ctx, filepath.Join(coverage.ModuleRoot(), ".data", "postgres-test"), embeddedpg.Options{Ephemeral: true})
		if err != nil {
			return err
		}
		raw = c.URL()
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("TEST_DATABASE_URL: %w", err)
	}
	serverURL = u
	hash, err := migrationsHash()
	if err != nil {
		return err
	}
	template = "tmpl_" + hash
	return ensureTemplate(ctx)
}

// ensureTemplate builds the template database once per migration set, across processes.
func ensureTemplate(ctx context.Context) error {
	admin, err := pgx.Connect(ctx, serverURL.String())
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(4242424242)"); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock(4242424242)") //nolint:errcheck
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", template).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := template + "_building"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{building}.Sanitize()+" WITH (FORCE)"); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{building}.Sanitize()); err != nil {
		return err
	}
	st, err := store.Open(ctx, withDatabase(serverURL, building))
	if err != nil {
		return err
	}
	err = st.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	st.Close()
	if err != nil {
		return fmt.Errorf("migrating the template: %w", err)
	}
	_, err = admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{building}.Sanitize()+" RENAME TO "+pgx.Identifier{template}.Sanitize())
	return err
}

// migrationsHash names the template by its content (migrations and the system templates
// written with them), so a changed file builds a new one.
func migrationsHash() (string, error) {
	h := sha256.New()
	for _, files := range []fs.FS{dbfiles.Migrations, dbfiles.SystemTemplates} {
		err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(files, path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%s\x00", path, b)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func withDatabase(u *url.URL, name string) string {
	c := *u
	c.Path = "/" + name
	return c.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
