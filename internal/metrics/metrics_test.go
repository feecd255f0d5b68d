package metrics

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/changecache"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/webhooks"
)

// Recording a request on a status code its operation answered before allocates nothing: the
// middleware's cost per request is the counters' and the histogram's atomic adds.
func TestMetricsOperationRecordsWithoutAllocating(t *testing.T) {
	r := New()
	op := r.http.Operation("getEvent")
	op.Observe(http.StatusOK, time.Millisecond)
	if n := testing.AllocsPerRun(1000, func() { op.Observe(http.StatusOK, time.Millisecond) }); n != 0 {
		t.Errorf("Observe allocates %v times per request", n)
	}
	// (AllocsPerRun runs the function once more, to warm up.)
	if got := testutil.ToFloat64(r.http.requests.WithLabelValues("getEvent", "200")); got != 1002 {
		t.Errorf("getEvent 200 counted %v times, want 1002", got)
	}
}

// Requests answered at once with codes their operation has not answered yet are all counted.
func TestMetricsOperationCountsNewCodesConcurrently(t *testing.T) {
	r := New()
	op := r.http.Operation("verifyCredential")
	codes := []int{200, 304, 400, 404, 429, 500}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 600 {
				op.Observe(codes[i%len(codes)], time.Millisecond)
			}
		})
	}
	wg.Wait()
	for _, code := range []string{"200", "304", "400", "404", "429", "500"} {
		if got := testutil.ToFloat64(r.http.requests.WithLabelValues("verifyCredential", code)); got != 800 {
			t.Errorf("code %s counted %v times, want 800", code, got)
		}
	}
	if got := testutil.ToFloat64(r.http.rateLimited.WithLabelValues("verifyCredential")); got != 800 {
		t.Errorf("429s counted %v times as rate limited, want 800", got)
	}
}

