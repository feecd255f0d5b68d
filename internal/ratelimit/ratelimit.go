// Package ratelimit enforces request limits with token buckets (GCRA: one timestamp of state
// per key), in memory for one instance or in Redis for several. Most buckets are per client
// address; public verification's are also per credential and per verification code (see
// Credential and CodeAssets).
package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Limit is a token bucket: Burst tokens, refilled at Burst per Period.
type Limit struct {
	Name   string
	Burst  int
	Period time.Duration
}

func (l Limit) interval() time.Duration { return l.Period / time.Duration(l.Burst) }

// The service's limits, per client address.
var (
	Global       = Limit{Name: "global", Burst: 100, Period: time.Minute}
	SignIn       = Limit{Name: "signin", Burst: 30, Period: 5 * time.Minute}
	Verification = Limit{Name: "verify", Burst: 30, Period: time.Minute}
	Download     = Limit{Name: "download", Burst: 5, Period: time.Minute}
	// PasswordLinks bounds the requests of password reset links a client address makes.
	PasswordLinks = Limit{Name: "password-links", Burst: 5, Period: time.Hour}
)

// The limits of public verification that are not per client address. Behind one address may
// be a whole venue (300 attendees on the conference Wi-Fi opening their certificate emails in
// the same minute, each page loading its preview and the issuer's logo too), which the
// address's buckets would refuse after some thirty of them.
var (
	// Credential is the bucket of one credential, keyed by its verification code: a request
	// that carries the credential's recipient token (?t=, the delivery email's link and the
	// page's own assets) counts here instead of its address's verification and global buckets.
	Credential = Limit{Name: "credential", Burst: 30, Period: time.Minute}
	// CodeAssets is the bucket of one verification code's assets (the QR code, the preview, the
	// logo, the badge images, the share card, the signed credentials, the PDF) asked without a
	// token, beside the address's global bucket.
	CodeAssets = Limit{Name: "code-assets", Burst: 60, Period: time.Minute}
	// TokenLookups bounds, per client address, the database reads that checking recipient
	// tokens may make before the other limits count (a code the lookups do not keep in memory):
	// a venue's pages take one each, and a client past it has its tokens counted as not the
	// recipient's, against its address.
	TokenLookups = Limit{Name: "token-lookups", Burst: 1000, Period: time.Minute}
)

// Result is the state of one bucket after a request.
type Result struct {
	Limit      Limit
	Allowed    bool
	Remaining  int
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // until the next request is allowed, when denied
}

// ResetSeconds and RetryAfterSeconds round up, so that a client waiting that long succeeds.
func (r Result) ResetSeconds() int      { return ceilSeconds(r.Reset) }
func (r Result) RetryAfterSeconds() int { return max(1, ceilSeconds(r.RetryAfter)) }

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// Limiter takes one token from the bucket of key under l.
type Limiter interface {
	Take(ctx context.Context, l Limit, key string) (Result, error)
}

// gcra decides one request: tat is the bucket's theoretical arrival time (zero when unknown).
// It returns the result and the new tat to store when allowed.
func gcra(l Limit, tat, now time.Time) (Result, time.Time) {
	t, tau := l.interval(), l.Period
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(t)
	if allowAt := next.Add(-tau); now.Before(allowAt) {
		return Result{Limit: l, Allowed: false, Remaining: 0, Reset: tat.Sub(now), RetryAfter: allowAt.Sub(now)}, tat
	}
	return resultAfter(l, next.Sub(now)), next
}

// resultAfter is an allowed request's result, given how far the new tat lies ahead of now.
func resultAfter(l Limit, ahead time.Duration) Result {
	remaining := int((l.Period - ahead) / l.interval())
	return Result{Limit: l, Allowed: true, Remaining: max(0, remaining), Reset: ahead}
}

// Memory is a Limiter for one instance. Its buckets are spread over shards by a hash of the
// key, each with its own lock and its own sweep of the buckets that are full again: many
// client addresses (a crawl, an unfurling burst) make a large map, and one lock over all of it
// would make every request wait for its growth and for the minute's sweep.
//
// A bucket is kept as two integers: the 64-bit hash of its limit and key (seeded at random for the
// process, so no client can choose keys that collide) and its theoretical arrival time in Unix
// nanoseconds. A map of them holds no pointer, so the garbage collector never reads it: kept as
// strings and time.Time values, the buckets of the public loads' hundreds of thousands of client
// addresses were most of the live heap, read by every collection of the minute until they were
// swept, and the collector took most of the server's CPU in a bulk job run in that minute
// (docs/benchmarks.md, Figures behind design choices). Two keys of one hash would share a bucket:
// with a million buckets, about one chance in 40 million that any two do.
type Memory struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [memoryShards]memoryShard
}

const memoryShards = 64

type memoryShard struct {
	mu    sync.Mutex
	tats  map[uint64]int64 // theoretical arrival times (Unix ns), by the hash of limit and key
	swept int64            // Unix ns of the last sweep
}

// NewMemory returns an in-memory limiter; now may be nil (time.Now).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].tats = map[uint64]int64{}
	}
	return m
}

// Take implements Limiter.
func (m *Memory) Take(_ context.Context, l Limit, key string) (Result, error) {
	now := m.now()
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(l.Name)
	h.WriteByte(0)
	h.WriteString(key)
	k := h.Sum64()
	sh := &m.shards[k%memoryShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now.UnixNano()-sh.swept > int64(time.Minute) {
		// Forget buckets that are full again: their state equals no state.
		for k, tat := range sh.tats {
			if tat < now.UnixNano() {
				delete(sh.tats, k)
			}
		}
		sh.swept = now.UnixNano()
	}
	var tat time.Time
	if ns, ok := sh.tats[k]; ok {
		tat = time.Unix(0, ns)
	}
	res, next := gcra(l, tat, now)
	if res.Allowed {
		sh.tats[k] = next.UnixNano()
	}
	return res, nil
}

// ClientAddr is the address limits are counted against: the TCP peer, or, when the peer is a
// trusted proxy, the nearest untrusted address in X-Forwarded-For (read from the right, since
// the left part is whatever the client chose to send).
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := peer.Addr().Unmap()
	if !isTrusted(addr, trusted) {
		return addr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: trust nothing to its left
		}
		hop = hop.Unmap()
		if !isTrusted(hop, trusted) {
			return hop
		}
		addr = hop
	}
	return addr
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
