package store

import "context"

// SetSmallList sets the size under which a list is searched on its own rows, for a test that
// does not run in parallel; the answer puts it back.
func SetSmallList(n int64) (restore func()) {
	prev := smallList
	smallList = n
	return func() { smallList = prev }
}

// MigrateDownTo undoes the migrations after version, for a test of their Down.
func (s *Store) MigrateDownTo(ctx context.Context, version int64) error {
	_, err := s.migrations.DownTo(ctx, version)
	return err
}

// TuplesRead is how many rows of table the transaction's statements have read so far, by
// sequential and index scans (PostgreSQL's pg_stat_xact_user_tables).
func (tx *Tx) TuplesRead(ctx context.Context, table string) (int64, error) {
	var n int64
	err := tx.tx.QueryRow(ctx, `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
		FROM pg_stat_xact_user_tables WHERE relname = $1`, table).Scan(&n)
	return n, err
}

// MapError is mapError, for a test of what the store makes of a driver's error.
func MapError(err error) error { return mapError(err) }
