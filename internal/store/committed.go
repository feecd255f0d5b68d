package store

// Committed is what one transaction issued, spent and changed, told once it has committed: the
// operator's counters of credentials issued and credits spent count only what is in the
// database, never what a rollback undid, and a cache forgets what changed only once the change
// can be read.
type Committed struct {
	// Issued counts the credentials issued by kind (KindCertificate, KindBadgeAssertion): the
	// counts of the issuances applied (Tx.ApplyIssuance).
	Issued map[string]int
	// CreditsSpent counts the credits the transaction's issuances took (Tx.ApplyIssuance).
	CreditsSpent int
	// Changed names the credentials whose public face the transaction changed (revoked, made
	// out again, their recipient's token, their issuer's branding).
	Changed []Change
}

func (c Committed) empty() bool {
	return len(c.Issued) == 0 && c.CreditsSpent == 0 && len(c.Changed) == 0
}

// OnCommit sets the function told, after each commit, what the transaction issued, spent and
// changed (nothing is told of a transaction that did none of these), and after each data
// method run outside a transaction that changed a credential. Set it before the store is used: it
// is read without a lock. f runs on the committing goroutine, so it must be quick.
func (s *Store) OnCommit(f func(Committed)) { s.onCommit = f }

func (t *Tx) countCommitted(kind string, n int) {
	if t.committed.Issued == nil {
		t.committed.Issued = map[string]int{}
	}
	t.committed.Issued[kind] += n
}
