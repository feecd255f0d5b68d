package store

import "context"

// Savepoint runs fn in a savepoint of the transaction: what fn wrote stays in the transaction
// when it returns nil, and is undone (ROLLBACK TO SAVEPOINT) when it returns an error, the
// transaction going on as before fn. What fn counted (the credentials its issuances wrote, the
// credits they spent, the changes its data methods made) joins the transaction's counts only when its
// writes stay. fn must not keep tx.
//
// A savepoint costs two round trips (SAVEPOINT, then RELEASE or ROLLBACK TO), and each one that
// writes takes a subtransaction id: PostgreSQL keeps 64 per transaction in shared memory, and
// past that every snapshot of every session looks them up on disk, so a transaction should
// hold fewer.
func (t *Tx) Savepoint(ctx context.Context, fn func(tx *Tx) error) error {
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return mapError(err)
	}
	child := &Tx{queries: queries{q: t.q.WithTx(sp), conn: sp}, tx: sp, jobs: t.jobs}
	child.queries.changed = child.noteChange
	if err := fn(child); err != nil {
		rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		if rbErr := sp.Rollback(rbCtx); rbErr != nil {
			// The transaction is unusable: the caller's commit fails, and nothing of it stays.
			return mapError(rbErr)
		}
		return err
	}
	if err := sp.Commit(ctx); err != nil {
		return mapError(err)
	}
	for kind, n := range child.committed.Issued {
		t.countCommitted(kind, n)
	}
	t.committed.CreditsSpent += child.committed.CreditsSpent
	t.committed.Changed = append(t.committed.Changed, child.committed.Changed...)
	return nil
}
