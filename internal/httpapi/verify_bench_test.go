package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/cmd/devtool/loadgen"
	"github.com/certhub/credentiald/internal/app"
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
	// The service runs with its runtime defaults (GOGC 400 unless GOGC is in the environment):
	// so does this process, the bare server and the load generator in it too.
	defer app.RuntimeDefaults(config.Config{GOGCSet: os.Getenv("GOGC") != "", GOMEMLIMITSet: os.Getenv("GOMEMLIMIT") != ""})()

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
	load := func(url string, d time.Duration) *loadgen.Result {
		return loadgen.Run(context.Background(), loadgen.Get(url, nil), loadgen.Options{Clients: clients, Duration: d})
	}
	load(targets["bare"], time.Second) // warm both up: connections, caches
	load(targets["verify"], time.Second)
	results := map[string]*loadgen.Result{"bare": {}, "verify": {}}
	cpuGo, cpuPG := map[string]int64{}, map[string]int64{}
	pids := backends(b, pool)
	b.ResetTimer()
	for range rounds {
		for _, name := range []string{"bare", "verify"} {
			s0, p0 := loadgen.CPUTicks(0), loadgen.CPUTicks(pids...)
			r := load(targets[name], phase)
			s1, p1 := loadgen.CPUTicks(0), loadgen.CPUTicks(pids...)
			cpuGo[name] += s1 - s0
			cpuPG[name] += p1 - p0
			results[name].Add(r)
		}
	}
	b.StopTimer()
	for name, r := range results {
		if r.Failed > 0 {
			b.Fatalf("%s: %d requests failed (first: %v)", name, r.Failed, r.FirstErr)
		}
	}
	v, bb := results["verify"], results["bare"]
	b.ReportMetric(v.Rate(), "verify-req/s")
	b.ReportMetric(bb.Rate(), "bare-req/s")
	b.ReportMetric(v.Rate()/bb.Rate(), "ratio")
	b.ReportMetric(v.P99().Seconds()*1000, "verify-p99-ms")
	b.ReportMetric(bb.P99().Seconds()*1000, "bare-p99-ms")
	b.ReportMetric(0, "ns/op")
	for _, n := range []string{"bare", "verify"} {
		b.ReportMetric(loadgen.TicksPerRequest(cpuGo[n], results[n].Requests), n+"-go-us/req")
		b.ReportMetric(loadgen.TicksPerRequest(cpuPG[n], results[n].Requests), n+"-pg-us/req")
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
