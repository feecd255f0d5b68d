package webhooks_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/certhub/credentiald/internal/jobqueue"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/webhooks"
)

// checkSigned verifies a received request as a receiver would, with independent code: the
// Standard Webhooks library for webhook-*, and the specification's recipe for X-Service-*.
func checkSigned(t *testing.T, secret string, r received) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.VerifyIgnoringTimestamp(r.Body, r.Header); err != nil {
		t.Fatalf("the Standard Webhooks library refuses the delivery: %v", err)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(r.Header.Get("X-Service-Timestamp") + "."))
	mac.Write(r.Body)
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); r.Header.Get("X-Service-Signature") != want {
		t.Fatalf("X-Service-Signature %q, want %q", r.Header.Get("X-Service-Signature"), want)
	}
	if r.Header.Get("webhook-id") != r.Header.Get("X-Service-Delivery") || r.Header.Get("webhook-timestamp") != r.Header.Get("X-Service-Timestamp") {
		t.Fatalf("the two header families disagree: %v", r.Header)
	}
}

func TestAnEventIsDeliveredSignedOverTheBytesSent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, secret := h.subscribe("certificate.issued", "certificate.revoked")
	other, _ := h.subscribe("certificate.sent")
	cert := h.event("certificate.issued")
	if n := h.runOnce(h.dispatcher()); n != 1 {
		t.Fatalf("attempted %d deliveries, want 1 (the other subscription did not choose the kind)", n)
	}
	got := h.recv.Got()
	if len(got) != 1 {
		t.Fatalf("the receiver got %d requests", len(got))
	}
	r := got[0]
	checkSigned(t, secret, r)
	d := h.deliveries(sub.ID)
	if len(d) != 1 || len(h.deliveries(other.ID)) != 0 {
		t.Fatalf("deliveries %+v", d)
	}
	if r.Header.Get("X-Service-Delivery") != d[0].ID.String() || r.Header.Get("X-Service-Event") != "certificate.issued" ||
		r.Header.Get("Content-Type") != "application/json" || !bytes.Equal(r.Body, d[0].Payload) {
		t.Fatalf("headers %v, body %s", r.Header, r.Body)
	}
	if ts, _ := strconv.ParseInt(r.Header.Get("X-Service-Timestamp"), 10, 64); ts != h.clock.Now().Unix() {
		t.Fatalf("X-Service-Timestamp %d, want the clock's %d", ts, h.clock.Now().Unix())
	}
	var body struct {
		EventType, Timestamp string
		Data                 struct{ CertificateID uuid.UUID }
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.EventType != "certificate.issued" || body.Data.CertificateID != cert {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	if d[0].Status != "succeeded" || d[0].Attempts != 1 || d[0].NextAttemptAt != nil || store.Deref(d[0].ResponseStatus) != 204 || d[0].DurationMs == nil {
		t.Fatalf("record %+v", d[0])
	}
	if h.runOnce(h.dispatcher()) != 0 || len(h.recv.Got()) != 1 {
		t.Fatal("a delivered event was sent again")
	}
}

// Attempts at 0, +1 min, +5 min, +30 min, +2 h on the injected clock; the same bytes and
// delivery id each time, timestamp and signatures of the moment; then the delivery fails.
func TestAFailingDeliveryIsRetriedOnScheduleThenFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, secret := h.subscribe("certificate.issued")
	long := strings.Repeat("é", 1500) // 3,000 bytes: the record keeps the first 1 KiB
	h.recv.Status(http.StatusInternalServerError, long)
	h.event("certificate.issued")
	d := h.dispatcher()
	start := h.clock.Now()
	h.runOnce(d)
	for i, wait := range webhooks.RetryDelays {
		rec := h.deliveries(sub.ID)[0]
		if rec.Status != "pending" || rec.Attempts != i+1 || !rec.NextAttemptAt.Equal(rec.LastAttemptAt.Add(wait)) {
			t.Fatalf("after attempt %d: %+v", i+1, rec)
		}
		h.clock.Advance(wait - time.Second)
		if h.runOnce(d) != 0 {
			t.Fatalf("attempt %d went out a second early", i+2)
		}
		h.clock.Advance(time.Second)
		if h.runOnce(d) != 1 {
			t.Fatalf("attempt %d did not go out on time", i+2)
		}
	}
	got := h.recv.Got()
	if len(got) != webhooks.MaxAttempts {
		t.Fatalf("%d requests, want %d", len(got), webhooks.MaxAttempts)
	}
	offsets := []time.Duration{0, time.Minute, 6 * time.Minute, 36 * time.Minute, 156 * time.Minute}
	for i, r := range got {
		checkSigned(t, secret, r)
		if !bytes.Equal(r.Body, got[0].Body) || r.Header.Get("X-Service-Delivery") != got[0].Header.Get("X-Service-Delivery") {
			t.Fatalf("attempt %d sent other bytes or another id", i+1)
		}
		if ts, _ := strconv.ParseInt(r.Header.Get("X-Service-Timestamp"), 10, 64); ts != start.Add(offsets[i]).Unix() {
			t.Fatalf("attempt %d stamped %d, want %d", i+1, ts, start.Add(offsets[i]).Unix())
		}
	}
	rec := h.deliveries(sub.ID)[0]
	if rec.Status != "failed" || rec.Attempts != 5 || rec.NextAttemptAt != nil || store.Deref(rec.ResponseStatus) != 500 ||
		store.Deref(rec.ResponseBody) != long[:1024] || !strings.Contains(store.Deref(rec.Error), "500") {
		t.Fatalf("final record %+v (body %d bytes)", rec, len(store.Deref(rec.ResponseBody)))
	}
	h.clock.Advance(24 * time.Hour)
	if h.runOnce(d) != 0 {
		t.Fatal("a sixth attempt")
	}
	if s := h.subscription(sub.ID); s.ConsecutiveFailures != 5 || !s.Active {
		t.Fatalf("subscription %+v", s)
	}
}

