// Package store owns persistence: the pgx pool, the migrations and the sqlc-generated queries.
// Generated types stay inside this package; callers get domain values and apperr errors.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// Store is the database of the service.
type Store struct {
	pool       *pgxpool.Pool
	q          *db.Queries
	sqlDB      *sql.DB // database/sql view of pool, for goose
	migrations *goose.Provider
}

// Open connects to the database at url.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	s := &Store{pool: pool, q: db.New(pool), sqlDB: stdlib.OpenDBFromPool(pool)}
	if s.migrations, err = newGooseProvider(s.sqlDB); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the pool.
func (s *Store) Close() {
	_ = s.sqlDB.Close()
	s.pool.Close()
}

// WithTx runs fn in one transaction: committed when fn returns nil, rolled back otherwise,
// a panic in fn included (a worker recovers it, and the connection with its locks must go back
// to the pool). The rollback uses a context of its own, so it survives the cancellation of ctx;
// after a commit it does nothing.
func (s *Store) WithTx(ctx context.Context, fn func(q *db.Queries) error) (err error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return mapError(err)
	}
	defer func() {
		rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tx.Rollback(rbCtx)
	}()
	if err = fn(s.q.WithTx(tx)); err != nil {
		return mapError(err)
	}
	return mapError(tx.Commit(ctx))
}

// constraintErrors turns unique and foreign-key violations into precise application errors.
var constraintErrors = map[string]func() *apperr.Error{
	"users_email_key": func() *apperr.Error {
		e := apperr.New(apperr.Conflict, "A user with this email already exists.")
		e.Details = []apperr.Detail{{Field: "email", Message: "is already registered"}}
		return e
	},
	"accounts_plan_fkey": func() *apperr.Error { return apperr.Invalid("plan", "unknown plan") },
	// Deleting an event (and its attendees) whose attendees hold badges: assertions are kept.
	"badge_assertions_account_id_attendee_id_fkey": func() *apperr.Error {
		return apperr.New(apperr.Conflict, "Attendees of this event were issued badges; issued badges are never erased.")
	},
}

// mapError is the one place where driver errors become domain errors.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := apperr.As(err); ok {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &apperr.Error{Code: apperr.NotFound, Message: "Not found.", Cause: err}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if mk, ok := constraintErrors[pgErr.ConstraintName]; ok {
			e := mk()
			e.Cause = err
			return e
		}
	}
	return err
}

// Fingerprint digests every row a request could change: equal fingerprints before and after a
// request mean that it changed nothing. Tests use it to prove that refused requests are inert.
func (s *Store) Fingerprint(ctx context.Context) (string, error) {
	fp, err := s.q.DatabaseFingerprint(ctx)
	return fp, mapError(err)
}
