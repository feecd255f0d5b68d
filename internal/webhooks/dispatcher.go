package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"
	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/tracing"
)

// The delivery rules of the contract.
const (
	// MaxAttempts a delivery gets: at once, then after each of RetryDelays.
	MaxAttempts = jobs.WebhookAttempts
	// SwitchOffAfter failed attempts in a row (over all its deliveries) switch a subscription off.
	SwitchOffAfter = 10
	// DefaultTimeout of one attempt: connecting, sending and the answer's headers and body.
	DefaultTimeout = 10 * time.Second
	// ResponseBodyLimit is how much of an answer is read and kept on the delivery record.
	ResponseBodyLimit = 1024
)

// RetryDelays are the waits before the 2nd to 5th attempts, counted from the start of the
// attempt before.
var RetryDelays = [MaxAttempts - 1]time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour}

// Concurrency is how many deliveries are sent at once: the MaxWorkers of River's webhooks queue.
const Concurrency = 8

// Dispatcher turns outbox events into deliveries and makes their attempts, as River jobs: the
// fan-out job queued with each outbox event (jobs.FanOutEvents) writes the deliveries and queues
// one job per delivery (jobs.DeliverWebhook), which makes its attempts on the contract's
// schedule. River runs each job in one worker at a time, retries it at NextRetry, and rescues
// the job of a process that stopped while sending (that lapsed attempt counts).
type Dispatcher struct {
	Store   *store.Store
	Secrets *secretbox.Box
	Policy  Policy
	Logger  *slog.Logger
	// Timeout of one attempt (default DefaultTimeout).
	Timeout time.Duration
	// Now is the dispatcher's clock (default time.Now): timestamps and signatures. Durations
	// are measured on the monotonic clock.
	Now func() time.Time
	// Observer, when set, is told of each attempt's outcome (the operator's metrics).
	Observer Observer
	// Tracer, when set, makes a client span of each request (see traced.go), whose trace
	// context the request carries in traceparent.
	Tracer trace.Tracer

	once   sync.Once
	client *http.Client
}

func (d *Dispatcher) init() {
	d.once.Do(func() {
		if d.Timeout == 0 {
			d.Timeout = DefaultTimeout
		}
		if d.Now == nil {
			d.Now = time.Now
		}
		if d.Logger == nil {
			d.Logger = slog.Default()
		}
		d.client = d.Policy.Client(d.Timeout)
		if t, ok := d.client.Transport.(*http.Transport); ok {
			// Keep a connection per sender idle, so that a busy receiver is not handshaken anew.
			t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, Concurrency)
		}
	})
}

// attemptTime is how long an attempt may run, from its start: its timeout and the time to
// record it. A delivery whose attempt began longer ago, with no outcome, lapsed.
func (d *Dispatcher) attemptTime() time.Duration { return d.Timeout + 30*time.Second }

// FanOutWorker is the River worker of jobs.FanOutEvents.
func (d *Dispatcher) FanOutWorker() river.Worker[jobs.FanOutEvents] { return &fanOutWorker{d: d} }

// DeliveryWorker is the River worker of jobs.DeliverWebhook.
func (d *Dispatcher) DeliveryWorker() river.Worker[jobs.DeliverWebhook] { return &deliveryWorker{d: d} }

type fanOutWorker struct {
	river.WorkerDefaults[jobs.FanOutEvents]
	d *Dispatcher
}

// Work writes one delivery per event and active subscription of its account that chose the
// event's kind, queues a job for each, and marks the events dispatched, in one transaction; the
// payload's bytes are fixed here, so every attempt sends the same ones. Events dispatched
// already (or never written: the statement that was to write one inserted nothing) are skipped.
func (w *fanOutWorker) Work(ctx context.Context, job *river.Job[jobs.FanOutEvents]) error {
	d := w.d
	d.init()
	now := d.Now()
	_, err := store.InTx(ctx, d.Store, func(tx *store.Tx) (struct{}, error) {
		events, err := tx.LockOutboxEvents(ctx, job.Args.OutboxEventIDs)
		if err != nil || len(events) == 0 {
			return struct{}{}, err
		}
		ids := make([]uuid.UUID, len(events))
		byID := make(map[uuid.UUID]store.OutboxEvent, len(events))
		for i, e := range events {
			ids[i], byID[e.ID] = e.ID, e
		}
		subs, err := tx.OutboxSubscribers(ctx, ids)
		if err != nil {
			return struct{}{}, err
		}
		payloads := map[uuid.UUID][]byte{}
		fs := make([]store.FanOut, 0, len(subs))
		for _, s := range subs {
			e := byID[s.OutboxEventID]
			p, ok := payloads[e.ID]
			if !ok {
				var b bytes.Buffer
				if err := json.Compact(&b, e.Payload); err != nil {
					return struct{}{}, fmt.Errorf("outbox event %s: %w", e.ID, err)
				}
				p, payloads[e.ID] = b.Bytes(), b.Bytes()
			}
			fs = append(fs, store.FanOut{AccountID: s.AccountID, SubscriptionID: s.SubscriptionID, OutboxEventID: e.ID,
				EventType: e.EventType, Payload: p})
		}
		if _, err := tx.InsertFannedOutDeliveries(ctx, fs, now); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.MarkOutboxDispatched(ctx, ids, now)
	})
	if err != nil {
		return fmt.Errorf("fanning out outbox events: %w", err)
	}
	return nil
}