// Ten failed attempts in a row switch the subscription off and fail its pending deliveries;
// switching it on again resets the count, and it receives events again.
func TestTenFailuresInARowSwitchTheSubscriptionOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, _ := h.subscribe("certificate.issued")
	h.recv.Status(http.StatusServiceUnavailable, "")
	d := h.dispatcher()
	for range 4 {
		h.event("certificate.issued")
	}
	h.runOnce(d) // 4 failures
	h.clock.Advance(time.Minute)
	h.runOnce(d) // 8
	if s := h.subscription(sub.ID); s.ConsecutiveFailures != 8 || !s.Active {
		t.Fatalf("after 8 failures: %+v", s)
	}
	h.clock.Advance(5 * time.Minute)
	h.runOnce(d) // the 10th switches it off; the two left fail without an attempt
	s := h.subscription(sub.ID)
	if s.Active || s.DisabledAt == nil || s.DisabledAt.Sub(h.clock.Now()).Abs() > time.Microsecond || s.ConsecutiveFailures < 10 {
		t.Fatalf("after 10 failures: %+v", s)
	}
	for _, rec := range h.deliveries(sub.ID) {
		if rec.Status != "failed" || rec.NextAttemptAt != nil || !strings.Contains(store.Deref(rec.Error), "switched off") {
			t.Fatalf("a delivery of a switched-off subscription: %+v", rec)
		}
	}
	sent := len(h.recv.Got())
	h.event("certificate.issued")
	h.clock.Advance(3 * time.Hour)
	if h.runOnce(d) != 0 || len(h.recv.Got()) != sent || len(h.deliveries(sub.ID)) != 4 {
		t.Fatal("a switched-off subscription got an event")
	}

	on := true
	s, err := h.svc.Update(h.ctx, h.account, sub.ID, webhooks.Fields{Active: &on})
	if err != nil || !s.Active || s.ConsecutiveFailures != 0 || s.DisabledAt != nil {
		t.Fatalf("re-enabled: %+v %v", s, err)
	}
	h.recv.Status(http.StatusOK, "thanks")
	h.event("certificate.issued")
	if h.runOnce(d) != 1 || h.deliveries(sub.ID)[0].Status != "succeeded" {
		t.Fatalf("after re-enabling: %+v", h.deliveries(sub.ID)[0])
	}
}

