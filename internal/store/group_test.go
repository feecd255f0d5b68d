package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// write records a webhook.test event tagged tag (and i) in tx: what a call writes.
func write(ctx context.Context, tx *store.Tx, w testkit.World, tag string, i int) error {
	return tx.Outbox(ctx, w.Account, "webhook.test", w.Clock.Now(), map[string]any{"tag": tag, "i": i})
}

// outboxRows counts the events written with tag.
func outboxRows(t *testing.T, w testkit.World, tag string) int {
	t.Helper()
	var n int
	testkit.QueryRowAt(t, w.DBURL, `SELECT count(*)::integer FROM outbox_events WHERE payload->>'tag' = $1`, []any{tag}, &n)
	return n
}

// observed waits until Observe has been told of calls in all (it is told after the calls of a
// transaction are answered) or 5 s have passed, and returns the sizes it was told.
func observed(mu *sync.Mutex, sizes *[]int, calls int) []int {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		got, total := slices.Clone(*sizes), 0
		mu.Unlock()
		for _, n := range got {
			total += n
		}
		if total >= calls || time.Now().After(deadline) {
			return got
		}
	}
}

var errRefused = errors.New("refused")

// Calls that arrive together share transactions, each all or nothing: a call that fails (or
// panics) is undone alone, its panic raised on its own caller's goroutine, and the others of its
// transaction commit. Every answer is given after the commit, so a call that succeeded finds
// its write in the database.
func TestCallsShareTransactionsEachAllOrNothing(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	var mu sync.Mutex
	var sizes []int
	g := &store.Group[uuid.UUID, int, int]{Store: w.Store,
		Do: func(ctx context.Context, tx *store.Tx, i int) (int, error) {
			if err := write(ctx, tx, w, "test.call", i); err != nil {
				return 0, err
			}
			time.Sleep(2 * time.Millisecond) // a call takes a while, so that the next ones queue
			switch {
			case i == 7:
				panic("call 7 broke")
			case i%3 == 0:
				return 0, errRefused
			}
			return i * 10, nil
		},
		Observe: func(n int, _ bool) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() },
	}
	const calls = 40
	outcome := testkit.Race(calls, func(i int) (o int) {
		defer func() {
			if v := recover(); v != nil {
				if !strings.Contains(fmt.Sprint(v), "call 7 broke") {
					t.Errorf("call %d panicked with %v", i, v)
				}
				o = 2
			}
		}()
		r, err := g.Run(t.Context(), w.Account, i)
		switch {
		case errors.Is(err, errRefused):
			return 1
		case err != nil || r != i*10:
			t.Errorf("call %d: %d, %v", i, r, err)
			return -1
		}
		// Answered after the commit: the call's write is there, seen from another connection.
		var n int
		testkit.QueryRowAt(t, w.DBURL, `SELECT count(*)::integer FROM outbox_events WHERE payload->>'tag' = 'test.call' AND (payload->>'i')::int = $1`, []any{i}, &n)
		if n != 1 {
			t.Errorf("call %d answered before its write was committed", i)
		}
		return 0
	})
	refused := calls / 3 // 3, 6, ... 39 (0 is one too, and 7 panics)
	if outcome[0] != calls-refused-2 || outcome[1] != refused+1 || outcome[2] != 1 {
		t.Fatalf("outcomes %v", outcome)
	}
	if got := outboxRows(t, w, "test.call"); got != outcome[0] {
		t.Fatalf("%d events stayed, want the %d of the calls that succeeded", got, outcome[0])
	}
	got := observed(&mu, &sizes, calls)
	total, most := 0, 0
	for _, n := range got {
		total += n
		most = max(most, n)
	}
	if total != calls || most < 2 || len(got) >= calls {
		t.Fatalf("transactions of sizes %v: want every call in one, some with several", got)
	}
}

// A transaction takes at most Max calls.
func TestATransactionTakesAtMostMaxCalls(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	var mu sync.Mutex
	most := 0
	g := &store.Group[uuid.UUID, int, int]{Store: w.Store, Max: 3,
		Do: func(ctx context.Context, tx *store.Tx, i int) (int, error) {
			time.Sleep(2 * time.Millisecond)
			return i, write(ctx, tx, w, "test.call", i)
		},
		Observe: func(n int, _ bool) { mu.Lock(); most = max(most, n); mu.Unlock() },
	}
	testkit.Race(20, func(i int) int {
		if _, err := g.Run(t.Context(), w.Account, i); err != nil {
			t.Error(err)
		}
		return 0
	})
	if most != 3 || outboxRows(t, w, "test.call") != 20 {
		t.Fatalf("largest transaction %d calls (want 3), %d events", most, outboxRows(t, w, "test.call"))
	}
}