type deliveryWorker struct {
	river.WorkerDefaults[jobs.DeliverWebhook]
	d *Dispatcher
}

// Timeout bounds a job's run: the attempt and its record.
func (w *deliveryWorker) Timeout(*river.Job[jobs.DeliverWebhook]) time.Duration {
	w.d.init()
	return w.d.attemptTime()
}

// NextRetry is RetryDelays after the start of the attempt that failed. After the last allowed
// attempt (rescued by River because it lapsed) the next run comes at once: it only records the
// delivery failed. Never before now: River refuses a time past.
func (w *deliveryWorker) NextRetry(job *river.Job[jobs.DeliverWebhook]) time.Time {
	w.d.init()
	now := w.d.Now()
	next := now
	if job.AttemptedAt != nil && job.Attempt >= 1 && job.Attempt <= len(RetryDelays) {
		next = job.AttemptedAt.Add(RetryDelays[job.Attempt-1])
	}
	if next.Before(now) {
		return now
	}
	return next
}

// NotSent is the output (river.RecordOutput) of a delivery job that sent nothing.
type NotSent struct {
	Reason string `json:"notSent"`
}

// Work makes the attempt numbered job.Attempt at a delivery and records its outcome. A failure
// to retry is returned, for River to run the job again at NextRetry; a delivery closed for good
// cancels the job. Attempts River counted that recorded no outcome (their process stopped while
// sending) count against the subscription; when the last allowed one lapsed, this run only
// records the delivery failed. A delivery no longer pending (its subscription was switched off
// or deleted) completes the job without sending.
func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[jobs.DeliverWebhook]) error {
	d := w.d
	d.init()
	start := d.Now()
	if job.AttemptedAt != nil {
		start = *job.AttemptedAt
	}
	attempt := min(job.Attempt, MaxAttempts)
	a, err := d.Store.StartWebhookAttempt(ctx, job.Args.DeliveryID, attempt, start, start.Add(d.attemptTime()))
	if errors.Is(err, store.ErrNotFound) {
		return river.RecordOutput(ctx, NotSent{Reason: "the delivery is no longer pending"})
	} else if err != nil {
		return err
	}
	lapsed := max(0, job.Attempt-1-a.PreviousAttempts)
	if a.PreviousInFlight {
		lapsed++
	}
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if job.Attempt > MaxAttempts {
		d.Logger.WarnContext(ctx, "webhook delivery given up: its last attempt did not finish", "delivery_id", a.Delivery.ID,
			"subscription_id", a.Delivery.SubscriptionID)
		problem := fmt.Sprintf("gave up after %d attempts: the last one did not finish (the service stopped while sending)", MaxAttempts)
		outcome, err := d.record(rec, a, result{problem: problem, ours: true, final: true}, lapsed)
		if err != nil {
			return err
		}
		d.observe(a, outcome)
		return errors.Join(river.RecordOutput(ctx, NotSent{Reason: problem}), river.JobCancel(errors.New(problem)))
	}
	r := d.deliver(ctx, a)
	outcome, err := d.record(rec, a, r, lapsed)
	if err != nil {
		return err
	}
	d.observe(a, outcome)
	switch {
	case r.problem == "":
		return nil
	case outcome == OutcomeRetrying:
		return errors.New(r.problem)
	default:
		return river.JobCancel(errors.New(r.problem))
	}
}

// result is what one attempt came to.
type result struct {
	status   int     // the receiver's status; 0 when it did not answer
	body     *string // the first ResponseBodyLimit bytes of its answer
	duration time.Duration
	problem  string // empty: delivered
	gone     bool   // the receiver answered 410 Gone
	// ours marks a failure of the service itself (a panic, a secret it cannot open): it is not
	// counted against the subscription; final marks one not to retry.
	ours, final bool
}

