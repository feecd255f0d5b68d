package store

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/certhub/credentiald/internal/audit"
)

// GroupMax is how many calls one transaction takes at most. Each call's savepoint takes a
// subtransaction id, and PostgreSQL keeps only 64 per transaction in shared memory (see
// Tx.Savepoint); 32 also bounds how long the last call of a transaction waits.
const GroupMax = 32

// groupTimeout bounds one transaction: its calls' own contexts do not, since one caller's going
// away must not fail the others.
const groupTimeout = time.Minute

// Group runs the concurrent transactions of one key (an account) as one transaction with one
// commit, each call still all-or-nothing in a savepoint of its own: with the executor
// (executor.go), the store's half of an issuance. The services give it what one call does
// (Do) and, optionally, what all of a transaction's calls do at once (DoAll); they never see
// a savepoint.
//
// An account's issuances take the account's hot rows (its credit row, its number counter, its
// analytics counters) and hold them until their commit, so they run one after the other, and
// each one waits for its commit's WAL flush with those rows held:
// one account's issuance rate was bounded by its commits, whatever the number of clients.
// Here the calls that arrive while a key's transactions run (one, or Lanes) wait for one to
// end, then go together in the next: the first of them leads it (runs it on its goroutine) and
// every call of it waits for its commit. A call's answer is given only after the commit, so
// every answer is true to what committed; when the commit fails, every call of the
// transaction fails and nothing of any stays.
//
// Within a transaction, calls run in their arrival order, each in a savepoint: a call that
// fails (a refusal, CREDIT_LIMIT, an error of the database) is undone alone, and the next call
// sees the data as the calls before it left it (the credits they spent, the numbers they
// took). A transaction of one call runs without a savepoint.
//
// Its fields are set before its first call.
type Group[K comparable, P, R any] struct {
	Store *Store
	// Prepare, when set, runs first in every transaction of more than one call, with every
	// call's parameters, in arrival order: it takes the locks the calls would take one by one,
	// in one order, so that calls of one transaction never wait on a lock held by another
	// transaction that waits for this one's.
	Prepare func(ctx context.Context, tx *Tx, ps []P) error
	// Do is one call's work in tx.
	Do func(ctx context.Context, tx *Tx, p P) (R, error)
	// DoAll, when set, is tried first on every transaction of more than one call, after
	// Prepare: every call's work at once (fewer round trips than one Do after the other),
	// answering every call in order. When it answers an error, what it did is undone (it runs
	// in a savepoint) and the calls run one by one with Do, each answered on its own.
	DoAll func(ctx context.Context, tx *Tx, ps []P) ([]R, error)
	// Max is the most calls a transaction takes (0: GroupMax).
	Max int
	// Lanes is how many transactions of one key run at once (0: one). With two, the next
	// transaction takes its locks, reads and does its own work while the one before it holds
	// the hot rows through its writes and commit: PostgreSQL's row locks order their writes.
	// Calls still wait only when every lane is taken.
	Lanes int
	// Observe, when set, is told the size of every transaction once it has ended, and whether
	// DoAll answered its calls.
	Observe func(calls int, together bool)
	// Resource, when set, names what a call that succeeded made, for its audit entry (the
	// calls' work runs without their own audit entries, one transaction serving many).
	Resource func(p P, r R) audit.Resource

	mu     sync.Mutex
	queues map[K]*groupQueue[P, R]
}

type groupQueue[P, R any] struct {
	waiting []*groupCall[P, R]
	running int // transactions of the key running (at most Lanes)
}

type groupCall[P, R any] struct {
	ctx context.Context
	p   P
	r   R
	err error
	// panicked is the panic that ended the call (in Do, or in its transaction), with the stack
	// where it began: Run panics with it on the call's own goroutine.
	panicked error
	done     chan struct{}           // closed once r and err are set
	lead     chan []*groupCall[P, R] // given the calls of the transaction it is to lead (its own first)
}

