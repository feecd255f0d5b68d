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
