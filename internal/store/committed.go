package store

// Committed is what one transaction issued and spent, told once it has committed: the
// operator's counters of credentials issued and credits spent count only what is in the
// database, never what a rollback undid.
type Committed struct {
	// Issued counts the credentials issued by kind (KindCertificate, KindBadgeAssertion): what
	// Tx.CountIssued was told.
	Issued map[string]int
	// CreditsSpent counts the credits the transaction's pipelines took (Pipeline.SpendCredits).
	CreditsSpent int
}

func (c Committed) empty() bool { return len(c.Issued) == 0 && c.CreditsSpent == 0 }

// OnCommit sets the function told, after each commit, what the transaction issued and spent
// (nothing is told of a transaction that issued nothing). Set it before the store is used: it
// is read without a lock. f runs on the committing goroutine, so it must be quick.
func (s *Store) OnCommit(f func(Committed)) { s.onCommit = f }

func (t *Tx) countCommitted(kind string, n int) {
	if t.committed.Issued == nil {
		t.committed.Issued = map[string]int{}
	}
	t.committed.Issued[kind] += n
}
