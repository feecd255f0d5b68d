package store

import "github.com/certhub/credentiald/internal/store/changefeed"

// OnCommit sets the function told, after each commit, what the transaction issued, spent and
// changed (nothing is told of a transaction that did none of these), and after each data
// method run outside a transaction that changed a credential. Set it before the store is used: it
// is read without a lock. f runs on the committing goroutine, so it must be quick.
func (s *Store) OnCommit(f func(changefeed.Committed)) { s.onCommit = f }

func (t *Tx) countCommitted(kind string, n int) {
	if t.committed.Issued == nil {
		t.committed.Issued = map[string]int{}
	}
	t.committed.Issued[kind] += n
}
