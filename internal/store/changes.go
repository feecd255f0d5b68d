package store

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/store/changefeed"
)

// The store's half of the change feed (internal/store/changefeed): the changes its data
// methods make, told through the commit hook, and the connections changefeed.Watch listens on.

// noteChange records a change the transaction made: told after its commit, with what it issued.
func (t *Tx) noteChange(c changefeed.Change) { t.committed.Changed = append(t.committed.Changed, c) }

// changedNow tells a change made by a statement that committed on its own (a data method of
// Store outside a transaction).
func (s *Store) changedNow(c changefeed.Change) {
	if s.onCommit != nil {
		s.onCommit(changefeed.Committed{Changed: []changefeed.Change{c}})
	}
}

// Listener opens a connection of its own, outside the pool, for changefeed.Watch to LISTEN on.
func (s *Store) Listener(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
}

// Notify sends a notice on channel through the pool.
func (s *Store) Notify(ctx context.Context, channel, payload string) error {
	_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, $2)", channel, payload)
	return err
}
