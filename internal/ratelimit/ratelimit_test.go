package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// takeAll spends a fresh bucket of l and checks the answers on the way.
func takeAll(t *testing.T, lim ratelimit.Limiter, l ratelimit.Limit, key string) ratelimit.Result {
	t.Helper()
	ctx := context.Background()
	for i := range l.Burst {
		r, err := lim.Take(ctx, l, key)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Allowed || r.Remaining != l.Burst-1-i || r.Limit.Burst != l.Burst {
			t.Fatalf("request %d: %+v", i+1, r)
		}
	}
	r, err := lim.Take(ctx, l, key)
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed || r.Remaining != 0 {
		t.Fatalf("request %d past the burst: %+v", l.Burst+1, r)
	}
	return r
}

func TestMemoryBucketEmptiesAndRefills(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	lim := ratelimit.NewMemory(clock.Now)
	denied := takeAll(t, lim, ratelimit.Download, "203.0.113.7")
	// 5 a minute: one token every 12 seconds.
	if s := denied.RetryAfterSeconds(); s != 12 {
		t.Fatalf("Retry-After %d s, want 12", s)
	}
	if s := denied.ResetSeconds(); s != 60 {
		t.Fatalf("reset %d s, want 60", s)
	}
	if r, _ := lim.Take(context.Background(), ratelimit.Download, "203.0.113.8"); !r.Allowed {
		t.Fatal("another address shares the bucket")
	}
	clock.Advance(12 * time.Second)
	if r, _ := lim.Take(context.Background(), ratelimit.Download, "203.0.113.7"); !r.Allowed {
		t.Fatalf("after Retry-After: %+v", r)
	}
	if r, _ := lim.Take(context.Background(), ratelimit.Download, "203.0.113.7"); r.Allowed {
		t.Fatal("one token came back, not two")
	}
}

// Concurrent requests of many addresses, spread over the limiter's shards, each get exactly
// their burst, and the buckets full again are swept a minute on without losing the others.
func TestMemoryKeepsEveryBucketUnderConcurrency(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	lim := ratelimit.NewMemory(clock.Now)
	const addresses, workers = 200, 8
	l := ratelimit.Download
	var wg sync.WaitGroup
	allowed := make([]atomic.Int32, addresses)
	for w := range workers {
		wg.Go(func() {
			for i := range addresses * (l.Burst + 2) {
				a := (i + w*37) % addresses
				r, err := lim.Take(context.Background(), l, fmt.Sprintf("198.51.100.%d/%d", a%250, a))
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					allowed[a].Add(1)
				}
			}
		})
	}
	wg.Wait()
	for a := range allowed {
		if n := allowed[a].Load(); n != int32(l.Burst) {
			t.Fatalf("address %d: %d requests allowed, want the burst of %d", a, n, l.Burst)
		}
	}
	// Half refilled, not swept: still limited; a minute and more on, swept and full again.
	clock.Advance(30 * time.Second)
	if r, _ := lim.Take(context.Background(), l, "198.51.100.0/0"); !r.Allowed || r.Remaining != 1 {
		t.Fatalf("30 s on: %+v", r)
	}
	clock.Advance(2 * time.Minute)
	takeAll(t, lim, l, "198.51.100.1/1")
}

// Two limiters on one Redis server are two instances of the service: they enforce one limit.
func TestRedisBucketIsSharedByInstances(t *testing.T) {
	t.Parallel()
	url := testkit.Redis(t)
	ctx := context.Background()
	a, err := ratelimit.NewRedis(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ratelimit.NewRedis(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	key := fmt.Sprintf("test-%d", time.Now().UnixNano())
	for i := range ratelimit.SignIn.Burst {
		lim := a
		if i%2 == 1 {
			lim = b
		}
		r, err := lim.Take(ctx, ratelimit.SignIn, key)
		if err != nil || !r.Allowed || r.Remaining != ratelimit.SignIn.Burst-1-i {
			t.Fatalf("request %d: %+v %v", i+1, r, err)
		}
	}
	r, err := b.Take(ctx, ratelimit.SignIn, key)
	if err != nil || r.Allowed {
		t.Fatalf("request 31 across two instances: %+v %v", r, err)
	}
	// 30 per 5 minutes: one attempt every 10 seconds.
	if s := r.RetryAfterSeconds(); s < 9 || s > 10 {
		t.Fatalf("Retry-After %d s, want 10", s)
	}
	denied := takeAll(t, a, ratelimit.Download, key+"-dl")
	if s := denied.RetryAfterSeconds(); s < 11 || s > 12 {
		t.Fatalf("download Retry-After %d s, want 12", s)
	}
}

func TestClientAddressTrustsForwardedForOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		peer, xff, want string
	}{
		{"203.0.113.5:4000", "198.51.100.1", "203.0.113.5"},                  // untrusted peer: header ignored
		{"10.1.2.3:4000", "198.51.100.1", "198.51.100.1"},                    // one trusted proxy
		{"10.1.2.3:4000", "6.6.6.6, 198.51.100.1, 10.9.9.9", "198.51.100.1"}, // spoofed left part ignored
		{"10.1.2.3:4000", "", "10.1.2.3"},                                    // proxy without header
		{"10.1.2.3:4000", "garbage, 10.2.2.2", "10.2.2.2"},                   // stop at a malformed hop
		{"[::ffff:203.0.113.9]:4000", "198.51.100.1", "203.0.113.9"},         // IPv4-mapped peer
		{"[2001:db8::1]:4000", "198.51.100.1", "2001:db8::1"},                // IPv6 peer
	}
	for _, tc := range cases {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := ratelimit.ClientAddr(r, trusted).String(); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
}

// The in-memory buckets of many client addresses are small and hold no pointer: 200,000
// addresses under two limits (a public load's minute) keep well under 64 bytes a bucket, and
// a collection does not read them. As strings and time.Time values they were about 100 bytes
// a bucket, every one of them read by every collection until swept.
func TestManyAddressesKeepSmallBuckets(t *testing.T) {
	lim := ratelimit.NewMemory(nil)
	ctx := context.Background()
	const addresses = 200_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range addresses {
		key := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).String()
		for _, l := range []ratelimit.Limit{ratelimit.Global, ratelimit.Verification} {
			if r, err := lim.Take(ctx, l, key); err != nil || !r.Allowed {
				t.Fatalf("address %s, a first request: %+v, %v", key, r, err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(lim)
	perBucket := float64(after.HeapAlloc-before.HeapAlloc) / (2 * addresses)
	if perBucket > 64 {
		t.Errorf("%.0f bytes a bucket kept", perBucket)
	}
	t.Logf("%.1f bytes a bucket", perBucket)
}