// Calls of different keys do not wait for each other: each key has its own transactions.
func TestKeysHaveTransactionsOfTheirOwn(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	hold, held := make(chan struct{}), make(chan struct{})
	g := &store.Group[string, string, string]{Store: w.Store,
		Do: func(ctx context.Context, tx *store.Tx, p string) (string, error) {
			if p == "slow" {
				close(held)
				<-hold
			}
			return p, nil
		},
	}
	slow := make(chan error, 1)
	go func() { _, err := g.Run(context.Background(), "a", "slow"); slow <- err }()
	<-held
	if r, err := g.Run(t.Context(), "b", "quick"); err != nil || r != "quick" {
		t.Fatalf("key b waited or failed: %q %v", r, err)
	}
	close(hold)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
}

// With two lanes, a key runs two transactions at once and never a third: a call that arrives
// while one runs starts the second at once, and the calls that arrive while both run wait and
// go together in the next ones. Every call is answered once, after its commit.
func TestTwoLanesRunTwoTransactionsOfAKeyAtOnceNeverThree(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	const calls = 40
	var mu sync.Mutex
	running, most := 0, 0
	var sizes []int
	var entered atomic.Int32
	both := make(chan struct{}) // closed once two transactions run at once
	waited, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g := &store.Group[uuid.UUID, int, int]{Store: w.Store, Lanes: 2,
		Do: func(ctx context.Context, tx *store.Tx, i int) (int, error) {
			mu.Lock()
			running++
			most = max(most, running)
			if running == 2 {
				select {
				case <-both:
				default:
					close(both)
				}
			}
			mu.Unlock()
			defer func() { mu.Lock(); running--; mu.Unlock() }()
			// The first two transactions hold their lanes until they run together and every
			// call has come to Run: the others then wait, and a third lane would show.
			select {
			case <-both:
			case <-waited.Done():
				return 0, errors.New("no second transaction ran beside this one")
			}
			for entered.Load() < calls && waited.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(5 * time.Millisecond)
			return i, write(ctx, tx, w, "test.lanes", i)
		},
		Observe: func(n int, _ bool) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() },
	}
	testkit.Race(calls, func(i int) int {
		entered.Add(1)
		if r, err := g.Run(t.Context(), w.Account, i); err != nil || r != i {
			t.Errorf("call %d answered %d, %v", i, r, err)
		}
		return 0
	})
	if n := outboxRows(t, w, "test.lanes"); n != calls {
		t.Fatalf("%d of %d calls committed", n, calls)
	}
	got := observed(&mu, &sizes, calls)
	total, largest := 0, 0
	for _, n := range got {
		total += n
		largest = max(largest, n)
	}
	mu.Lock()
	defer mu.Unlock()
	// Do runs one call at a time within a transaction: two at once were two transactions.
	if most != 2 {
		t.Fatalf("at most %d calls ran at once, want 2 (one a lane)", most)
	}
	if total != calls || largest < 2 {
		t.Fatalf("transactions of %v calls: want %d in all, some together", got, calls)
	}
}

// A call whose context ended while it waited its turn is not run.
func TestACallCancelledWhileWaitingIsNotRun(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	hold, held := make(chan struct{}), make(chan struct{})
	g := &store.Group[uuid.UUID, string, string]{Store: w.Store,
		Do: func(ctx context.Context, tx *store.Tx, p string) (string, error) {
			if p == "first" {
				close(held)
				<-hold
			}
			return p, write(ctx, tx, w, "test."+p, 0)
		},
	}
	first := make(chan error, 1)
	go func() { _, err := g.Run(context.Background(), w.Account, "first"); first <- err }()
	<-held
	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan error, 1)
	go func() { _, err := g.Run(ctx, w.Account, "second"); second <- err }()
	time.Sleep(50 * time.Millisecond) // the second call waits for the first's transaction
	cancel()
	close(hold)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	if outboxRows(t, w, "test.second") != 0 || outboxRows(t, w, "test.first") != 1 {
		t.Fatal("the cancelled call ran")
	}
}

