package httpmw

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// The access log of public verification is a summary: one line every summaryEvery per route
// and status with the count and the durations, instead of a line per request. A line per
// request cost a JSON encoding and a write system call, a noticeable share of a lookup, on
// the path that takes most of the traffic; what a public lookup did is rarely worth a line of
// its own. Failures are still logged one by one by the error handler (4xx as warnings, 5xx as
// errors, with the request id), and LOG_LEVEL=debug brings the line per request back, with
// the telemetry path (a wallet offer's route, never its token) and no query string.
const summaryEvery = 10 * time.Second

type accessKey struct {
	method, route string
	status        int
}

type accessTally struct {
	count   int
	total   time.Duration
	slowest time.Duration
	samples []time.Duration // the first few hundred, for a median
}

type AccessSummary struct {
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	since   time.Time
	tallies map[accessKey]*accessTally
}

func NewAccessSummary(logger *slog.Logger) *AccessSummary {
	return &AccessSummary{logger: logger, now: time.Now, since: time.Now(), tallies: map[accessKey]*accessTally{}}
}

// Middleware answers the request (rendering an error through the error handler, as the access
// log does for the others) and counts it.
func (a *AccessSummary) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := a.now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		req, res := c.Request(), c.Response()
		took := a.now().Sub(start)
		if a.logger.Enabled(req.Context(), slog.LevelDebug) {
			a.logger.LogAttrs(req.Context(), slog.LevelDebug, "request", slog.String("method", req.Method),
				slog.String("path", telemetryPath(c)), slog.String("route", c.Path()), slog.Int("status", res.Status),
				slog.Int64("bytes", res.Size), slog.Float64("duration_ms", float64(took.Microseconds())/1000))
		}
		a.add(accessKey{method: req.Method, route: c.Path(), status: res.Status}, took, start)
		return nil
	}
}

func (a *AccessSummary) add(k accessKey, took time.Duration, at time.Time) {
	a.mu.Lock()
	t := a.tallies[k]
	if t == nil {
		t = &accessTally{}
		a.tallies[k] = t
	}
	t.count++
	t.total += took
	t.slowest = max(t.slowest, took)
	if len(t.samples) < 512 {
		t.samples = append(t.samples, took)
	}
	var due map[accessKey]*accessTally
	var window time.Duration
	if window = at.Sub(a.since); window >= summaryEvery {
		due, a.tallies, a.since = a.tallies, map[accessKey]*accessTally{}, at
	}
	a.mu.Unlock()
	if due != nil {
		a.write(due, window)
	}
}

func (a *AccessSummary) write(tallies map[accessKey]*accessTally, window time.Duration) {
	keys := make([]accessKey, 0, len(tallies))
	for k := range tallies {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y accessKey) int {
		if c := strings.Compare(x.route, y.route); c != 0 {
			return c
		}
		if c := strings.Compare(x.method, y.method); c != 0 {
			return c
		}
		return x.status - y.status
	})
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, k := range keys {
		t := tallies[k]
		slices.Sort(t.samples)
		a.logger.LogAttrs(context.Background(), slog.LevelInfo, "public requests", slog.String("method", k.method), slog.String("route", k.route),
			slog.Int("status", k.status), slog.Int("count", t.count), slog.Float64("window_s", window.Seconds()),
			slog.Float64("mean_ms", ms(t.total/time.Duration(t.count))), slog.Float64("median_ms", ms(t.samples[len(t.samples)/2])),
			slog.Float64("slowest_ms", ms(t.slowest)))
	}
}
