package webhooks_test

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/webhooks"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// received is one request a receiver got.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver is a real HTTPS endpoint on loopback; its CA is trusted by the harness's policy only.
type receiver struct {
	srv    *httptest.Server
	roots  *x509.CertPool
	mu     sync.Mutex
	got    []received
	answer func(w http.ResponseWriter, r *http.Request, n int) // n: requests before this one
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{answer: func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusNoContent) }}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body})
		answer := r.answer
		r.mu.Unlock()
		answer(w, req, n)
	}))
	t.Cleanup(r.srv.Close)
	r.roots = r.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return r
}

// Answer sets how the receiver answers from now on.
func (r *receiver) Answer(f func(w http.ResponseWriter, req *http.Request, n int)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answer = f
}

// Status makes the receiver answer status with body.
func (r *receiver) Status(status int, body string) {
	r.Answer(func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
}

func (r *receiver) Got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// harness is a database with one account, a service, a receiver and a stopped clock.
type harness struct {
	t       testing.TB
	ctx     context.Context
	st      *store.Store
	box     *secretbox.Box
	clock   *testkit.Clock
	account uuid.UUID
	recv    *receiver
	policy  webhooks.Policy
	svc     *webhooks.Service
	dbURL   string
	// jobs works the River jobs of each dispatcher the test made, on the harness's clock.
	jobs map[*webhooks.Dispatcher]*testkit.Jobs
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	st, dbURL := testkit.Store(t)
	h := &harness{t: t, ctx: context.Background(), st: st, box: testkit.SecretBox(t), clock: &testkit.Clock{}, recv: newReceiver(t),
		dbURL: dbURL, jobs: map[*webhooks.Dispatcher]*testkit.Jobs{}}
	h.clock.Stop()
	acc, _, err := accounts.New(st, nil).Create(h.ctx, accounts.CreateParams{Email: "owner-" + uuid.NewString()[:8] + "@example.org",
		Password: testkit.Password, Name: "Owner", AccountName: "Hooks"})
	if err != nil {
		t.Fatal(err)
	}
	h.account = acc.ID
	h.policy = webhooks.Policy{RootCAs: h.recv.roots, AllowLoopbackTLS: true}
	h.svc = webhooks.NewService(st, h.box, h.policy, h.clock.Now)
	return h
}

// dispatcher returns a dispatcher over the harness's database, as another instance would run.
func (h *harness) dispatcher() *webhooks.Dispatcher {
	return &webhooks.Dispatcher{Store: h.st, Secrets: h.box, Policy: h.policy, Now: h.clock.Now, Timeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// subscribe subscribes the receiver's /hook to kinds and returns the subscription and its secret.
func (h *harness) subscribe(kinds ...string) (domain.WebhookSubscription, string) {
	h.t.Helper()
	u := h.recv.srv.URL + "/hook"
	sub, secret, err := h.svc.Create(h.ctx, h.account, webhooks.Fields{URL: &u, Events: kinds})
	if err != nil {
		h.t.Fatal(err)
	}
	return sub, secret
}

// event writes a certificate event to the outbox, in the shape the contract documents for kind.
func (h *harness) event(kind string) uuid.UUID {
	h.t.Helper()
	at := h.clock.Now()
	cert := uuid.New()
	data := map[string]any{"certificateId": cert, "certificateNumber": "CERT-2026-000001", "eventId": uuid.New(),
		"attendeeId": uuid.New(), "status": "valid", "verificationCode": "7K2M9QXRT4VZ"}
	stamp := at.UTC().Format(time.RFC3339)
	switch kind {
	case "certificate.viewed":
		data["viewedAt"] = stamp
	case "certificate.downloaded":
		data["downloadedAt"] = stamp
	case "certificate.sent":
		data["emailDeliveryId"] = uuid.New()
	case "certificate.revoked":
		data["status"], data["revokedAt"], data["reason"], data["reasonCode"] = "revoked", stamp, "wrong name", "issued_in_error"
	}
	if err := h.st.Outbox(h.ctx, h.account, kind, at, map[string]any{"eventType": kind, "timestamp": stamp, "data": data}); err != nil {
		h.t.Fatal(err)
	}
	return cert
}

// jobsOf returns what works d's River jobs, as a client running d's workers would, on the
// harness's clock.
func (h *harness) jobsOf(d *webhooks.Dispatcher) *testkit.Jobs {
	j, ok := h.jobs[d]
	if !ok {
		j = testkit.NewJobs(h.t, h.dbURL, h.clock.Now)
		testkit.AddJobWorker(j, d.FanOutWorker())
		testkit.AddJobWorker(j, d.DeliveryWorker())
		h.jobs[d] = j
	}
	return j
}

// runOnce fans the due outbox events out with d, then works the due deliveries once, and
// returns how many attempts it made.
func (h *harness) runOnce(d *webhooks.Dispatcher) int {
	h.t.Helper()
	return h.jobsOf(d).RunWebhooks()
}

// deliveries returns the subscription's deliveries, newest first.
func (h *harness) deliveries(sub uuid.UUID) []domain.WebhookDelivery {
	h.t.Helper()
	list, _, err := h.st.ListWebhookDeliveries(h.ctx, h.account, sub, domain.Page{Number: 1, Size: 100})
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

func (h *harness) subscription(id uuid.UUID) domain.WebhookSubscription {
	h.t.Helper()
	s, err := h.st.FindWebhookSubscription(h.ctx, h.account, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// storeSubscription stores a subscription without the creation check, as one made when its
// host's name resolved elsewhere.
func (h *harness) storeSubscription(u string, kinds ...string) domain.WebhookSubscription {
	h.t.Helper()
	secret, err := webhooks.NewSecret()
	if err != nil {
		h.t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7())
	sealed, err := h.box.Seal([]byte(secret), []byte("webhook:"+id.String()))
	if err != nil {
		h.t.Fatal(err)
	}
	sub, err := h.st.InsertWebhookSubscription(h.ctx, store.NewWebhookSubscription{ID: id, AccountID: h.account, URL: u,
		Events: kinds, SecretSealed: sealed}, h.clock.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return sub
}
