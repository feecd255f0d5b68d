package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/gen/db"
)

// Migrate applies the service's migrations and River's. Instances starting at once take
// turns: one migrates, the others find nothing left to do.
func (s *Store) Migrate(ctx context.Context, logger *slog.Logger) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	q := db.New(conn)
	if err := q.LockMigrations(ctx); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer func() { _ = q.UnlockMigrations(context.WithoutCancel(ctx)) }()

	results, err := s.migrations.Up(ctx)
	if err != nil {
		return fmt.Errorf("applying migrations: %w", err)
	}
	for _, r := range results {
		logger.InfoContext(ctx, "migration applied", "version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(s.pool), nil)
	if err != nil {
		return err
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("applying job queue migrations: %w", err)
	}
	for _, v := range res.Versions {
		logger.InfoContext(ctx, "job queue migration applied", "version", v.Version)
	}
	if err := seedSystemTemplates(ctx, q); err != nil {
		return fmt.Errorf("writing the system templates: %w", err)
	}
	return nil
}

// Ready reports whether the database answers and every migration is applied.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	pending, err := s.migrations.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if pending {
		return fmt.Errorf("migrations pending")
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(s.pool), nil)
	if err != nil {
		return err
	}
	res, err := migrator.Validate(ctx, nil)
	if err != nil {
		return err
	}
	if !res.OK {
		return fmt.Errorf("job queue migrations pending: %v", res.Messages)
	}
	return nil
}

func newGooseProvider(sqlDB *sql.DB) (*goose.Provider, error) {
	migrations, err := fs.Sub(dbfiles.Migrations, "migrations")
	if err != nil {
		return nil, err
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	// Out of order: branches merged in another order than they were numbered leave a database
	// that ran the higher migrations without a lower one (00026 merged after 00027 and 00028 in
	// session 10); goose would refuse to start it. Each migration stands on its own, so the
	// missing one is applied.
	return goose.NewProvider(goose.DialectPostgres, sqlDB, migrations, goose.WithSessionLocker(locker),
		goose.WithAllowOutofOrder(true))
}