// Every metric the registry serves passes Prometheus's own lint (names, units, help).
func TestMetricsPassPrometheusLint(t *testing.T) {
	r := New()
	r.Limiter(ratelimit.NewMemory(nil))
	r.EmailSender(senderFunc(func() error { return nil }), nil)
	r.Register(NewPoolCollector(func() PoolStats { return PoolStats{} }))
	r.Register(NewLookupCacheCollector(func() []LookupCache { return []LookupCache{{Name: "verification", Stats: changecache.Stats{Hits: 1}}} }))
	r.Register(NewJobsCollector(func(context.Context) ([]JobCount, error) { return nil, nil }, []string{"email"}))
	r.Issuance("certificate").Committed(map[string]int{"certificate": 1}, 1)
	r.WebhookObserver().Attempted(webhooks.OutcomeDelivered, time.Second)
	r.http.Operation("getEvent").Observe(http.StatusOK, time.Millisecond)
	problems, err := testutil.GatherAndLint(r.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// The pool's figures are read at each scrape, gauges for the connections now and counters for
// what accumulates.
func TestMetricsPoolCollectorReportsTheFiguresOfTheScrape(t *testing.T) {
	stats := PoolStats{AcquiredConns: 3, IdleConns: 2, TotalConns: 5, MaxConns: 8, AcquireCount: 120,
		AcquireDuration: 1500 * time.Millisecond, EmptyAcquireCount: 7, EmptyAcquireWaitTime: 250 * time.Millisecond, NewConnsCount: 5}
	c := NewPoolCollector(func() PoolStats { return stats })
	want := `
# HELP credentiald_db_pool_acquired_connections Connections in use now.
# TYPE credentiald_db_pool_acquired_connections gauge
credentiald_db_pool_acquired_connections 3
# HELP credentiald_db_pool_acquire_duration_seconds_total Time spent acquiring connections, waits included.
# TYPE credentiald_db_pool_acquire_duration_seconds_total counter
credentiald_db_pool_acquire_duration_seconds_total 1.5
# HELP credentiald_db_pool_empty_acquire_wait_seconds_total Time spent waiting by the acquisitions that found no idle connection.
# TYPE credentiald_db_pool_empty_acquire_wait_seconds_total counter
credentiald_db_pool_empty_acquire_wait_seconds_total 0.25
# HELP credentiald_db_pool_max_connections Most connections the pool opens.
# TYPE credentiald_db_pool_max_connections gauge
credentiald_db_pool_max_connections 8
`
	err := testutil.CollectAndCompare(c, strings.NewReader(want), "credentiald_db_pool_acquired_connections",
		"credentiald_db_pool_acquire_duration_seconds_total", "credentiald_db_pool_empty_acquire_wait_seconds_total",
		"credentiald_db_pool_max_connections")
	if err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(c); n != 13 {
		t.Errorf("%d series, want 13", n)
	}
}

// The limiter's refusals are counted by limit, its failures apart; what it answers is unchanged.
func TestMetricsLimiterCountsRefusalsByLimitAndFailures(t *testing.T) {
	r := New()
	tight := ratelimit.Limit{Name: "signin", Burst: 1, Period: time.Hour}
	l := r.Limiter(ratelimit.NewMemory(nil))
	for range 3 {
		if _, err := l.Take(t.Context(), tight, "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
	}
	failing := New().Limiter(failingLimiter{})
	if _, err := failing.Take(t.Context(), tight, "192.0.2.1"); err == nil {
		t.Fatal("the failing limiter's error was swallowed")
	}
	if got := testutil.ToFloat64(limiterOf(l).byName["signin"]); got != 2 {
		t.Errorf("signin refused %v times, want 2", got)
	}
	if got := testutil.ToFloat64(limiterOf(l).byName["global"]); got != 0 {
		t.Errorf("global refused %v times, want 0", got)
	}
	if got := testutil.ToFloat64(limiterOf(failing).failures); got != 1 {
		t.Errorf("%v failures counted, want 1", got)
	}
}

// Each attempt to send is counted by kind and outcome, a permanent failure apart from one the
// worker tries again; the sender's error goes back to the worker as it was.
func TestMetricsEmailSenderCountsAttemptsByOutcome(t *testing.T) {
	r := New()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	results := []error{nil, errors.New("connection refused"), &email.PermanentError{Err: errors.New("550 no such user")}}
	i := 0
	s := r.EmailSender(senderFunc(func() error { err := results[i]; i++; return err }), func() time.Time { return now })
	for range results {
		d := domain.EmailDelivery{OutboundEmail: domain.OutboundEmail{Kind: "certificate"}, CreatedAt: now.Add(-time.Minute)}
		err := s.Send(t.Context(), d, gomail.NewMsg())
		if err != results[i-1] {
			t.Errorf("Send returned %v, want %v", err, results[i-1])
		}
	}
	c := s.(*countingSender)
	for _, outcome := range []string{emailSent, emailTemporaryError, emailPermanentError} {
		if got := testutil.ToFloat64(c.attempts.WithLabelValues("certificate", outcome)); got != 1 {
			t.Errorf("%s counted %v times, want 1", outcome, got)
		}
	}
	if got := testutil.CollectAndCount(c.wait); got != 1 {
		t.Errorf("%d queue wait series", got)
	}
}

// River's jobs are counted at the scrape, within JobsTimeout: each of the service's queues
// shows every state, a queue only the database knows shows what it has, and a count that fails
// leaves the family out of the scrape while the others are still served.
func TestMetricsJobsCollectorCountsAtTheScrape(t *testing.T) {
	var fail error
	c := NewJobsCollector(func(ctx context.Context) ([]JobCount, error) {
		if d, ok := ctx.Deadline(); !ok || time.Until(d) > JobsTimeout {
			t.Errorf("the count runs without the scrape's bound (deadline %v, %v)", d, ok)
		}
		return []JobCount{{Queue: "email", State: "completed", Jobs: 3}, {Queue: "legacy", State: "available", Jobs: 1}}, fail
	}, []string{"email", "webhooks"})
	want := `
# HELP credentiald_jobs River's jobs now, by queue and state (available, scheduled, running, retryable, completed, cancelled, discarded, pending), counted in the database at each scrape.
# TYPE credentiald_jobs gauge
credentiald_jobs{queue="email",state="available"} 0
credentiald_jobs{queue="email",state="cancelled"} 0
credentiald_jobs{queue="email",state="completed"} 3
credentiald_jobs{queue="email",state="discarded"} 0
credentiald_jobs{queue="email",state="pending"} 0
credentiald_jobs{queue="email",state="retryable"} 0
credentiald_jobs{queue="email",state="running"} 0
credentiald_jobs{queue="email",state="scheduled"} 0
credentiald_jobs{queue="legacy",state="available"} 1
credentiald_jobs{queue="webhooks",state="available"} 0
credentiald_jobs{queue="webhooks",state="cancelled"} 0
credentiald_jobs{queue="webhooks",state="completed"} 0
credentiald_jobs{queue="webhooks",state="discarded"} 0
credentiald_jobs{queue="webhooks",state="pending"} 0
credentiald_jobs{queue="webhooks",state="retryable"} 0
credentiald_jobs{queue="webhooks",state="running"} 0
credentiald_jobs{queue="webhooks",state="scheduled"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	fail = errors.New("canceling statement due to statement timeout")
	r := New()
	r.Register(c)
	rec := httptest.NewRecorder()
	r.Handler(slog.New(slog.NewTextHandler(io.Discard, nil))).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "credentiald_jobs{") ||
		!strings.Contains(rec.Body.String(), "credentiald_build_info{") {
		t.Errorf("a failing count: %d\n%s", rec.Code, rec.Body.String())
	}
}

// Each attempt counts under its outcome, every outcome's series there from the start; the wait
// is observed once per attempt.
func TestMetricsWebhookObserverCountsAttemptsByOutcome(t *testing.T) {
	r := New()
	o := r.WebhookObserver()
	for _, outcome := range []webhooks.Outcome{webhooks.OutcomeDelivered, webhooks.OutcomeRetrying, webhooks.OutcomeRetrying, webhooks.OutcomeDisabled} {
		o.Attempted(outcome, 2*time.Minute)
	}
	w := o.(*webhookObserver)
	for outcome, want := range map[webhooks.Outcome]float64{webhooks.OutcomeDelivered: 1, webhooks.OutcomeRetrying: 2,
		webhooks.OutcomeFailed: 0, webhooks.OutcomeDisabled: 1} {
		if got := testutil.ToFloat64(w.byOutcome[outcome]); got != want {
			t.Errorf("%s counted %v times, want %v", outcome, got, want)
		}
	}
	if n := testutil.CollectAndCount(r.reg, "credentiald_webhook_deliveries_total"); n != len(webhooks.Outcomes) {
		t.Errorf("%d outcome series, want %d", n, len(webhooks.Outcomes))
	}
}

// A nil registry is metrics off: the decorators hand back what they were given.
func TestMetricsOffDecorateNothing(t *testing.T) {
	var off *Registry
	l, s := ratelimit.NewMemory(nil), senderFunc(func() error { return nil })
	if off.Limiter(l) != ratelimit.Limiter(l) || off.Requests() != nil {
		t.Error("a nil registry decorated the limiter or has request metrics")
	}
	if _, ok := off.EmailSender(s, nil).(senderFunc); !ok {
		t.Error("a nil registry decorated the email sender")
	}
	if off.WebhookObserver() != nil || off.Issuance("certificate") != nil {
		t.Error("a nil registry observes webhooks or counts issuance")
	}
}

// The handler serves the text format to a plain scrape.
func TestMetricsHandlerServesTheTextFormat(t *testing.T) {
	r := New()
	rec := httptest.NewRecorder()
	r.Handler(slog.New(slog.NewTextHandler(io.Discard, nil))).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") ||
		!strings.Contains(rec.Body.String(), "credentiald_build_info{") {
		t.Errorf("%d %q\n%s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
}

type senderFunc func() error

func (f senderFunc) Send(context.Context, domain.EmailDelivery, *gomail.Msg) error { return f() }

type failingLimiter struct{}

func (failingLimiter) Take(context.Context, ratelimit.Limit, string) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("redis: connection refused")
}

func limiterOf(l ratelimit.Limiter) *countingLimiter { return l.(*countingLimiter) }