// deliver makes one attempt at a delivery whose attempt began, and logs it.
func (d *Dispatcher) deliver(ctx context.Context, a store.WebhookAttempt) result {
	w := a.Delivery
	log := d.Logger.With("delivery_id", w.ID, "subscription_id", w.SubscriptionID, "event_type", w.EventType, "attempt", w.Attempts)
	// The attempt runs to its end, bounded by the timeout, even when the process is stopping.
	sendCtx := context.WithoutCancel(ctx)
	var r result
	err := recovery.Run(sendCtx, log, "webhook delivery panicked", func() error {
		r = d.send(sendCtx, a)
		return nil
	})
	if recovery.Is(err) {
		// Logged with its stack; the same delivery would panic again on every retry.
		r = result{problem: "internal error while sending; not retried (the service log has the details)", ours: true, final: true}
	}
	switch {
	case r.problem == "":
		log.InfoContext(ctx, "webhook delivered", "status", r.status, "duration_ms", r.duration.Milliseconds())
	case r.ours:
		log.ErrorContext(ctx, "webhook not sent", "problem", r.problem)
	default:
		log.WarnContext(ctx, "webhook attempt failed", "status", r.status, "problem", r.problem)
	}
	return r
}

// post makes the request: the exact payload bytes, signed now, with the trace context of ctx
// (traceparent) when it has a span.
func (d *Dispatcher) post(ctx context.Context, a store.WebhookAttempt) result {
	w := a.Delivery
	u, err := url.Parse(a.URL)
	if err != nil || (u.Scheme != "https" && !(d.Policy.AllowInsecure && u.Scheme == "http")) {
		return result{problem: "not sent: the URL must use https"}
	}
	secret, err := d.Secrets.Open(a.SecretSealed, associated(w.SubscriptionID))
	if err != nil {
		return result{problem: "not sent: the signing secret could not be opened (is its key in SECRETS_KEY or SECRETS_KEY_PREVIOUS?)", ours: true}
	}
	h, err := Headers(string(secret), w.EventType, w.ID.String(), d.Now(), w.Payload)
	if err != nil {
		return result{problem: "not sent: " + err.Error(), ours: true}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(w.Payload))
	if err != nil {
		return result{problem: "not sent: the URL cannot be requested: " + err.Error()}
	}
	req.Header = h
	tracing.Propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "credentiald-webhooks/1")
	start := time.Now()
	res, err := d.client.Do(req)
	if err != nil {
		return result{duration: time.Since(start), problem: d.describe(err)}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, ResponseBodyLimit))
	// Read a little more, so that a short answer's connection can serve the next delivery.
	_, _ = io.CopyN(io.Discard, res.Body, 16<<10)
	_ = res.Body.Close()
	r := result{status: res.StatusCode, body: text(body), duration: time.Since(start)}
	switch code := res.StatusCode; {
	case err != nil:
		r.problem = "the answer's body could not be read: " + d.describe(err)
	case code >= 200 && code < 300:
	case code >= 300 && code < 400:
		r.problem = fmt.Sprintf("the receiver answered %d, a redirect (Location %q); redirects are not followed: answer 2xx at the subscribed URL", code, res.Header.Get("Location"))
	case code == http.StatusGone:
		r.gone = true
		r.problem = "the receiver answered 410 Gone: the subscription is switched off"
	default:
		r.problem = fmt.Sprintf("the receiver answered %d %s", code, http.StatusText(code))
	}
	return r
}

