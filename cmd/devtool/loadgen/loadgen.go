// Package loadgen drives an HTTP server with many concurrent keep-alive clients, each request
// from another client address (X-Forwarded-For, believed through TRUSTED_PROXIES), and reports
// the rate, the latency quantiles and the CPU it cost. The HTTP load benchmark (`make
// bench-http`) and BenchmarkVerifyLookup both use it, so that their figures mean the same.
package loadgen

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what one or more phases of load measured.
type Result struct {
	Requests  int
	Elapsed   time.Duration
	Latencies []time.Duration
	Failed    int
	FirstErr  error
	// Missed counts the requests of an open loop (Options.Rate) that fell due but were never
	// sent: the caller stopped the run, or Options.Requests were sent. The requests still
	// waiting for a client when the phase ends are sent and timed (Elapsed grows by the time
	// they take), so a server that cannot keep up shows as a rate under the one offered.
	Missed int
}

// Add accumulates o into r (phases of one kind of load).
func (r *Result) Add(o *Result) {
	r.Requests += o.Requests
	r.Elapsed += o.Elapsed
	r.Latencies = append(r.Latencies, o.Latencies...)
	r.Failed += o.Failed
	r.Missed += o.Missed
	if r.FirstErr == nil {
		r.FirstErr = o.FirstErr
	}
}

