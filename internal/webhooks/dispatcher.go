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

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// The delivery rules of the contract.
const (
	// MaxAttempts a delivery gets: at once, then after each of RetryDelays.
	MaxAttempts = 5
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

const (
	fanOutBatch = 200
	claimBatch  = 50
)

// Dispatcher turns outbox events into deliveries and sends the deliveries that are due. Any
// number of dispatchers may run on one database: each claims what it sends under a lease, so a
// delivery is attempted by one dispatcher at a time, and one that stops while sending lets its
// deliveries become due again when their lease runs out (the lapsed attempt counts).
type Dispatcher struct {
	Store   *store.Store
	Secrets *secretbox.Box
	Policy  Policy
	Logger  *slog.Logger
	// Timeout of one attempt (default DefaultTimeout).
	Timeout time.Duration
	// Lease is how long a claimed delivery is held (default 1 minute; at least Timeout + 30 s).
	Lease time.Duration
	// Concurrency is how many deliveries are sent at once (default 8).
	Concurrency int
	// Poll is how often the dispatcher looks for work when nobody kicks it (default 1 s).
	Poll time.Duration
	// Now is the dispatcher's clock (default time.Now): what is due, retry times, timestamps.
	// Durations are measured on the monotonic clock.
	Now func() time.Time

	once   sync.Once
	kick   chan struct{}
	client *http.Client
}

func (d *Dispatcher) init() {
	d.once.Do(func() {
		if d.Timeout == 0 {
			d.Timeout = DefaultTimeout
		}
		if d.Lease == 0 {
			d.Lease = time.Minute
		}
		d.Lease = max(d.Lease, d.Timeout+30*time.Second)
		if d.Concurrency == 0 {
			d.Concurrency = 8
		}
		if d.Poll == 0 {
			d.Poll = time.Second
		}
		if d.Now == nil {
			d.Now = time.Now
		}
		if d.Logger == nil {
			d.Logger = slog.Default()
		}
		d.kick = make(chan struct{}, 1)
		d.client = d.Policy.Client(d.Timeout)
		if t, ok := d.client.Transport.(*http.Transport); ok {
			// Keep a connection per sender idle, so that a busy receiver is not handshaken anew.
			t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, d.Concurrency)
		}
	})
}

