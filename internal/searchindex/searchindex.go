// Package searchindex keeps the search tables (attendee_search, certificate_search: migration
// 00029) apart from the writes that make them change.
//
// The attendees' search rows are written here, not by the statements that write attendees:
// those add an entry to a queue in their transaction (migration 00037), and Cleaner writes the
// search rows of what is queued, a few times a second. A search (q) of attendees may therefore
// trail the writes by up to 2 seconds, as the contract says; the lists and their totals do not.
//
// Both search tables sit under a trigram GIN index. A GIN index takes new entries into a
// pending list, and the insert that finds the list past its limit merges the list into the
// index proper, within its transaction. The certificates' search rows are written by the
// issuing transaction, which holds the account's credit row, so every issuance of the account
// would wait behind that merge. Migrations 00033 and 00037 raise both indexes' limit to 64 MB,
// a bound for when nothing else merges them, and Cleaner merges their lists every second, in
// statements of their own that hold nothing a request waits for.
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

// Every is how often a Cleaner merges the indexes' pending lists, unless told otherwise.
const Every = time.Second

// IndexEvery is how often a Cleaner looks for queued attendees, unless told otherwise: a
// search trails a write by up to this and the time its indexing takes (a large import's
// takes longest; docs/benchmarks.md), within the 2 seconds the contract allows. An empty
// queue costs one short transaction.
const IndexEvery = Every / 4

// Cleaner writes the queued attendees' search rows, every IndexEvery, and merges the pending
// entries of both search indexes, every Every. Every instance of the service runs one; one
// indexes at a time (the others find the queue held and look again at their next tick), and a
// merge already running elsewhere is waited for, and then finds little left.
type Cleaner struct {
	Store      *store.Store
	Logger     *slog.Logger
	Every      time.Duration // 0: Every
	IndexEvery time.Duration // 0: IndexEvery, or Every when that is shorter
}

// Run indexes and merges at their intervals until ctx ends. A failure is logged once, until
// that work succeeds again, and the next tick tries again. A role that does not own the
// indexes (it did not run the migrations) cannot merge them: that is told once, and Run goes
// on indexing without merging (inserts merge the lists themselves past the indexes' limit).
func (c *Cleaner) Run(ctx context.Context) {
	every := cmp.Or(c.Every, Every)
	indexTick := time.NewTicker(cmp.Or(c.IndexEvery, min(IndexEvery, every)))
	defer indexTick.Stop()
	mergeTick := time.NewTicker(every)
	defer mergeTick.Stop()
	indexing := work{name: "indexing the attendees' search rows"}
	merging := work{name: "merging the search indexes"}
	for {
		var stopped bool
		select {
		case <-ctx.Done():
			return
		case <-indexTick.C:
			stopped = c.do(ctx, &indexing, func() error {
				_, err := c.Store.IndexAttendeeSearch(ctx)
				return err
			})
		case <-mergeTick.C:
			var denied error
			stopped = c.do(ctx, &merging, func() error {
				_, err := c.Store.CleanCertificateSearch(ctx)
				if err == nil {
					_, err = c.Store.CleanAttendeeSearch(ctx)
				}
				if errors.Is(err, store.ErrNoPrivilege) {
					denied, err = err, nil
				}
				return err
			})
			if denied != nil {
				mergeTick.Stop()
				c.Logger.WarnContext(ctx, "the search indexes are not merged apart: this database role does not own them "+
					"(run the service as the role that ran its migrations); an insert merges an index past 64 MB of pending entries, "+
					"making that account's issuances wait", "error", denied)
			}
		}
		if stopped {
			return
		}
	}
}

// work is one of Run's tasks, and whether its last try failed.
type work struct {
	name    string
	failing bool
}

// do runs f as w, logging its first failure of a run of them, and answers whether ctx ended.
func (c *Cleaner) do(ctx context.Context, w *work, f func() error) (stopped bool) {
	err := recovery.Run(ctx, c.Logger, "panic while "+w.name, f)
	switch {
	case err == nil:
		w.failing = false
	case ctx.Err() != nil:
		return true
	case !w.failing && !recovery.Is(err):
		w.failing = true
		c.Logger.ErrorContext(ctx, w.name+"; trying again each tick", "error", err)
	}
	return false
}