// describe says why a request failed, in words for the delivery record.
func (d *Dispatcher) describe(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if inner := errors.Unwrap(e); inner == ssrf.ErrProhibitedIP || inner == ssrf.ErrProhibitedPort || inner == ssrf.ErrProhibitedNetwork {
			return "not sent: refused before connecting, " + e.Error() + "; webhooks go only to public addresses"
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s (the timeout of an attempt)", d.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "the request failed: " + err.Error()
}

// text is a response body as the record keeps it: valid UTF-8 without NUL (a PostgreSQL text),
// nil when empty.
func text(b []byte) *string {
	if len(b) == 0 {
		return nil
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	// The contract counts at most ResponseBodyLimit characters; replacements never add any.
	for utf8.RuneCountInString(s) > ResponseBodyLimit {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return &s
}

// observe tells the observer, if any, of an attempt recorded (after its transaction committed).
func (d *Dispatcher) observe(a store.WebhookAttempt, o Outcome) {
	if d.Observer != nil && o != "" {
		d.Observer.Attempted(o, max(0, d.Now().Sub(a.QueuedAt)))
	}
}

// record writes the outcome of an attempt and applies the subscription's rules: a success
// resets its failures; a failure counts one (and one more per attempt before that lapsed),
// schedules the next attempt, or closes the delivery when it was the last, when the
// subscription is off, or when this failure switches it off (410 Gone, or the tenth in a row).
// It returns the attempt's outcome: OutcomeRetrying when the delivery waits for another
// attempt; "" when there was nothing to record (the delivery was closed or deleted meanwhile).
func (d *Dispatcher) record(ctx context.Context, a store.WebhookAttempt, r result, lapsed int) (Outcome, error) {
	w := a.Delivery
	now := d.Now()
	o := store.WebhookOutcome{ResponseBody: r.body}
	if r.status != 0 {
		o.ResponseStatus = &r.status
	}
	if r.duration > 0 || r.status != 0 {
		ms := int(r.duration.Milliseconds())
		o.DurationMs = &ms
	}
	if r.problem == "" {
		// A success needs no lock on the subscription: it only ever sets the count to 0.
		o.Status = "succeeded"
		return store.InTx(ctx, d.Store, func(tx *store.Tx) (Outcome, error) {
			if ok, err := tx.FinishWebhookAttempt(ctx, w.ID, w.Attempts, o); err != nil || !ok {
				return "", err
			}
			return OutcomeDelivered, tx.ResetWebhookFailures(ctx, w.SubscriptionID)
		})
	}
	return store.InTx(ctx, d.Store, func(tx *store.Tx) (Outcome, error) {
		sub, err := tx.LockWebhookSubscriptionByID(ctx, w.SubscriptionID)
		if errors.Is(err, store.ErrNotFound) {
			return "", nil // deleted meanwhile, with its deliveries
		} else if err != nil {
			return "", err
		}
		failures := lapsed
		if !r.ours {
			failures++
		}
		problem := r.problem
		final := r.final || w.Attempts >= MaxAttempts || !sub.Active
		if !sub.Active && !r.final && w.Attempts < MaxAttempts {
			problem += "; not retried: the subscription is switched off"
		}
		// The rules decide the switch-off before the record is written, so that the record
		// says why it was not retried.
		switchOff := sub.Active && failures > 0 && (r.gone || sub.ConsecutiveFailures+failures >= SwitchOffAfter)
		if switchOff {
			final = true
			if !r.gone {
				problem += fmt.Sprintf("; the subscription was switched off after %d failed attempts in a row", SwitchOffAfter)
			}
		}
		o.Error = &problem
		o.Status = "pending"
		if final {
			o.Status = "failed"
		} else {
			next := store.Deref(w.LastAttemptAt).Add(RetryDelays[w.Attempts-1])
			o.NextAttemptAt = &next
		}
		if ok, err := tx.FinishWebhookAttempt(ctx, w.ID, w.Attempts, o); err != nil || !ok {
			return "", err
		}
		if _, err := d.countFailures(ctx, tx, sub, failures, r.gone, now); err != nil {
			return "", err
		}
		switch {
		case !final:
			return OutcomeRetrying, nil
		case switchOff || !sub.Active:
			return OutcomeDisabled, nil
		}
		return OutcomeFailed, nil
	})
}

// countFailures adds n failed attempts to a locked subscription and switches it off, failing
// its pending deliveries, when they reach SwitchOffAfter in a row or the receiver said 410 Gone.
func (d *Dispatcher) countFailures(ctx context.Context, tx *store.Tx, sub domain.WebhookSubscription, n int, gone bool, now time.Time) (bool, error) {
	if n == 0 {
		return false, nil
	}
	failures := sub.ConsecutiveFailures + n
	if err := tx.SetWebhookFailures(ctx, sub.ID, failures); err != nil {
		return false, err
	}
	if !sub.Active || (!gone && failures < SwitchOffAfter) {
		return false, nil
	}
	reason := fmt.Sprintf("not delivered: the subscription was switched off after %d failed attempts in a row", failures)
	if gone {
		reason = "not delivered: the subscription was switched off when its receiver answered 410 Gone"
	}
	if err := tx.SwitchOffWebhookSubscription(ctx, sub.ID, now); err != nil {
		return false, err
	}
	if err := tx.FailPendingWebhookDeliveries(ctx, sub.ID, reason, now); err != nil {
		return false, err
	}
	d.Logger.WarnContext(ctx, "webhook subscription switched off", "subscription_id", sub.ID, "consecutive_failures", failures, "gone", gone)
	return true, nil
}