// 410 Gone switches the subscription off at once, and its other pending deliveries fail.
func TestGoneSwitchesTheSubscriptionOffAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, _ := h.subscribe("certificate.issued")
	d := h.dispatcher()
	h.recv.Status(http.StatusInternalServerError, "")
	h.event("certificate.issued")
	h.runOnce(d) // the first waits for its retry
	h.recv.Status(http.StatusGone, "gone")
	h.clock.Advance(10 * time.Second)
	h.event("certificate.issued")
	h.runOnce(d)
	s := h.subscription(sub.ID)
	if s.Active || s.DisabledAt == nil || s.ConsecutiveFailures != 2 {
		t.Fatalf("after 410: %+v", s)
	}
	list := h.deliveries(sub.ID)
	if list[0].Status != "failed" || list[0].Attempts != 1 || store.Deref(list[0].ResponseStatus) != 410 || !strings.Contains(store.Deref(list[0].Error), "410 Gone") {
		t.Fatalf("the 410 delivery: %+v", list[0])
	}
	if list[1].Status != "failed" || list[1].Attempts != 1 || !strings.Contains(store.Deref(list[1].Error), "410 Gone") {
		t.Fatalf("the pending delivery: %+v", list[1])
	}
	h.clock.Advance(time.Hour)
	if h.runOnce(d) != 0 || len(h.recv.Got()) != 2 {
		t.Fatal("sent after 410")
	}
}

func TestASlowReceiverIsCutAtTheTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, _ := h.subscribe("certificate.issued")
	release := make(chan struct{})
	defer close(release)
	h.recv.Answer(func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		// The receiver never answers. An answer written when the request's context ends could
		// still reach the dispatcher: cutting the request closes its TLS connection, which sends
		// close_notify before it closes the socket, and the transport takes a response that races
		// its cancellation; under load a 200 got through and the attempt was recorded succeeded.
		panic(http.ErrAbortHandler)
	})
	h.event("certificate.issued")
	d := h.dispatcher()
	d.Timeout = 300 * time.Millisecond
	began := time.Now()
	h.runOnce(d)
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("the attempt took %v", took)
	}
	rec := h.deliveries(sub.ID)[0]
	if rec.Status != "pending" || rec.ResponseStatus != nil || !strings.Contains(store.Deref(rec.Error), "no answer within 300ms") ||
		store.Deref(rec.DurationMs) < 300 || rec.NextAttemptAt == nil {
		t.Fatalf("record %s, answer %d after %d ms, next attempt %v: %s", rec.Status, store.Deref(rec.ResponseStatus),
			store.Deref(rec.DurationMs), rec.NextAttemptAt, store.Deref(rec.Error))
	}
}

func TestARedirectIsRefusedAndCountsAsAFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, _ := h.subscribe("certificate.issued")
	h.recv.Answer(func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/hook" {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}
	})
	h.event("certificate.issued")
	h.runOnce(h.dispatcher())
	got := h.recv.Got()
	if len(got) != 1 {
		t.Fatalf("the redirect was followed: %d requests", len(got))
	}
	rec := h.deliveries(sub.ID)[0]
	if rec.Status != "pending" || store.Deref(rec.ResponseStatus) != 307 || !strings.Contains(store.Deref(rec.Error), "redirect") ||
		!strings.Contains(store.Deref(rec.Error), "/elsewhere") {
		t.Fatalf("record %+v", rec)
	}
	if s := h.subscription(sub.ID); s.ConsecutiveFailures != 1 {
		t.Fatalf("failures %d", s.ConsecutiveFailures)
	}
}

