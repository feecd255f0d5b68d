package verification

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
)

// action is what a counted request did; one request may do several (a view is also a
// verification).
type action uint8

const (
	viewed action = 1 << iota
	verified
	downloaded
	shared
)

type dayKey struct {
	account, event uuid.UUID
	kind           string
	day            time.Time
}

type tally struct{ views, verifications, downloads, shares int }

type credentialKey struct {
	kind string
	id   uuid.UUID
}

// maxPending bounds what the recorder holds between flushes (rows of counters plus first
// verifications). Past it, a flush is started at once; should the database stay away that
// long, newer activity is dropped and the loss logged rather than memory growing without end.
const maxPending = 50_000

// Recorder counts public activity in memory and writes it in batches: a lookup pays a map
// update under a mutex, never a database write. Run flushes every interval and once more when
// stopped, so a clean shutdown loses nothing.
type Recorder struct {
	store    *store.Store
	now      func() time.Time
	logger   *slog.Logger
	interval time.Duration
	wake     chan struct{}

	mu      sync.Mutex
	days    map[dayKey]*tally
	firsts  map[credentialKey]time.Time
	dropped int
}

func newRecorder(st *store.Store, now func() time.Time, logger *slog.Logger, interval time.Duration) *Recorder {
	if interval <= 0 {
		interval = 2 * time.Second
	}
	return &Recorder{store: st, now: now, logger: logger, interval: interval, wake: make(chan struct{}, 1),
		days: map[dayKey]*tally{}, firsts: map[credentialKey]time.Time{}}
}

// record counts what a request did with credential c at time at. It reports whether the count
// was taken (a first verification with it): past maxPending, nothing is.
func (r *Recorder) record(c Credential, at time.Time, a action) bool {
	at = at.UTC()
	k := dayKey{account: c.AccountID, event: c.EventID, kind: c.storeKind,
		day: time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)}
	r.mu.Lock()
	t := r.days[k]
	if t == nil {
		if len(r.days)+len(r.firsts) >= maxPending {
			r.dropped++
			r.mu.Unlock()
			r.kick()
			return false
		}
		t = &tally{}
		r.days[k] = t
	}
	if a&viewed != 0 {
		t.views++
	}
	if a&verified != 0 {
		t.verifications++
		if !c.verifiedBefore {
			ck := credentialKey{kind: c.storeKind, id: c.ID}
			if first, ok := r.firsts[ck]; !ok || at.Before(first) {
				r.firsts[ck] = at
			}
		}
	}
	if a&downloaded != 0 {
		t.downloads++
	}
	if a&shared != 0 {
		t.shares++
	}
	full := len(r.days)+len(r.firsts) >= maxPending/2
	r.mu.Unlock()
	if full {
		r.kick()
	}
	return true
}

func (r *Recorder) kick() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Flush writes what was counted since the last flush. On failure the counts are kept for the
// next one.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	days, firsts, dropped := r.days, r.firsts, r.dropped
	r.days, r.firsts, r.dropped = map[dayKey]*tally{}, map[credentialKey]time.Time{}, 0
	r.mu.Unlock()
	if dropped > 0 {
		r.logger.ErrorContext(ctx, "verification activity dropped: too much was waiting for the database", "requests", dropped)
	}
	if len(days) == 0 && len(firsts) == 0 {
		return nil
	}
	rows := make([]store.DailyActivity, 0, len(days))
	for k, t := range days {
		rows = append(rows, store.DailyActivity{AccountID: k.account, Day: k.day, EventID: k.event, CredentialKind: k.kind,
			Views: t.views, Verifications: t.verifications, Downloads: t.downloads, Shares: t.shares})
	}
	fs := make([]store.FirstVerification, 0, len(firsts))
	for k, at := range firsts {
		fs = append(fs, store.FirstVerification{Kind: k.kind, ID: k.id, At: at})
	}
	if _, err := store.InTx(ctx, r.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.AddVerificationActivity(ctx, rows, fs)
	}); err != nil {
		r.restore(days, firsts)
		return err
	}
	return nil
}

// restore puts counts that could not be written back, to be added to the next flush.
func (r *Recorder) restore(days map[dayKey]*tally, firsts map[credentialKey]time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, t := range days {
		cur := r.days[k]
		if cur == nil {
			r.days[k] = t
			continue
		}
		cur.views += t.views
		cur.verifications += t.verifications
		cur.downloads += t.downloads
		cur.shares += t.shares
	}
	for k, at := range firsts {
		if first, ok := r.firsts[k]; !ok || at.Before(first) {
			r.firsts[k] = at
		}
	}
}

// Run flushes every interval (sooner when much is waiting) until ctx is done, then once more
// with a context of its own, so that what was counted before a clean shutdown is written. A
// panic while flushing is logged with its stack and the loop goes on.
func (r *Recorder) Run(ctx context.Context) {
	tick := time.NewTicker(r.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			r.flush(final)
			cancel()
			return
		case <-tick.C:
		case <-r.wake:
		}
		r.flush(ctx)
	}
}

func (r *Recorder) flush(ctx context.Context) {
	err := recovery.Run(ctx, r.logger, "panic while writing verification activity", func() error { return r.Flush(ctx) })
	if err != nil && !recovery.Is(err) {
		r.logger.ErrorContext(ctx, "writing verification activity; kept for the next attempt", "error", err)
	}
}
