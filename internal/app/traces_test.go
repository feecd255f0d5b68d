package app_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// With OTEL_EXPORTER_OTLP_ENDPOINT set, the service exports its traces over OTLP/HTTP, here to
// a collector in the test that decodes the protobuf. A certificate issued with a traceparent of
// the caller's continues the caller's trace: the request's server span, named by its operation
// id, has the database's spans below it; the webhook its event queues is sent in a client span
// whose trace id is the one the receiver reads in the traceparent header, below the River job's
// span, which links back, through the webhook fan-out job, to the request's span; its email is
// sent in a client span below its job's, which links to the request too; and the
// service's log lines carry the trace and span ids. Stopping the service exports
// what was not exported yet.
func TestTracesFollowARequestIntoTheDatabaseAndItsWebhook(t *testing.T) {
	t.Parallel()
	collector := newOTLPCollector(t)
	hooks := newHookReceiver(t)
	st, dbURL := testkit.Store(t)
	cfg, err := config.FromEnv(func(name string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.srv.URL, "OTEL_SERVICE_NAME": "credentiald-test"}[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr, cfg.DatabaseURL, cfg.DataDir, cfg.SecretsKey, cfg.GOGCSet = "127.0.0.1:0", dbURL, t.TempDir(), testkit.SecretsKey(), true
	logs := &lockedBuffer{}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ready, done := make(chan net.Addr, 1), make(chan error, 1)
	go func() { done <- app.ServeWith(ctx, cfg, logging.New(logs, slog.LevelInfo), ready, hooks.policy()) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v\n%s", err, logs)
	case <-time.After(time.Minute):
		t.Fatalf("the service did not start\n%s", logs)
	}

	api := "http://" + addr.String()
	env := &testkit.Env{URL: api, Store: st, Client: contract.NewClient(t, api)}
	acct := testkit.SignUp(t, env)
	if res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": hooks.srv.URL + "/hooks",
		"events": []string{"certificate.issued"}}); res.StatusCode != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.StatusCode, res.Body)
	}
	event := acct.Event(t, env, "Tracing Meetup")
	ada := acct.Attendee(t, event, "Ada", "Lovelace", "ada@example.org")
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929b0e0e4736", "00f067aa0ba902b7"
	req := acct.Client.Request(http.MethodPost, "/api/v1/certificates/generate", map[string]any{
		"eventId": event, "templateId": acct.Template(t, env), "attendeeId": ada, "sendEmail": true})
	req.Header.Set("traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	if res := acct.Client.Do(req); res.StatusCode != http.StatusOK {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	// The webhook and the email (SMTP_URL unset: an .eml file) go out after the request.
	var hook http.Header
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if got := hooks.requests(); len(got) > 0 {
			hook = got[0]
		}
		mails, _ := filepath.Glob(filepath.Join(cfg.DataDir, "outbox", "*.eml"))
		if hook != nil && len(mails) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook (%v) or the email (%v) did not go out\n%s", hook, mails, logs)
		}
	}
	// Stopping flushes: every span ended before the provider's shutdown is exported.
	stop()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	spans := collector.spans(t)

	// The request's span continues the caller's trace, named by its operation id.
	server := spans.find(func(s *tracepb.Span) bool { return s.Name == "generateCertificate" })
	if server == nil {
		t.Fatalf("no generateCertificate span among %v", spans.names())
	}
	if hex.EncodeToString(server.TraceId) != callerTrace || hex.EncodeToString(server.ParentSpanId) != callerSpan ||
		server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the request's span: trace %x, parent %x, kind %v; want the caller's trace %s and span %s, server",
			server.TraceId, server.ParentSpanId, server.Kind, callerTrace, callerSpan)
	}
	if got := intAttr(server.Attributes, "http.response.status_code"); got != http.StatusOK {
		t.Errorf("the request's span says status %d", got)
	}
	if got := stringAttr(server.Attributes, "http.route"); got != "/api/v1/certificates/generate" {
		t.Errorf("the request's span says route %q", got)
	}
	if got := spans.service; got != "credentiald-test" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", got)
	}

	// Below it, the database's statements (its transaction's included), each a client span of
	// the same trace whose parents lead up to the request's span.
	var statements []string
	for _, s := range spans.all {
		if bytes.Equal(s.TraceId, server.TraceId) && stringAttr(s.Attributes, "db.system.name") == "postgresql" {
			if !spans.descendsFrom(s, server) {
				t.Errorf("the database span %s does not descend from the request's", s.Name)
			}
			statements = append(statements, s.Name)
		}
	}
	// (Statements are named by their sqlc query names; pgx's own by their SQL verb.)
	for _, want := range []string{"BEGIN", "LockIssueSources", "IssuanceSpendCredits", "COMMIT"} {
		if !contains(statements, want) {
			t.Errorf("no %s among the request's database spans: %v", want, statements)
		}
	}

	// The webhook's span: a client span, below the River job that sent it, whose trace id and
	// span id are those the receiver got in traceparent.
	parent := strings.Split(hook.Get("traceparent"), "-")
	if len(parent) != 4 {
		t.Fatalf("the webhook request's traceparent: %q", hook.Get("traceparent"))
	}
	send := spans.find(func(s *tracepb.Span) bool { return s.Name == "webhook.deliver" })
	if send == nil {
		t.Fatalf("no webhook.deliver span among %v", spans.names())
	}
	if hex.EncodeToString(send.TraceId) != parent[1] || hex.EncodeToString(send.SpanId) != parent[2] ||
		send.Kind != tracepb.Span_SPAN_KIND_CLIENT || intAttr(send.Attributes, "http.response.status_code") != http.StatusNoContent {
		t.Errorf("the webhook's span: trace %x span %x kind %v; the receiver got traceparent %q",
			send.TraceId, send.SpanId, send.Kind, hook.Get("traceparent"))
	}
	job := spans.byID[string(send.ParentSpanId)]
	if job == nil || job.Name != "river.work/webhook_deliver" || !bytes.Equal(job.TraceId, send.TraceId) {
		t.Errorf("the webhook's span is not a child of its River job's span: parent %v", job)
	}

	// And the webhook's trace leads back to the request's: the delivery job's span links to
	// the span that queued it, in the fan-out job, whose span links to the span that queued
	// it, River's insert below the request's span (links, not parents: a job may run long
	// after its cause).
	fanOut := spans.find(func(s *tracepb.Span) bool { return s.Name == "river.work/webhook_fan_out" })
	if fanOut == nil || !slices.ContainsFunc(fanOut.Links, func(l *tracepb.Span_Link) bool {
		queued := spans.byID[string(l.SpanId)]
		return queued != nil && (queued == server || spans.descendsFrom(queued, server))
	}) {
		t.Errorf("the fan-out job's span does not link to the request's: %v", fanOut)
	} else if job != nil && !slices.ContainsFunc(job.Links, func(l *tracepb.Span_Link) bool {
		queued := spans.byID[string(l.SpanId)]
		return queued != nil && (queued == fanOut || spans.descendsFrom(queued, fanOut))
	}) {
		t.Errorf("the delivery job's span does not link to a span of the fan-out job: %v", job.Links)
	}

	// The email is sent in a client span below its River job's, and the job, queued through
	// River's client in the request's transaction, links to the span that queued it there.
	mail := spans.find(func(s *tracepb.Span) bool {
		return s.Name == "email.send" && stringAttr(s.Attributes, "email.kind") == "certificate" // not the sign-up's verification
	})
	if mail == nil || mail.Kind != tracepb.Span_SPAN_KIND_CLIENT || stringAttr(mail.Attributes, "email.kind") != "certificate" {
		t.Fatalf("no email.send client span of the certificate's message: %v", mail)
	}
	mailJob := spans.byID[string(mail.ParentSpanId)]
	if mailJob == nil || mailJob.Name != "river.work/email_send" {
		t.Errorf("the email's span is not a child of its River job's span: parent %v", mailJob)
	} else if !slices.ContainsFunc(mailJob.Links, func(l *tracepb.Span_Link) bool {
		queued := spans.byID[string(l.SpanId)]
		return queued != nil && spans.descendsFrom(queued, server)
	}) {
		t.Errorf("the email job's span does not link to a span of the request: %v", mailJob.Links)
	}

	// The log line of the delivery carries the webhook's trace.
	var logged bool
	for line := range strings.Lines(logs.String()) {
		var entry struct {
			Msg     string
			TraceID string `json:"trace_id"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "webhook delivered" {
			logged = entry.TraceID == parent[1]
		}
	}
	if !logged {
		t.Errorf("no \"webhook delivered\" log line with trace_id %s:\n%s", parent[1], logs)
	}
}

// otlpCollector receives OTLP/HTTP trace exports (protobuf, gzip-compressed or not).
type otlpCollector struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []*coltracepb.ExportTraceServiceRequest
	bad []string
}

func newOTLPCollector(t *testing.T) *otlpCollector {
	c := &otlpCollector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				c.fail(w, "gzip: "+err.Error())
				return
			}
			body = zr
		}
		raw, err := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" ||
			err != nil || proto.Unmarshal(raw, &req) != nil {
			c.fail(w, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
			return
		}
		c.mu.Lock()
		c.got = append(c.got, &req)
		c.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *otlpCollector) fail(w http.ResponseWriter, why string) {
	c.mu.Lock()
	c.bad = append(c.bad, why)
	c.mu.Unlock()
	http.Error(w, why, http.StatusBadRequest)
}

// exported are the spans received, indexed by span id.
type exported struct {
	all     []*tracepb.Span
	byID    map[string]*tracepb.Span
	service string
}

func (c *otlpCollector) spans(t *testing.T) exported {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bad) > 0 {
		t.Errorf("the collector refused exports: %v", c.bad)
	}
	e := exported{byID: map[string]*tracepb.Span{}}
	for _, req := range c.got {
		for _, rs := range req.ResourceSpans {
			e.service = stringAttr(rs.GetResource().GetAttributes(), "service.name")
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					e.all = append(e.all, s)
					e.byID[string(s.SpanId)] = s
				}
			}
		}
	}
	return e
}

func (e exported) find(match func(*tracepb.Span) bool) *tracepb.Span {
	for _, s := range e.all {
		if match(s) {
			return s
		}
	}
	return nil
}

func (e exported) names() []string {
	var names []string
	for _, s := range e.all {
		names = append(names, s.Name)
	}
	return names
}

// descendsFrom reports whether s's parents, followed through the exported spans, reach root.
func (e exported) descendsFrom(s, root *tracepb.Span) bool {
	for i := 0; s != nil && i < 100; i++ {
		if bytes.Equal(s.ParentSpanId, root.SpanId) {
			return true
		}
		s = e.byID[string(s.ParentSpanId)]
	}
	return false
}

func stringAttr(attrs []*commonpb.KeyValue, key string) string {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value.GetStringValue()
		}
	}
	return ""
}

func intAttr(attrs []*commonpb.KeyValue, key string) int {
	for _, a := range attrs {
		if a.Key == key {
			return int(a.Value.GetIntValue())
		}
	}
	return 0
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
