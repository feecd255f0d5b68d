// Package searchindex keeps the certificates' search index from making issuances wait.
//
// The search rows of certificates (certificate_search, migration 00029) are written by the
// issuing transaction, under a trigram GIN index. A GIN index takes new entries into a pending
// list, and the insert that finds the list past its limit merges the list into the index proper,
// within its transaction: 50-150 ms here for the default 4 MB. An issuing transaction holds the
// account's credit row, so every issuance of the account waited behind that merge, and at a
// thousand issuances a second a few in a hundred met one. Migration 00033 raises the index's
// limit to 64 MB, a bound for when nothing else merges it, and Cleaner merges the list every
// second, in a statement of its own that holds nothing an issuance waits for.
package searchindex

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
)

// Every is how often a Cleaner merges, unless told otherwise: at a thousand issuances a second,
// about 1.8 MB of pending entries each time.
const Every = time.Second

// Cleaner merges the pending entries of the certificates' search index into the index proper,
// every Every. Every instance of the service runs one; a merge already running elsewhere is
// waited for, and then finds little left.
type Cleaner struct {
	Store  *store.Store
	Logger *slog.Logger
	Every  time.Duration // 0: Every
}

// Run merges every interval until ctx ends. A failure is logged once, until a merge succeeds
// again, and the next tick tries again; a role that does not own the index (it did not run the
// migrations) is told once and Run ends: every merge would fail the same way, and inserts merge
// the list themselves past the index's limit.
func (c *Cleaner) Run(ctx context.Context) {
	tick := time.NewTicker(cmp.Or(c.Every, Every))
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := recovery.Run(ctx, c.Logger, "panic while merging the certificates' search index", func() error {
			_, err := c.Store.CleanCertificateSearch(ctx)
			return err
		})
		switch {
		case err == nil:
			failing = false
		case ctx.Err() != nil:
			return
		case errors.Is(err, store.ErrNoPrivilege):
			c.Logger.WarnContext(ctx, "the certificates' search index is not merged apart: this database role does not own it "+
				"(run the service as the role that ran its migrations); an insert merges it past 64 MB of pending entries, "+
				"making that account's issuances wait", "error", err)
			return
		case !failing && !recovery.Is(err):
			failing = true
			c.Logger.ErrorContext(ctx, "merging the certificates' search index; trying again each tick", "error", err)
		}
	}
}