// Run runs Do(p) in a transaction shared with the other calls of key that arrive meanwhile,
// and answers once that transaction has ended: Do's answer when it committed, its error (its
// writes undone) or the commit's error. A call waiting its turn is not cancelled with ctx: it
// waits for a lane (a transaction of the key to end; more than one when more than Max calls
// were waiting before it), and one whose ctx has ended by its turn is not run.
func (g *Group[K, P, R]) Run(ctx context.Context, key K, p P) (R, error) {
	c := &groupCall[P, R]{ctx: ctx, p: p, done: make(chan struct{}), lead: make(chan []*groupCall[P, R], 1)}
	g.mu.Lock()
	if g.queues == nil {
		g.queues = map[K]*groupQueue[P, R]{}
	}
	q, ok := g.queues[key]
	if !ok {
		q = &groupQueue[P, R]{}
		g.queues[key] = q
	}
	q.waiting = append(q.waiting, c)
	next := g.take(q)
	g.mu.Unlock()
	if next != nil {
		next[0].lead <- next // c itself: nothing waited while a lane was free
	}
	select {
	case <-c.done:
	case calls := <-c.lead:
		g.lead(key, q, calls)
		<-c.done
	}
	if c.panicked != nil {
		panic(c.panicked)
	}
	return c.r, c.err
}

// errPanicked is a call's error while its panic is carried to its caller.
var errPanicked = errors.New("store: group: the call panicked")

// do runs c's Do in tx, a panic in it turned into c.panicked (and errPanicked), so that the
// transaction's other calls go on and the panic reaches c's caller.
func (g *Group[K, P, R]) do(ctx context.Context, tx *Tx, c *groupCall[P, R]) (err error) {
	defer func() {
		if v := recover(); v != nil {
			c.panicked = fmt.Errorf("panic: %v\n\n%s", v, debug.Stack())
			err = errPanicked
		}
	}()
	c.r, err = g.Do(ctx, tx, c.p)
	return err
}

// take, with g.mu held, takes the first waiting calls (at most Max) for a transaction when a
// lane is free, counting it as running; nil when no call waits or every lane is taken.
func (g *Group[K, P, R]) take(q *groupQueue[P, R]) []*groupCall[P, R] {
	if len(q.waiting) == 0 || q.running >= max(g.Lanes, 1) {
		return nil
	}
	limit := g.Max
	if limit <= 0 {
		limit = GroupMax
	}
	n := min(len(q.waiting), limit)
	calls := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	q.running++
	return calls
}

// lead runs the transaction of calls (the leader's own first among them), answers them, then
// hands its lane to the calls that arrived meanwhile, or ends the key's queue when nothing
// runs or waits.
func (g *Group[K, P, R]) lead(key K, q *groupQueue[P, R], calls []*groupCall[P, R]) {
	together := g.runTx(calls)
	for _, c := range calls {
		close(c.done)
	}
	g.handOff(key, q)
	if g.Observe != nil {
		g.observe(len(calls), together)
	}
}

// handOff frees a lane of the key: the first calls that arrived meanwhile go in its next
// transaction, led by the first of them. It runs before anything else may fail: a queue left
// with calls waiting and no transaction to take them would keep them waiting for ever.
func (g *Group[K, P, R]) handOff(key K, q *groupQueue[P, R]) {
	g.mu.Lock()
	q.running--
	next := g.take(q)
	if q.running == 0 {
		delete(g.queues, key)
	}
	g.mu.Unlock()
	if next != nil {
		next[0].lead <- next
	}
}

// observe tells Observe, whose panic is no caller's: it is dropped.
func (g *Group[K, P, R]) observe(calls int, together bool) {
	defer func() { _ = recover() }()
	g.Observe(calls, together)
}

// doAll runs DoAll for calls in a savepoint and reports whether it answered them all; when it
// did not (an error, a panic, an answer of another length), the savepoint is undone.
func (g *Group[K, P, R]) doAll(ctx context.Context, tx *Tx, calls []*groupCall[P, R]) bool {
	ps := make([]P, len(calls))
	for i, c := range calls {
		ps[i] = c.p
	}
	var rs []R
	err := tx.Savepoint(ctx, func(tx *Tx) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("panic: %v", v) // the calls run one by one, where it is theirs
			}
		}()
		rs, err = g.DoAll(ctx, tx, ps)
		if err == nil && len(rs) != len(calls) {
			err = fmt.Errorf("store: group: DoAll answered %d of %d calls", len(rs), len(calls))
		}
		return err
	})
	if err != nil {
		return false
	}
	for i, c := range calls {
		c.r, c.err = rs[i], nil
	}
	return true
}