// Rate is requests per second.
func (r *Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Quantile returns the latency below which the fraction q of the requests finished.
func (r *Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	slices.Sort(r.Latencies)
	i := int(float64(len(r.Latencies)) * q)
	return r.Latencies[min(i, len(r.Latencies)-1)]
}

// P50 and P99 are the median and the 99th percentile latency.
func (r *Result) P50() time.Duration { return r.Quantile(0.50) }
func (r *Result) P99() time.Duration { return r.Quantile(0.99) }

// Request builds the n-th request of a load (n counts from 1 across all clients and phases
// of the process), so that each request may name another row.
type Request func(n uint32) (*http.Request, error)

// Get returns a Request that GETs url with the headers given.
func Get(url string, header http.Header) Request {
	return func(uint32) (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err == nil {
			maps.Copy(req.Header, header)
		}
		return req, err
	}
}

// counter numbers the requests of the process: every request comes from another client
// address, and Request functions may use it to pick their row.
var counter atomic.Uint32

// ClientAddr is the n-th client address of the load, in 10.0.0.0/8.
func ClientAddr(n uint32) string {
	return fmt.Sprintf("10.%d.%d.%d", byte(n>>16), byte(n>>8), byte(n))
}

// Options tune a load.
type Options struct {
	Clients  int           // concurrent clients, each on its own keep-alive connection
	Duration time.Duration // how long to send
	// WantStatus is the status every answer must have (default 200); others count as failed.
	WantStatus int
	// Requests, when positive, ends the run once that many requests are sent, before Duration
	// if they go faster: a pass over a set of requests (n consecutive numbers).
	Requests int
	// Rate, when positive, offers requests at that many a second, evenly spaced, whatever the
	// answers (an open loop), for Duration, instead of each client sending its next request on
	// its last answer (a closed loop, whose latency is its clients' queue: by Little's law,
	// Clients / rate). A request's latency counts from the moment it was due, so a wait for a
	// free client is part of it (no coordinated omission). Clients bounds the requests in
	// flight: give enough that the server, not the clients, is what requests wait for.
	Rate float64
}

// Run sends requests built by next from opts.Clients goroutines for opts.Duration, or until
// ctx ends, and returns what it measured.
func Run(ctx context.Context, next Request, opts Options) *Result {
	want := opts.WantStatus
	if want == 0 {
		want = http.StatusOK
	}
	transport := &http.Transport{MaxIdleConnsPerHost: opts.Clients, MaxConnsPerHost: opts.Clients,
		DialContext: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	// A request runs under the caller's ctx (Ctrl-C ends one that a hung server never answers);
	// the phase's end only stops new requests, so that it cuts none short.
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	var mu sync.Mutex
	total := &Result{}
	start := time.Now()
	var wg sync.WaitGroup
	var sent atomic.Int64
	due := pace(ctx, opts.Rate, start)
	for range opts.Clients {
		wg.Go(func() {
			r := &Result{Latencies: make([]time.Duration, 0, 4096)}
			for {
				var t0 time.Time
				if due != nil {
					// An open loop serves every request that fell due within the phase, those
					// still waiting for a client when it ended included: they are its slowest.
					at, ok := <-due
					if !ok || outer.Err() != nil {
						break
					}
					t0 = at
				} else if ctx.Err() != nil {
					break
				}
				if opts.Requests > 0 && sent.Add(1) > int64(opts.Requests) {
					break
				}
				n := counter.Add(1)
				req, err := next(n)
				if err != nil {
					r.fail(err)
					break
				}
				req.Header.Set("X-Forwarded-For", ClientAddr(n))
				if due == nil {
					t0 = time.Now() // a closed loop times the request alone, not its making
				}
				res, err := client.Do(req.WithContext(outer))
				if outer.Err() != nil {
					break // stopped by the caller: not a failure of the server
				}
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err == nil && res.StatusCode != want {
						err = fmt.Errorf("%s %s: status %d", req.Method, req.URL.Path, res.StatusCode)
					}
				}
				r.Latencies = append(r.Latencies, time.Since(t0))
				r.Requests++
				if err != nil {
					r.fail(err)
				}
			}
			mu.Lock()
			total.Add(r)
			mu.Unlock()
		})
	}
	wg.Wait()
	total.Elapsed = time.Since(start)
	cancel() // the pacer stops (the caller stopped the run, or Requests were sent)
	if due != nil {
		for range due {
			total.Missed++
		}
	}
	return total
}

// pace hands out the times requests are due, rate a second from start, until ctx ends; nil
// when rate is not positive (a closed loop). A request that no client is free to take waits
// in the channel with its due time: the time it waits is its latency too.
func pace(ctx context.Context, rate float64, start time.Time) <-chan time.Time {
	if rate <= 0 {
		return nil
	}
	due := make(chan time.Time, 1<<16)
	go func() {
		defer close(due)
		interval := time.Duration(float64(time.Second) / rate)
		for k := time.Duration(0); ; k++ {
			at := start.Add(k * interval)
			if wait := time.Until(at); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
			select {
			case <-ctx.Done():
				return
			case due <- at:
			}
		}
	}()
	return due
}

func (r *Result) fail(err error) {
	r.Failed++
	if r.FirstErr == nil {
		r.FirstErr = err
	}
}

// CPUTicks returns the CPU time, in clock ticks of 10 ms, of the processes pids together,
// from /proc (zero elsewhere, or for a process that is gone). CPU per request is steadier than
// requests per second on a machine that others share.
func CPUTicks(pids ...int) int64 {
	var total int64
	for _, pid := range pids {
		name := "self"
		if pid != 0 {
			name = strconv.Itoa(pid)
		}
		b, err := os.ReadFile(filepath.Join("/proc", name, "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += u + st
	}
	return total
}

// TreeCPUTicks is CPUTicks of process parent and its children (a PostgreSQL cluster: the
// postmaster, its backends, the WAL writer, the checkpointer). A child that exited between
// two readings takes its ticks with it: read it over phases in which the pools stay open.
func TreeCPUTicks(parent int) int64 {
	if parent <= 0 {
		return 0 // no such process (CPUTicks(0) would read this one)
	}
	pids := []int{parent}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if ppid, _ := strconv.Atoi(f[1]); ppid == parent {
			pids = append(pids, pid)
		}
	}
	return CPUTicks(pids...)
}

// TicksPerRequest turns clock ticks into microseconds per request.
func TicksPerRequest(ticks int64, requests int) float64 {
	if requests == 0 {
		return 0
	}
	return float64(ticks) * 10000 / float64(requests)
}

// LoadAverage returns the three figures of /proc/loadavg, over 1, 5 and 15 minutes ("" elsewhere).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
