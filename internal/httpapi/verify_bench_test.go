package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
)

// BenchmarkVerifyLookup loads GET /api/v1/verify/{code} with 64 concurrent clients, all
// middleware on (request id, access log at info level to a file, recovery, rate limits,
// the public path's visitor and CORS), each request from another client address
// (X-Forwarded-For through a trusted proxy, so that the 30-a-minute verification limit is
// not what is measured). Beside it, in the same run and on the same database, a bare Echo +
// pgx handler does one indexed lookup of the same row. Short phases alternate, four of each,
// so that both see the same load from whatever else runs on the machine.
// It reports both request rates, their ratio, both p99 latencies, and the CPU each request
// cost in this process (servers and load generator) and in PostgreSQL.
func BenchmarkVerifyLookup(b *testing.B) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	s := newIssuing(b, testkit.WithLogOutput(devnull, slog.LevelInfo), testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}))
	// A real issuer has branding: the lookup shows its issuer name.
	if res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "primaryColor": "#1F2A44"}); res.StatusCode != 200 {
		b.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	code := s.issue(b, "Ada", "Lovelace", nil).Data.VerificationCode

	pool, err := pgxpool.New(context.Background(), s.env.Config.DatabaseURL)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	bare := httptest.NewServer(bareLookup(pool))
	defer bare.Close()

	const clients = 64
	const rounds, phase = 4, 1500 * time.Millisecond
	targets := map[string]string{"bare": bare.URL + "/verify/" + code, "verify": s.env.URL + "/api/v1/verify/" + code}
	load(targets["bare"], clients, time.Second) // warm both up: connections, caches
	load(targets["verify"], clients, time.Second)
	results := map[string]*loadResult{"bare": {}, "verify": {}}
	cpuGo, cpuPG := map[string]int64{}, map[string]int64{}
	pids := backends(b, pool)
	b.ResetTimer()
	for range rounds {
		for _, name := range []string{"bare", "verify"} {
			s0, p0 := cpuTicks(pids)
			r := load(targets[name], clients, phase)
			s1, p1 := cpuTicks(pids)
			cpuGo[name] += s1 - s0
			cpuPG[name] += p1 - p0
			results[name].add(r)
		}
	}
	b.StopTimer()
	for name, r := range results {
		if r.failed > 0 {
			b.Fatalf("%s: %d requests failed (first: %v)", name, r.failed, r.firstErr)
		}
	}
	v, bb := results["verify"], results["bare"]
	b.ReportMetric(v.rate(), "verify-req/s")
	b.ReportMetric(bb.rate(), "bare-req/s")
	b.ReportMetric(v.rate()/bb.rate(), "ratio")
	b.ReportMetric(v.p99().Seconds()*1000, "verify-p99-ms")
	b.ReportMetric(bb.p99().Seconds()*1000, "bare-p99-ms")
	b.ReportMetric(0, "ns/op")
	for _, n := range []string{"bare", "verify"} {
		b.ReportMetric(float64(cpuGo[n])*10000/float64(results[n].requests), n+"-go-us/req")
		b.ReportMetric(float64(cpuPG[n])*10000/float64(results[n].requests), n+"-pg-us/req")
	} // a rate, not a per-operation time, is what this measures
}

// bareLookup is the yardstick: Echo with no middleware, one indexed lookup of the row by its
// code, a small JSON answer.
func bareLookup(pool *pgxpool.Pool) http.Handler {
	e := echo.New()
	e.GET("/verify/:code", func(c echo.Context) error {
		var number, status, first, last string
		var issued time.Time
		err := pool.QueryRow(c.Request().Context(),
			`SELECT certificate_number, status, recipient_first_name, recipient_last_name, issued_at FROM certificates WHERE verification_code = $1`,
			c.Param("code")).Scan(&number, &status, &first, &last, &issued)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{"number": number, "status": status,
			"recipient": first + " " + last, "issuedAt": issued}})
	})
	return e
}

type loadResult struct {
	requests  int
	elapsed   time.Duration
	latencies []time.Duration
	failed    int
	firstErr  error
}

func (r *loadResult) add(o *loadResult) {
	r.requests += o.requests
	r.elapsed += o.elapsed
	r.latencies = append(r.latencies, o.latencies...)
	r.failed += o.failed
	if r.firstErr == nil {
		r.firstErr = o.firstErr
	}
}

func (r *loadResult) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r *loadResult) p99() time.Duration {
	slices.Sort(r.latencies)
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[len(r.latencies)*99/100]
}

// clientAddr numbers the client addresses of the load: every request comes from another one.
var clientAddr atomic.Uint32

// load sends GET url from clients goroutines, each on its own keep-alive connection, for d.
func load(url string, clients int, d time.Duration) *loadResult {
	transport := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients,
		DialContext: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	var mu sync.Mutex
	total := &loadResult{}
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			r := &loadResult{latencies: make([]time.Duration, 0, 4096)}
			for time.Now().Before(deadline) {
				n := clientAddr.Add(1)
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", byte(n>>16), byte(n>>8), byte(n)))
				t0 := time.Now()
				res, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err == nil && res.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", res.StatusCode)
					}
				}
				r.latencies = append(r.latencies, time.Since(t0))
				r.requests++
				if err != nil {
					r.failed++
					if r.firstErr == nil {
						r.firstErr = err
					}
				}
			}
			mu.Lock()
			total.add(r)
			mu.Unlock()
		})
	}
	wg.Wait()
	total.elapsed = time.Since(start)
	return total
}

// cpuTicks returns the CPU time, in clock ticks of 10 ms, of this process (servers and load
// generator) and of the PostgreSQL backends pids, from /proc (zero elsewhere). CPU per
// request is steadier than requests per second on a machine that others share.
func cpuTicks(pids []int) (self, pg int64) {
	read := func(path string) int64 {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		return u + st
	}
	self = read("/proc/self/stat")
	for _, pid := range pids {
		pg += read(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	}
	return self, pg
}

// backends lists the server processes of the database's connections (both servers' pools,
// connected by the warm-up).
func backends(b *testing.B, pool *pgxpool.Pool) []int {
	rows, err := pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	out := make([]int, len(pids))
	for i, p := range pids {
		out[i] = int(p)
	}
	return out
}
