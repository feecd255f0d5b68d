package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// With METRICS_ADDR set, the service serves Prometheus metrics on that listener of its own, and
// they follow real traffic: an issued certificate, its email and its webhook delivered to a
// real HTTPS receiver, a badge assertion, an issuance refused for want of credits (which counts
// nothing), a 404 outside every route, a 401, a route outside the contract, a 429 of the
// verification limit. Each family has its type and labels, the labels take no value from the
// request beyond its route and status, and promtool finds nothing to complain about.
func TestMetricsFollowRealTraffic(t *testing.T) {
	t.Parallel()
	recv := newHookReceiver(t)
	s := serveWithMetrics(t, recv.policy())
	before := s.scrape(t)
	if f := before.families["credentiald_http_requests_total"]; f != nil && len(f.Metric) > 0 {
		t.Fatalf("requests counted before any request: %v", f.Metric)
	}
	// The issuance counters and every delivery outcome are there from the start, at 0.
	for _, c := range []struct {
		name   string
		labels []string
	}{
		{"credentiald_credentials_issued_total", []string{"kind", "certificate"}},
		{"credentiald_credentials_issued_total", []string{"kind", "badge_assertion"}},
		{"credentiald_credits_spent_total", nil},
		{"credentiald_webhook_deliveries_total", []string{"outcome", "delivered"}},
		{"credentiald_webhook_deliveries_total", []string{"outcome", "disabled"}},
	} {
		if got := before.value(t, c.name, c.labels...); got != 0 {
			t.Errorf("before any request, %s%v = %v, want 0", c.name, c.labels, got)
		}
	}

	env := &testkit.Env{URL: s.api, Store: s.store, Client: contract.NewClient(t, s.api)}
	acct := testkit.SignUp(t, env)
	if res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": recv.srv.URL + "/hooks",
		"events": []string{"certificate.issued"}}); res.StatusCode != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.StatusCode, res.Body)
	}
	event := acct.Event(t, env, "Metrics Meetup")
	template := acct.Template(t, env)
	ada := acct.Attendee(t, event, "Ada", "Lovelace", "ada@example.org")
	res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{
		"eventId": event, "templateId": template, "attendeeId": ada, "sendEmail": true})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	var badge struct{ Data struct{ ID string } }
	acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker"}).JSON(t, &badge)
	if res := acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{
		"attendeeIds": []string{ada.String()}}); res.StatusCode != http.StatusOK {
		t.Fatalf("issue the badge: %d %s", res.StatusCode, res.Body)
	}
	// The month's credits run out: the next certificate is refused after its issuance was
	// written in the transaction (CREDIT_LIMIT comes from the spend, in the same round trip),
	// and the rollback leaves the issuance counters where they were.
	testkit.SQLAt(t, s.dbURL, `UPDATE credit_usage SET used = 12 WHERE account_id = $1`, acct.ID)
	grace := acct.Attendee(t, event, "Grace", "Hopper", "grace@example.org")
	if res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{
		"eventId": event, "templateId": template, "attendeeId": grace}); res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("generate without credits: %d %s", res.StatusCode, res.Body)
	}
	if res := env.Client.Get("/api/v1/no-such-route"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown route: %d", res.StatusCode)
	}
	if res := env.Client.Get("/api/v1/events"); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("events without credentials: %d", res.StatusCode)
	}
	if res := env.Client.Get("/healthz"); res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", res.StatusCode)
	}
	// The verification limit takes 30 a minute from one address: lookups until the first 429
	// (the 31st, or a little later on a loaded machine, where the bucket refills one every 2 s).
	looked := 0
	for ; looked < 60; looked++ {
		if env.Client.Get("/api/v1/verify/NO-SUCH-CODE").StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	if looked < 30 || looked == 60 {
		t.Fatalf("the first 429 came after %d verifications, want 30 or a few more", looked)
	}

	// The email and webhook workers send the certificate's message and event after the request,
	// and River marks their jobs completed a moment later; wait for all of it.
	var after scrape
	for deadline := time.Now().Add(30 * time.Second); ; {
		after = s.scrape(t)
		if after.value(t, "credentiald_email_send_attempts_total", "kind", "certificate", "outcome", "sent") == 1 &&
			after.value(t, "credentiald_webhook_deliveries_total", "outcome", "delivered") == 1 &&
			after.value(t, "credentiald_jobs", "queue", "email", "state", "completed") == 2 && // and the sign-up's verification
			after.value(t, "credentiald_jobs", "queue", "webhooks", "state", "completed") == 2 { // fan-out and delivery
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the certificate's email and webhook were not counted as sent and completed:\n%s", after.text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := recv.requests(); len(got) != 1 || got[0].Get("traceparent") != "" {
		t.Fatalf("the receiver got %d requests (want 1), without tracing configured: %v", len(got), got)
	}

	for _, f := range []struct {
		name   string
		typ    dto.MetricType
		labels []string
	}{
		{"credentiald_http_requests_total", dto.MetricType_COUNTER, []string{"code", "operation"}},
		{"credentiald_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"code", "operation"}},
		{"credentiald_http_requests_in_flight", dto.MetricType_GAUGE, nil},
		{"credentiald_http_rate_limited_total", dto.MetricType_COUNTER, []string{"operation"}},
		{"credentiald_rate_limit_refusals_total", dto.MetricType_COUNTER, []string{"limit"}},
		{"credentiald_rate_limit_errors_total", dto.MetricType_COUNTER, nil},
		{"credentiald_email_send_attempts_total", dto.MetricType_COUNTER, []string{"kind", "outcome"}},
		{"credentiald_email_send_duration_seconds", dto.MetricType_HISTOGRAM, nil},
		{"credentiald_email_queue_wait_seconds", dto.MetricType_HISTOGRAM, nil},
		{"credentiald_credentials_issued_total", dto.MetricType_COUNTER, []string{"kind"}},
		{"credentiald_credits_spent_total", dto.MetricType_COUNTER, nil},
		{"credentiald_issuance_transaction_requests", dto.MetricType_HISTOGRAM, nil},
		{"credentiald_webhook_deliveries_total", dto.MetricType_COUNTER, []string{"outcome"}},
		{"credentiald_webhook_queue_wait_seconds", dto.MetricType_HISTOGRAM, nil},
		{"credentiald_jobs", dto.MetricType_GAUGE, []string{"queue", "state"}},
		{"credentiald_build_info", dto.MetricType_GAUGE, []string{"goversion", "revision", "version"}},
		{"credentiald_db_pool_connections", dto.MetricType_GAUGE, nil},
		{"credentiald_db_pool_acquires_total", dto.MetricType_COUNTER, nil},
		{"credentiald_lookup_cache_hits_total", dto.MetricType_COUNTER, []string{"cache"}},
		{"credentiald_lookup_cache_misses_total", dto.MetricType_COUNTER, []string{"cache"}},
		{"credentiald_lookup_cache_entries", dto.MetricType_GAUGE, []string{"cache"}},
		{"credentiald_lookup_cache_listening", dto.MetricType_GAUGE, []string{"cache"}},
		{"go_goroutines", dto.MetricType_GAUGE, nil},
		{"go_gc_duration_seconds", dto.MetricType_SUMMARY, nil},
		{"process_cpu_seconds_total", dto.MetricType_COUNTER, nil},
		{"process_resident_memory_bytes", dto.MetricType_GAUGE, nil},
	} {
		fam := after.families[f.name]
		if fam == nil {
			t.Errorf("no family %s", f.name)
			continue
		}
		if fam.GetType() != f.typ {
			t.Errorf("%s is a %s, want a %s", f.name, fam.GetType(), f.typ)
		}
		for _, m := range fam.Metric {
			if got := labelNames(m); !slices.Equal(got, f.labels) {
				t.Errorf("%s has the labels %v, want %v", f.name, got, f.labels)
			}
		}
	}

	// The counters moved with the traffic, each request under its operation and status.
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"credentiald_http_requests_total", []string{"operation", "register", "code", "201"}, 1},
		{"credentiald_http_requests_total", []string{"operation", "createAttendee", "code", "201"}, 2},
		{"credentiald_http_requests_total", []string{"operation", "generateCertificate", "code", "402"}, 1},
		{"credentiald_http_requests_total", []string{"operation", "generateCertificate", "code", "200"}, 1},
		{"credentiald_http_requests_total", []string{"operation", "unknown", "code", "404"}, 1},
		{"credentiald_http_requests_total", []string{"operation", "listEvents", "code", "401"}, 1},
		{"credentiald_http_requests_total", []string{"operation", "healthz", "code", "200"}, 1},
		{"credentiald_http_requests_total", []string{"operation", "verifyCredential", "code", "404"}, float64(looked)},
		{"credentiald_http_requests_total", []string{"operation", "verifyCredential", "code", "429"}, 1},
		{"credentiald_http_rate_limited_total", []string{"operation", "verifyCredential"}, 1},
		{"credentiald_rate_limit_refusals_total", []string{"limit", "verify"}, 1},
		{"credentiald_rate_limit_refusals_total", []string{"limit", "global"}, 0},
		{"credentiald_rate_limit_errors_total", nil, 0},
		{"credentiald_http_requests_in_flight", nil, 0},
		{"credentiald_credentials_issued_total", []string{"kind", "certificate"}, 1},
		{"credentiald_credentials_issued_total", []string{"kind", "badge_assertion"}, 1},
		{"credentiald_credits_spent_total", nil, 2},
		{"credentiald_webhook_deliveries_total", []string{"outcome", "retrying"}, 0},
		{"credentiald_webhook_deliveries_total", []string{"outcome", "failed"}, 0},
		{"credentiald_webhook_deliveries_total", []string{"outcome", "disabled"}, 0},
		{"credentiald_jobs", []string{"queue", "webhooks", "state", "available"}, 0},
		{"credentiald_jobs", []string{"queue", "bulk", "state", "completed"}, 0},
	} {
		if got := after.value(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if info := after.families["credentiald_build_info"].GetMetric(); len(info) != 1 || info[0].GetGauge().GetValue() != 1 ||
		label(info[0], "version") == "" || !strings.HasPrefix(label(info[0], "goversion"), "go") {
		t.Errorf("credentiald_build_info: %v", info)
	}
	// The two generateCertificate calls (402, then 200) ran one after the other: two
	// transactions of one request each.
	if n := after.histogramCount(t, "credentiald_issuance_transaction_requests"); n != 2 {
		t.Errorf("credentiald_issuance_transaction_requests has %d observations, want 2", n)
	}
	if n := after.histogramCount(t, "credentiald_http_request_duration_seconds", "operation", "generateCertificate", "code", "200"); n != 1 {
		t.Errorf("the duration of generateCertificate 200 has %d observations, want 1", n)
	}
	if n := after.histogramCount(t, "credentiald_email_queue_wait_seconds"); n != 2 { // the certificate's, the sign-up's verification
		t.Errorf("the email queue wait has %d observations, want 2", n)
	}
	if n := after.histogramCount(t, "credentiald_webhook_queue_wait_seconds"); n != 1 {
		t.Errorf("the webhook queue wait has %d observations, want 1", n)
	}
	// Every queue shows every River state (8), and no other label value appears.
	if n := len(after.families["credentiald_jobs"].GetMetric()); n != 4*8 {
		t.Errorf("credentiald_jobs has %d series, want 32 (4 queues, 8 states)", n)
	}

	// No label value comes from the request: operations are names, codes are statuses.
	name, code := regexp.MustCompile(`^[A-Za-z_]+$`), regexp.MustCompile(`^[1-5][0-9][0-9]$`)
	for _, m := range after.families["credentiald_http_requests_total"].Metric {
		if op, c := label(m, "operation"), label(m, "code"); !name.MatchString(op) || !code.MatchString(c) {
			t.Errorf("a series with operation %q and code %q", op, c)
		}
	}

	checkWithPromtool(t, after.text)
}

// A metrics address that cannot be listened on stops the service at start, naming the variable.
func TestMetricsAddressInUseStopsTheStart(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := testConfig(t, testkit.Database(t))
	cfg.MetricsAddr = taken.Addr().String()
	err = app.Serve(t.Context(), cfg, logging.New(io.Discard, slog.LevelError), nil)
	if err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Fatalf("Serve with a metrics address in use: %v", err)
	}
}

// served is the service running in this process with METRICS_ADDR on a loopback port.
type served struct {
	store   *store.Store
	dbURL   string
	api     string // the API's base URL
	metrics string // the metrics' URL
}

func testConfig(t *testing.T, dbURL string) config.Config {
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr, cfg.DatabaseURL, cfg.DataDir, cfg.SecretsKey = "127.0.0.1:0", dbURL, t.TempDir(), testkit.SecretsKey()
	cfg.GOGCSet = true // leave the test process's collector alone
	return cfg
}

func serveWithMetrics(t *testing.T, o app.Overrides) served {
	st, dbURL := testkit.Store(t)
	cfg := testConfig(t, dbURL)
	cfg.MetricsAddr = "127.0.0.1:0"
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- app.ServeWith(ctx, cfg, logging.New(logs, slog.LevelInfo), ready, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v\n%s", err, logs)
	case <-time.After(time.Minute):
		t.Fatalf("the service did not start\n%s", logs)
	}
	// The metrics listener is up before the API's, and logs its address.
	var metricsAddr string
	for line := range strings.Lines(logs.String()) {
		var entry struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "serving metrics" {
			metricsAddr = entry.Addr
		}
	}
	if metricsAddr == "" {
		t.Fatalf("no \"serving metrics\" line in the log:\n%s", logs)
	}
	return served{store: st, dbURL: dbURL, api: "http://" + addr.String(), metrics: "http://" + metricsAddr + "/metrics"}
}

// scrape is one scrape of /metrics, as text and parsed.
type scrape struct {
	text     string
	families map[string]*dto.MetricFamily
}

func (s served) scrape(t *testing.T) scrape {
	t.Helper()
	res, err := http.Get(s.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("scraping: %d %v", res.StatusCode, err)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("scraped Content-Type %q", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing the scrape: %v\n%s", err, body)
	}
	return scrape{text: string(body), families: families}
}

// metric finds the series of the family name with exactly the labels given as name, value
// pairs; nil when there is none.
func (s scrape) metric(t *testing.T, name string, labels ...string) *dto.Metric {
	t.Helper()
	fam := s.families[name]
	if fam == nil {
		return nil
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range fam.Metric {
		if len(m.Label) != len(want) {
			continue
		}
		match := true
		for _, l := range m.Label {
			match = match && want[l.GetName()] == l.GetValue()
		}
		if match {
			return m
		}
	}
	return nil
}

// value is the value of a counter's or a gauge's series; -1 when there is no such series.
func (s scrape) value(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	m := s.metric(t, name, labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	t.Fatalf("%s is neither a counter nor a gauge", name)
	return 0
}

func (s scrape) histogramCount(t *testing.T, name string, labels ...string) uint64 {
	t.Helper()
	m := s.metric(t, name, labels...)
	if m == nil || m.Histogram == nil {
		t.Fatalf("no histogram %s%v", name, labels)
	}
	return m.Histogram.GetSampleCount()
}

func labelNames(m *dto.Metric) []string {
	var names []string
	for _, l := range m.Label {
		names = append(names, l.GetName())
	}
	slices.Sort(names)
	return names
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// checkWithPromtool runs `promtool check metrics` (Debian's prometheus package) on the scraped
// text and fails on any complaint. Without promtool the check is skipped, except in CI.
func checkWithPromtool(t *testing.T, text string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed (Debian's prometheus package; .ci/run installs it)")
		}
		t.Log("promtool is not installed: the exposition was not linted")
		return
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// lockedBuffer is the service's log, written by its goroutines and read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