// runTx runs calls in one transaction and sets their answers; together says whether DoAll
// answered them and they committed. It never panics: a panic of a
// call's Do is that call's (see do); one elsewhere rolled the transaction back and is every
// call's that had not failed already.
func (g *Group[K, P, R]) runTx(calls []*groupCall[P, R]) (together bool) {
	// The leader's context carries its trace and values; not its cancellation, nor its
	// deadline, which belong to its caller alone.
	// Each call's audit entry is its own (written with its answer, see runTxOnce), not the
	// leader's.
	ctx, cancel := context.WithTimeout(audit.Without(context.WithoutCancel(calls[0].ctx)), groupTimeout)
	defer cancel()
	live := make([]*groupCall[P, R], 0, len(calls))
	for _, c := range calls {
		if c.err = c.ctx.Err(); c.err == nil {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return false
	}
	var zero R
	for attempt := 1; ; attempt++ {
		together, err := g.runTxOnce(ctx, live)
		// PostgreSQL broke a deadlock (or a serialization failure) by ending this
		// transaction: nothing of it committed, and it runs again, its calls answered anew.
		if err == nil || !Retryable(err) || attempt == groupRetries {
			return together
		}
		for _, c := range live {
			c.r, c.err, c.panicked = zero, nil, nil
		}
	}
}

// retries is how many times a transaction that PostgreSQL ended to break a deadlock runs.
const groupRetries = 3

// runTxOnce runs live in one transaction and sets their answers; err is the transaction's own
// (its commit's, or what ended it), nil when it committed.
func (g *Group[K, P, R]) runTxOnce(ctx context.Context, live []*groupCall[P, R]) (together bool, err error) {
	var zero R
	defer func() {
		if v := recover(); v != nil {
			p := fmt.Errorf("panic: %v\n\n%s", v, debug.Stack())
			for _, c := range live {
				if c.err == nil {
					c.r, c.err, c.panicked = zero, errPanicked, p
				}
			}
		}
	}()
	var audited []*audit.Pending
	defer func() {
		if err != nil {
			for _, p := range audited {
				p.Untake()
			}
		}
	}()
	// writeAudit writes the audit entries of the calls that succeeded, in the transaction
	// that commits their changes.
	writeAudit := func(tx *Tx) error {
		for _, c := range live {
			if c.err != nil {
				continue
			}
			p := audit.From(c.ctx)
			if g.Resource != nil {
				if r := g.Resource(c.p, c.r); r.Type != "" {
					audit.Describe(c.ctx, r.Type, r.ID, "")
				}
			}
			if e, ok := p.Take(time.Now()); ok {
				audited = append(audited, p)
				if err := tx.InsertAuditEntry(ctx, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	_, err = InTx(ctx, g.Store, func(tx *Tx) (struct{}, error) {
		if len(live) == 1 {
			c := live[0]
			if c.err = g.do(ctx, tx, c); c.err != nil {
				return struct{}{}, c.err
			}
			return struct{}{}, writeAudit(tx)
		}
		if g.Prepare != nil {
			ps := make([]P, len(live))
			for i, c := range live {
				ps[i] = c.p
			}
			if err := g.Prepare(ctx, tx, ps); err != nil {
				return struct{}{}, err
			}
		}
		if g.DoAll != nil && g.doAll(ctx, tx, live) {
			together = true
			return struct{}{}, writeAudit(tx)
		}
		// A savepoint that could not be undone leaves the transaction aborted: the calls after
		// it fail, and so does the commit, which fails every call (nothing of any stays).
		for _, c := range live {
			for attempt := 1; attempt == 1 || (Retryable(c.err) && attempt <= groupRetries); attempt++ {
				c.panicked = nil
				c.err = tx.Savepoint(ctx, func(tx *Tx) error { return g.do(ctx, tx, c) })
			}
		}
		return struct{}{}, writeAudit(tx)
	})
	if err == nil {
		return together, nil
	}
	for _, c := range live {
		if c.err == nil {
			c.r, c.err = zero, err
		}
	}
	return false, err
}