// DoAll answers a transaction's calls at once when it can; when it fails, what it wrote is
// undone and every call runs on its own with Do, so each gets its own answer and nothing is
// written twice.
func TestDoAllAnswersTogetherOrIsUndone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		refuse   int // the call DoAll cannot take (-1: none)
		together bool
	}{{"every call plain", -1, true}, {"one call DoAll cannot take", 5, false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := testkit.NewWorld(t)
			var mu sync.Mutex
			var shared, alone int
			g := &store.Group[uuid.UUID, int, int]{Store: w.Store,
				Do: func(ctx context.Context, tx *store.Tx, i int) (int, error) {
					time.Sleep(2 * time.Millisecond)
					if i == c.refuse {
						return 0, errRefused
					}
					return i, write(ctx, tx, w, "test.call", i)
				},
				DoAll: func(ctx context.Context, tx *store.Tx, ps []int) ([]int, error) {
					for _, i := range ps {
						if err := write(ctx, tx, w, "test.call", i); err != nil {
							return nil, err
						}
					}
					if c.refuse >= 0 {
						// A call DoAll cannot take, somewhere (Do refuses it): it fails after
						// writing, and its writes must be undone.
						return nil, errRefused
					}
					return ps, nil
				},
				Observe: func(n int, together bool) {
					mu.Lock()
					defer mu.Unlock()
					if n > 1 && together {
						shared++
					} else if n > 1 {
						alone++
					}
				},
			}
			outcome := testkit.Race(20, func(i int) int {
				r, err := g.Run(t.Context(), w.Account, i)
				if errors.Is(err, errRefused) {
					return 1
				}
				if err != nil || r != i {
					t.Errorf("call %d: %d %v", i, r, err)
				}
				return 0
			})
			refused := 0
			if c.refuse >= 0 {
				refused = 1
			}
			if outcome[1] != refused || outboxRows(t, w, "test.call") != 20-refused {
				t.Fatalf("outcomes %v, %d events", outcome, outboxRows(t, w, "test.call"))
			}
			var twice int
			testkit.QueryRowAt(t, w.DBURL, `SELECT count(*) - count(DISTINCT payload->>'i') FROM outbox_events`, nil, &twice)
			mu.Lock()
			defer mu.Unlock()
			if twice != 0 || (c.together && (shared == 0 || alone != 0)) || (!c.together && alone == 0) {
				t.Fatalf("%d written twice; transactions of several calls: %d together, %d one by one", twice, shared, alone)
			}
		})
	}
}

// A transaction PostgreSQL ends to break a deadlock runs again (nothing of it committed), in a
// group of one as for a call in a shared transaction; a call that keeps failing that way is
// answered with the error after three tries.
func TestADeadlockedTransactionRunsAgain(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	deadlock := &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}
	var mu sync.Mutex
	tries := map[int]int{}
	g := &store.Group[uuid.UUID, int, int]{Store: w.Store,
		Do: func(ctx context.Context, tx *store.Tx, i int) (int, error) {
			if err := write(ctx, tx, w, "test.call", i); err != nil {
				return 0, err
			}
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			tries[i]++
			if (i%2 == 0 && tries[i] == 1) || i == 9 { // the evens once, 9 always
				return 0, deadlock
			}
			return i, nil
		},
	}
	outcome := testkit.Race(12, func(i int) int {
		r, err := g.Run(t.Context(), w.Account, i)
		switch {
		case i == 9 && errors.Is(err, deadlock):
			return 1
		case err != nil || r != i:
			t.Errorf("call %d: %d %v", i, r, err)
		}
		return 0
	})
	var twice int
	testkit.QueryRowAt(t, w.DBURL, `SELECT count(*) - count(DISTINCT payload->>'i') FROM outbox_events`, nil, &twice)
	mu.Lock()
	defer mu.Unlock()
	if outcome[1] != 1 || tries[9] != 3 || tries[4] != 2 || twice != 0 || outboxRows(t, w, "test.call") != 11 {
		t.Fatalf("outcomes %v, tries %v, %d written twice, %d events", outcome, tries, twice, outboxRows(t, w, "test.call"))
	}
}

// A panicking Observe loses the lead to nobody: the calls after it are answered.
func TestAPanickingObserverDoesNotStopTheQueue(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	g := &store.Group[uuid.UUID, int, int]{Store: w.Store,
		Do: func(ctx context.Context, tx *store.Tx, i int) (int, error) {
			time.Sleep(2 * time.Millisecond)
			return i, nil
		},
		Observe: func(int, bool) { panic("observer broke") },
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testkit.Race(10, func(i int) int {
			if r, err := g.Run(t.Context(), w.Account, i); err != nil || r != i {
				t.Errorf("call %d: %d %v", i, r, err)
			}
			return 0
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("calls left waiting after the observer panicked")
	}
}
