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

// PlanCounts is how many times a statement prepared on the transaction's connection ran on
// its generic plan and on a custom plan (PostgreSQL's pg_prepared_statements).
type PlanCounts struct{ Generic, Custom int64 }

// PreparedPlans answers PlanCounts of the statements prepared on the transaction's connection,
// by their sqlc name (the "-- name: X" their text begins with).
func (tx *Tx) PreparedPlans(ctx context.Context) (map[string]PlanCounts, error) {
	rows, err := tx.tx.Query(ctx, `SELECT substring(statement FROM '-- name: (\w+)'), generic_plans, custom_plans
		FROM pg_prepared_statements WHERE statement LIKE '-- name: %'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]PlanCounts{}
	for rows.Next() {
		var name string
		var c PlanCounts
		if err := rows.Scan(&name, &c.Generic, &c.Custom); err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, rows.Err()
}

// Setting reads a setting of the transaction's session; SetLocal sets one for the transaction.
func (tx *Tx) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := tx.tx.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&v)
	return v, err
}

func (tx *Tx) SetLocal(ctx context.Context, name, value string) error {
	_, err := tx.tx.Exec(ctx, `SELECT set_config($1, $2, true)`, name, value)
	return err
}