// A name that resolves to loopback at connect time is refused there, whatever it resolved to
// when the subscription was made: the attempt fails and the receiver gets nothing. localhost
// is such a name; the creation check would refuse it, so the subscription is stored as if the
// name had resolved to a public address then (DNS rebinding).
func TestANameResolvingToLoopbackIsRefusedAtConnectTime(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.policy = webhooks.Policy{RootCAs: h.recv.roots} // loopback not allowed
	u := strings.Replace(h.recv.srv.URL, "127.0.0.1", "localhost", 1) + "/hook"
	if err := h.policy.CheckURL(h.ctx, u); err == nil {
		t.Fatal("the creation check lets localhost through")
	}
	sub := h.storeSubscription(u, "certificate.issued")
	h.event("certificate.issued")
	h.runOnce(h.dispatcher())
	if n := len(h.recv.Got()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
	rec := h.deliveries(sub.ID)[0]
	if rec.Status != "pending" || rec.ResponseStatus != nil || !strings.Contains(store.Deref(rec.Error), "refused before connecting") ||
		!strings.Contains(store.Deref(rec.Error), "127.0.0.1") {
		t.Fatalf("record %+v (%s)", rec, store.Deref(rec.Error))
	}
}

// A process killed while sending (kill -9) loses nothing: River rescues the job once the
// attempt's time has passed, and another instance delivers it, the lapsed attempt counted.
// Events written while no instance ran are delivered by the next one.
func TestDeliveriesSurviveARestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, secret := h.subscribe("certificate.issued")
	test, err := h.svc.Test(h.ctx, h.account, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The first instance takes the delivery's job, begins the attempt, then dies.
	first := h.dispatcher()
	taken := h.jobsOf(first).Abandon(jobs.DeliverWebhook{}.Kind())
	if len(taken) != 1 {
		t.Fatalf("taken: %v", taken)
	}
	if _, err := h.st.StartWebhookAttempt(h.ctx, test.ID, 1, h.clock.Now(), h.clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	h.event("certificate.issued") // written while nothing runs

	second := h.dispatcher()
	if h.runOnce(second) != 1 {
		t.Fatal("the second instance should deliver only the new event while the first attempt's time runs")
	}
	// The contract: a lapsed attempt is tried again when its lease of one minute has passed.
	h.clock.Advance(time.Minute + time.Second)
	if h.runOnce(second) != 1 {
		t.Fatal("the lapsed delivery was not taken over")
	}
	list := h.deliveries(sub.ID)
	if len(list) != 2 || len(h.recv.Got()) != 2 {
		t.Fatalf("%d deliveries, %d requests", len(list), len(h.recv.Got()))
	}
	for _, rec := range list {
		if rec.Status != "succeeded" {
			t.Fatalf("record %+v", rec)
		}
		if rec.ID == test.ID && rec.Attempts != 2 {
			t.Fatalf("the lapsed attempt is not counted: %+v", rec)
		}
	}
	for _, r := range h.recv.Got() {
		checkSigned(t, secret, r)
	}
	if s := h.subscription(sub.ID); s.ConsecutiveFailures != 0 {
		t.Fatalf("a success did not reset the count: %+v", s)
	}
}

// When the last allowed attempt lapses (the process died while making it), the delivery does not
// stay pending: River runs its job once more, which records it failed, says why, and counts the
// lapsed attempt against the subscription.
func TestALapsedLastAttemptEndsTheDeliveryFailed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, _ := h.subscribe("certificate.issued")
	h.recv.Status(http.StatusInternalServerError, "")
	h.event("certificate.issued")
	d := h.dispatcher()
	h.runOnce(d)
	for _, wait := range webhooks.RetryDelays[:len(webhooks.RetryDelays)-1] {
		h.clock.Advance(wait)
		if h.runOnce(d) != 1 {
			t.Fatal("an attempt did not go out on time")
		}
	}
	h.clock.Advance(webhooks.RetryDelays[len(webhooks.RetryDelays)-1])
	taken := h.jobsOf(d).Abandon(jobs.DeliverWebhook{}.Kind())
	if len(taken) != 1 || taken[0].Attempt != webhooks.MaxAttempts {
		t.Fatalf("taken: %+v", taken)
	}
	id := h.deliveries(sub.ID)[0].ID
	if _, err := h.st.StartWebhookAttempt(h.ctx, id, webhooks.MaxAttempts, h.clock.Now(), h.clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if h.runOnce(d) != 0 || h.deliveries(sub.ID)[0].Status != "pending" {
		t.Fatal("the last attempt was given up while it could still be running")
	}
	h.clock.Advance(jobqueue.DefaultRescueAfter + time.Second)
	if h.runOnce(d) != 0 {
		t.Fatal("a sixth attempt was sent")
	}
	rec := h.deliveries(sub.ID)[0]
	if rec.Status != "failed" || rec.Attempts != webhooks.MaxAttempts || rec.NextAttemptAt != nil ||
		!strings.Contains(store.Deref(rec.Error), "gave up after 5 attempts") || !strings.Contains(store.Deref(rec.Error), "did not finish") {
		t.Fatalf("record %+v (%s)", rec, store.Deref(rec.Error))
	}
	if got := len(h.recv.Got()); got != webhooks.MaxAttempts-1 {
		t.Fatalf("%d requests, want %d", got, webhooks.MaxAttempts-1)
	}
	if s := h.subscription(sub.ID); s.ConsecutiveFailures != webhooks.MaxAttempts {
		t.Fatalf("the lapsed attempt was not counted: %+v", s)
	}
	h.clock.Advance(24 * time.Hour)
	if h.runOnce(d) != 0 {
		t.Fatal("sent after it was given up")
	}
}

// Two instances on one database (two River clients) deliver every event exactly once.
func TestTwoDispatchersDeliverEachEventExactlyOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscribe("certificate.issued")
	const events = 60
	certs := map[uuid.UUID]bool{}
	for range events {
		certs[h.event("certificate.issued")] = true
	}
	var queues []*store.JobQueue
	for range 2 {
		d := h.dispatcher()
		q, err := jobqueue.New(h.st, jobqueue.Workers{Webhooks: d}, d.Logger, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(h.ctx); err != nil {
			t.Fatal(err)
		}
		// Stopped below; this stops them too when the test fails before that.
		t.Cleanup(func() { _ = q.StopAndCancel(context.Background()) })
		queues = append(queues, q)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(h.recv.Got()) < events && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // long enough for a duplicate to show
	for _, q := range queues {
		if err := q.Stop(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	ids, seen := map[string]int{}, map[uuid.UUID]int{}
	for _, r := range h.recv.Got() {
		ids[r.Header.Get("X-Service-Delivery")]++
		var body struct {
			Data struct{ CertificateID uuid.UUID }
		}
		_ = json.Unmarshal(r.Body, &body)
		seen[body.Data.CertificateID]++
	}
	if len(seen) != events || len(ids) != events {
		t.Fatalf("%d events and %d delivery ids reached the receiver, want %d", len(seen), len(ids), events)
	}
	for id, n := range seen {
		if n != 1 || !certs[id] {
			t.Fatalf("event of %s delivered %d times", id, n)
		}
	}
}

// A panic while a delivery is sent records it failed for good; the dispatcher goes on.
func TestAPanickingDeliveryIsRecordedFailedAndTheDispatcherGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub, _ := h.subscribe("certificate.issued")
	h.event("certificate.issued")
	h.event("certificate.issued")
	d := h.dispatcher()
	d.Secrets = nil // opening the secret panics
	if n := h.runOnce(d); n != 2 {
		t.Fatalf("attempted %d", n)
	}
	for _, rec := range h.deliveries(sub.ID) {
		if rec.Status != "failed" || !strings.Contains(store.Deref(rec.Error), "internal error") {
			t.Fatalf("record %+v", rec)
		}
	}
	if s := h.subscription(sub.ID); s.ConsecutiveFailures != 0 || !s.Active {
		t.Fatalf("the service's own failure was counted against the subscription: %+v", s)
	}
	if len(h.recv.Got()) != 0 {
		t.Fatal("sent")
	}
}

// Every kind reaches the subscriptions that chose it, in the body the outbox holds.
func TestEachKindGoesToTheSubscriptionsThatChoseIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	all, _ := h.subscribe(webhooks.Kinds...)
	views, _ := h.subscribe("certificate.viewed", "certificate.downloaded")
	for _, k := range webhooks.Kinds {
		h.event(k)
	}
	h.runOnce(h.dispatcher())
	if a, v := len(h.deliveries(all.ID)), len(h.deliveries(views.ID)); a != len(webhooks.Kinds) || v != 2 {
		t.Fatalf("deliveries: %d and %d, want %d and 2", a, v, len(webhooks.Kinds))
	}
	kinds := map[string]int{}
	for _, r := range h.recv.Got() {
		var body struct{ EventType string }
		if err := json.Unmarshal(r.Body, &body); err != nil || body.EventType != r.Header.Get("X-Service-Event") {
			t.Fatalf("body %s under %s", r.Body, r.Header.Get("X-Service-Event"))
		}
		kinds[body.EventType]++
	}
	if fmt.Sprint(kinds) != "map[badge.claimed:1 badge.issued:1 badge.revoked:1 certificate.claimed:1 certificate.downloaded:2 certificate.issued:1 certificate.revoked:1 certificate.sent:1 certificate.viewed:2 job.completed:1]" {
		t.Fatalf("kinds %v", kinds)
	}
}

// A subscription may name patterns instead of kinds: "*" takes every kind, "badge.*" and
// "certificate.*" every kind of their family; each delivery names the concrete kind, signed so
// that the Standard Webhooks library verifies it. webhook.test reaches no pattern.
func TestPatternSubscriptionsTakeTheKindsTheyMatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	every, everySecret := h.subscribe("*")
	badges, badgeSecret := h.subscribe("badge.*")
	certs, _ := h.subscribe("certificate.*", "job.completed")
	for _, k := range append(slices.Clone(webhooks.Kinds), webhooks.TestKind) {
		h.event(k)
	}
	h.runOnce(h.dispatcher())
	kindsOf := func(id uuid.UUID) []string {
		var out []string
		for _, d := range h.deliveries(id) {
			out = append(out, d.EventType)
		}
		slices.Sort(out)
		return out
	}
	if got := kindsOf(every.ID); len(got) != len(webhooks.Kinds) || slices.Contains(got, webhooks.TestKind) {
		t.Errorf("*: %v", got)
	}
	if got := strings.Join(kindsOf(badges.ID), ","); got != "badge.claimed,badge.issued,badge.revoked" {
		t.Errorf("badge.*: %s", got)
	}
	if got := strings.Join(kindsOf(certs.ID), ","); got != "certificate.claimed,certificate.downloaded,certificate.issued,certificate.revoked,certificate.sent,certificate.viewed,job.completed" {
		t.Errorf("certificate.* and job.completed: %s", got)
	}
	secrets := map[string]string{every.ID.String(): everySecret, badges.ID.String(): badgeSecret}
	n := 0
	for _, r := range h.recv.Got() {
		if r.Header.Get("X-Service-Event") == "job.completed" || strings.HasPrefix(r.Header.Get("X-Service-Event"), "badge.") {
			for _, d := range append(h.deliveries(every.ID), h.deliveries(badges.ID)...) {
				if d.ID.String() == r.Header.Get("webhook-id") {
					checkSigned(t, secrets[d.SubscriptionID.String()], r)
					n++
				}
			}
		}
	}
	if n != 7 { // job.completed and the three badge kinds to *, the three badge kinds to badge.*
		t.Errorf("%d deliveries of the new kinds verified, want 7", n)
	}
}