// Kick asks the dispatcher to look for work now.
func (d *Dispatcher) Kick() {
	d.init()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Run dispatches until ctx ends. An attempt in flight when ctx ends is finished (it is bounded
// by the timeout) and recorded.
func (d *Dispatcher) Run(ctx context.Context) {
	d.init()
	t := time.NewTicker(d.Poll)
	defer t.Stop()
	for {
		for {
			var n int
			// Nothing that goes wrong in one round, a panic included, stops the dispatcher.
			err := recovery.Run(ctx, d.Logger, "webhook dispatcher panicked", func() (err error) {
				n, err = d.RunOnce(ctx)
				return err
			})
			if err != nil && ctx.Err() == nil && !recovery.Is(err) {
				d.Logger.ErrorContext(ctx, "webhook dispatcher", "error", err)
			}
			if n < claimBatch || err != nil || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.kick:
		}
	}
}

// RunOnce fans the outbox's new events out into deliveries, closes the deliveries whose last
// attempt lapsed, then claims one batch of due deliveries and attempts each once. It returns
// how many it attempted.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	d.init()
	now := d.Now()
	if _, err := d.fanOut(ctx, now); err != nil {
		return 0, fmt.Errorf("fanning out the outbox: %w", err)
	}
	if err := d.failLapsed(ctx, now); err != nil {
		return 0, err
	}
	batch, err := d.Store.ClaimDueWebhookDeliveries(ctx, store.WebhookClaim{Now: now, Batch: claimBatch, Lease: d.Lease, MaxAttempts: MaxAttempts})
	if err != nil {
		return 0, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, d.Concurrency)
	)
	for _, a := range batch {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := d.deliver(ctx, a); err != nil {
				mu.Lock()
				first = firstOf(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return len(batch), first
}

func firstOf(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// fanOut writes one delivery per event and active subscription of its account that chose the
// event's kind, and marks the events dispatched, in one transaction per batch; the payload's
// bytes are fixed here, so every attempt sends the same ones. It returns how many events it
// dispatched.
func (d *Dispatcher) fanOut(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for {
		n, err := store.InTx(ctx, d.Store, func(tx *store.Tx) (int, error) {
			events, err := tx.ClaimOutboxEvents(ctx, fanOutBatch)
			if err != nil || len(events) == 0 {
				return 0, err
			}
			ids := make([]uuid.UUID, len(events))
			byID := make(map[uuid.UUID]store.OutboxEvent, len(events))
			for i, e := range events {
				ids[i], byID[e.ID] = e.ID, e
			}
			subs, err := tx.OutboxSubscribers(ctx, ids)
			if err != nil {
				return 0, err
			}
			payloads := map[uuid.UUID][]byte{}
			fs := make([]store.FanOut, 0, len(subs))
			for _, s := range subs {
				e := byID[s.OutboxEventID]
				p, ok := payloads[e.ID]
				if !ok {
					var b bytes.Buffer
					if err := json.Compact(&b, e.Payload); err != nil {
						return 0, fmt.Errorf("outbox event %s: %w", e.ID, err)
					}
					p, payloads[e.ID] = b.Bytes(), b.Bytes()
				}
				fs = append(fs, store.FanOut{AccountID: s.AccountID, SubscriptionID: s.SubscriptionID, OutboxEventID: e.ID,
					EventType: e.EventType, Payload: p})
			}
			if _, err := tx.InsertFannedOutDeliveries(ctx, fs, now); err != nil {
				return 0, err
			}
			return len(events), tx.MarkOutboxDispatched(ctx, ids, now)
		})
		total += n
		if err != nil || n < fanOutBatch {
			return total, err
		}
	}
}

// failLapsed records as failed the deliveries whose fifth attempt never finished (the process
// stopped while sending), and counts that attempt against their subscription.
func (d *Dispatcher) failLapsed(ctx context.Context, now time.Time) error {
	lapsed, err := d.Store.FailLapsedWebhookDeliveries(ctx, now, MaxAttempts, fmt.Sprintf(
		"gave up after %d attempts: the last one did not finish within its lease of %s (the service stopped while sending)", MaxAttempts, d.Lease))
	if err != nil {
		return err
	}
	for _, w := range lapsed {
		d.Logger.WarnContext(ctx, "webhook delivery given up: its last attempt did not finish", "delivery_id", w.ID,
			"subscription_id", w.SubscriptionID)
		_, err := store.InTx(ctx, d.Store, func(tx *store.Tx) (struct{}, error) {
			sub, err := tx.LockWebhookSubscriptionByID(ctx, w.SubscriptionID)
			if errors.Is(err, store.ErrNotFound) {
				return struct{}{}, nil
			} else if err != nil {
				return struct{}{}, err
			}
			_, err = d.countFailures(ctx, tx, sub, 1, false, now)
			return struct{}{}, err
		})
		if err != nil {
			return err
		}
	}
	return nil
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

// deliver makes one attempt at a claimed delivery and records its outcome. Only a failure to
// record is returned.
func (d *Dispatcher) deliver(ctx context.Context, a store.WebhookAttempt) error {
	w := a.Delivery
	log := d.Logger.With("delivery_id", w.ID, "subscription_id", w.SubscriptionID, "event_type", w.EventType, "attempt", w.Attempts)
	// The attempt runs to its end, bounded by the timeout, even when the dispatcher is stopping.
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
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return d.record(rec, a, r)
}

// send makes the request: the exact payload bytes, signed now.
func (d *Dispatcher) send(ctx context.Context, a store.WebhookAttempt) result {
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

// record writes the outcome of an attempt and applies the subscription's rules: a success
// resets its failures; a failure counts one (and one more when the attempt before lapsed),
// schedules the next attempt, or closes the delivery when it was the last, when the
// subscription is off, or when this failure switches it off (410 Gone, or the tenth in a row).
func (d *Dispatcher) record(ctx context.Context, a store.WebhookAttempt, r result) error {
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
		_, err := store.InTx(ctx, d.Store, func(tx *store.Tx) (struct{}, error) {
			if ok, err := tx.FinishWebhookAttempt(ctx, w.ID, w.Attempts, o); err != nil || !ok {
				return struct{}{}, err
			}
			return struct{}{}, tx.ResetWebhookFailures(ctx, w.SubscriptionID)
		})
		return err
	}
	_, err := store.InTx(ctx, d.Store, func(tx *store.Tx) (struct{}, error) {
		sub, err := tx.LockWebhookSubscriptionByID(ctx, w.SubscriptionID)
		if errors.Is(err, store.ErrNotFound) {
			return struct{}{}, nil // deleted meanwhile, with its deliveries
		} else if err != nil {
			return struct{}{}, err
		}
		failures := 0
		if !r.ours {
			failures++
		}
		if a.Lapsed {
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
			return struct{}{}, err
		}
		_, err = d.countFailures(ctx, tx, sub, failures, r.gone, now)
		return struct{}{}, err
	})
	return err
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
