// Package store keeps the data: the pgx pool, the migrations and the sqlc-generated queries.
// It decides no rule and speaks no HTTP. The services open transactions with InTx and call the
// data methods on the transaction value; the same methods run on *Store one statement at a time.
// Generated types and pgx stay inside this package: callers get domain values and the typed
// errors of errors.go.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// Store is the database of the service. Its data methods (those of queries) each run on their
// own, committed at once; what must happen together runs in InTx.
type Store struct {
	queries
	pool       *pgxpool.Pool
	sqlDB      *sql.DB // database/sql view of pool, for goose
	migrations *goose.Provider
	jobs       *river.Client[pgx.Tx] // inserts jobs only (see newJobInserter)
	onCommit   func(changefeed.Committed)
}

// Tx is one open transaction: the store's data methods, run inside it. It lives only during
// the function given to InTx.
type Tx struct {
	queries
	tx   pgx.Tx
	jobs *river.Client[pgx.Tx]
	// committed is what the transaction issued and spent, told to Store.OnCommit's function.
	committed changefeed.Committed
}

// queries are the data methods, shared by Store and Tx: the generated queries on conn (the
// pool, or the transaction).
type queries struct {
	q    *db.Queries
	conn db.DBTX
	// changed records a change a data method made: Tx.noteChange in a transaction, told after
	// its commit; Store.changedNow outside one.
	changed func(changefeed.Change)
}

// Option adjusts what Open makes: the connection pool, the client that inserts jobs.
type Option func(*options)

type options struct {
	pool       *pgxpool.Config
	jobPlugins []rivertype.Plugin
}

// WithTracer has every query of the store's connections traced by t (pgx's tracer: what a
// statement ran, with which arguments, and how long it took). Tracers given by several
// options all trace, in their order (a benchmark's counting tracer beside OpenTelemetry's).
func WithTracer(t pgx.QueryTracer) Option {
	return func(o *options) {
		if prev := o.pool.ConnConfig.Tracer; prev != nil {
			t = multitracer.New(prev, t)
		}
		o.pool.ConnConfig.Tracer = t
	}
}

// WithJobPlugins installs River plugins on the client the store inserts jobs with (Tx.InsertJob):
// River's OpenTelemetry middleware writes the inserting span's trace context into the job.
func WithJobPlugins(ps ...rivertype.Plugin) Option {
	return func(o *options) { o.jobPlugins = append(o.jobPlugins, ps...) }
}

// Open connects to the database at url.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	o := options{pool: cfg}
	for _, opt := range opts {
		opt(&o)
	}
	cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
		registerUUID(conn.TypeMap())
		return nil
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
	s := &Store{queries: queries{q: db.New(pool), conn: pool}, pool: pool, sqlDB: stdlib.OpenDBFromPool(pool)}
	s.queries.changed = s.changedNow
	if s.migrations, err = newGooseProvider(s.sqlDB); err != nil {
		s.Close()
		return nil, err
	}
	if s.jobs, err = newJobInserter(s, o.jobPlugins); err != nil {
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

// rollbackTimeout bounds the rollback of a transaction whose context is gone.
const rollbackTimeout = 5 * time.Second

// commitTimeout bounds the commit of a transaction, which runs on a context of its own.
const commitTimeout = 10 * time.Second

// InTx runs fn in one transaction and returns its result: committed when fn returns nil,
// rolled back otherwise, a panic in fn included (the panic goes on once the connection, with
// its locks, is back in the pool). The rollback runs on a context of its own, so it survives
// the cancellation of ctx; after a commit it does nothing. So does the commit, once fn has
// done its work: a COMMIT cancelled in flight (a client gone, a group's deadline) may still
// land while its caller hears that it failed, and every answer must be true to what committed.
// fn must not keep tx.
func InTx[T any](ctx context.Context, s *Store, fn func(tx *Tx) (T, error)) (T, error) {
	var zero T
	ptx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return zero, mapError(err)
	}
	defer func() {
		rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_ = ptx.Rollback(rbCtx)
	}()
	tx := &Tx{queries: queries{q: s.q.WithTx(ptx), conn: ptx}, tx: ptx, jobs: s.jobs}
	tx.queries.changed = tx.noteChange
	out, err := fn(tx)
	if err != nil {
		return zero, err // the data methods' errors are mapped already; the service's are its own
	}
	// The request's audit entry, if it carries one not yet written, commits with its change.
	pending := audit.From(ctx)
	entry, took := pending.Take(time.Now())
	if took {
		if err := tx.InsertAuditEntry(ctx, entry); err != nil {
			pending.Untake()
			return zero, err
		}
	}
	commitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	if err := ptx.Commit(commitCtx); err != nil {
		if took {
			pending.Untake()
		}
		// The commit may have landed all the same (an answer lost on the way): what the
		// transaction changed is forgotten anyway, which costs a cache a read at most. What
		// it issued and spent is not counted: the counters count only what surely is.
		if s.onCommit != nil && len(tx.committed.Changed) > 0 {
			s.onCommit(changefeed.Committed{Changed: tx.committed.Changed})
		}
		return zero, mapError(err)
	}
	if s.onCommit != nil && !tx.committed.Empty() {
		s.onCommit(tx.committed)
	}
	return out, nil
}

// Fingerprint digests every row of every table of the public schema (API keys without their
// last use, which authentication itself moves): equal fingerprints before and after a request
// mean that it changed nothing. Tests use it to prove that refused requests are inert.
func (s *Store) Fingerprint(ctx context.Context) (string, error) {
	fp, err := s.q.DatabaseFingerprint(ctx)
	if err != nil {
		return "", fmt.Errorf("fingerprinting the database: %w", mapError(err))
	}
	return fp, nil
}

// PoolStats is what the connection pool reports of itself, for the operator's metrics.
type PoolStats struct {
	AcquiredConns, IdleConns, ConstructingConns, TotalConns, MaxConns int32

	AcquireCount            int64
	AcquireDuration         time.Duration
	CanceledAcquireCount    int64
	EmptyAcquireCount       int64
	EmptyAcquireWaitTime    time.Duration
	NewConnsCount           int64
	MaxLifetimeDestroyCount int64
	MaxIdleDestroyCount     int64
}

// PoolStats reads the connection pool's statistics now.
func (s *Store) PoolStats() PoolStats {
	st := s.pool.Stat()
	return PoolStats{AcquiredConns: st.AcquiredConns(), IdleConns: st.IdleConns(), ConstructingConns: st.ConstructingConns(),
		TotalConns: st.TotalConns(), MaxConns: st.MaxConns(), AcquireCount: st.AcquireCount(), AcquireDuration: st.AcquireDuration(),
		CanceledAcquireCount: st.CanceledAcquireCount(), EmptyAcquireCount: st.EmptyAcquireCount(),
		EmptyAcquireWaitTime: st.EmptyAcquireWaitTime(), NewConnsCount: st.NewConnsCount(),
		MaxLifetimeDestroyCount: st.MaxLifetimeDestroyCount(), MaxIdleDestroyCount: st.MaxIdleDestroyCount()}
}
