package email

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
)

// Attachment is a file sent with a message.
type Attachment struct {
	Name, ContentType string
	Data              []byte
}

// Worker sends the recorded messages that are due.
type Worker struct {
	Store    *store.Store
	Sender   Sender
	Composer Composer
	Logger   *slog.Logger
	// MaxAttempts before a temporarily failing message is given up (default 8).
	MaxAttempts int
	// Backoff is the wait after the n-th failed attempt (default: 30 s doubling, at most 1 h,
	// with jitter).
	Backoff func(attempt int) time.Duration
	// Prepare, when set, completes a message as it is sent: it may fill in the body (a link
	// with a secret that must not rest in the database) and returns the files it carries (a
	// certificate's PDF).
	Prepare func(ctx context.Context, d *domain.EmailDelivery) ([]Attachment, error)
	// Delivered, when set, writes what follows from a delivery in the transaction that marks
	// the message sent (a certificate's certificate.sent event).
	Delivered func(ctx context.Context, tx *store.Tx, d domain.EmailDelivery) error
	// Poll is how often the worker looks for due messages when nobody kicks it (default 2 s).
	Poll time.Duration
	// Now is the worker's clock (default time.Now): it decides what is due and when a lease ends.
	Now func() time.Time

	once sync.Once
	kick chan struct{}
}

const (
	claimBatch = 20
	// claimLease: a message claimed by a worker that then dies is due again after this.
	claimLease = 5 * time.Minute
)

func defaultBackoff(attempt int) time.Duration {
	d := 30 * time.Second << min(attempt-1, 7)
	d = min(d, time.Hour)
	return d/2 + rand.N(d/2+1)
}

// init applies the defaults once: Kick comes from request goroutines while Run may start.
func (w *Worker) init() {
	w.once.Do(func() {
		if w.MaxAttempts == 0 {
			w.MaxAttempts = 8
		}
		if w.Backoff == nil {
			w.Backoff = defaultBackoff
		}
		if w.Poll == 0 {
			w.Poll = 2 * time.Second
		}
		if w.Now == nil {
			w.Now = time.Now
		}
		w.kick = make(chan struct{}, 1)
	})
}

// Kick asks the worker to look for due messages now.
func (w *Worker) Kick() {
	w.init()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run sends due messages until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	w.init()
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		for {
			var n int
			// Nothing that goes wrong in one round, a panic included, stops the worker.
			err := recovery.Run(ctx, w.Logger, "email worker panicked", func() (err error) {
				n, err = w.RunOnce(ctx)
				return err
			})
			if err != nil && ctx.Err() == nil && !recovery.Is(err) {
				w.Logger.ErrorContext(ctx, "email worker", "error", err)
			}
			if n < claimBatch || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.kick:
		}
	}
}

// RunOnce records as failed the messages whose last allowed attempt lapsed, then claims one
// batch of due messages and tries each once. It returns how many it claimed.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	w.init()
	now := w.Now()
	lapsed, err := w.Store.FailLapsedEmails(ctx, now, w.MaxAttempts, fmt.Sprintf(
		"gave up after %d attempts: the last one did not finish within its lease of %s (the worker stopped or hung while sending)",
		w.MaxAttempts, claimLease))
	if err != nil {
		return 0, err
	}
	for _, d := range lapsed {
		w.Logger.ErrorContext(ctx, "email given up: its last attempt did not finish", "delivery_id", d.ID, "kind", d.Kind, "attempt", d.Attempts)
	}
	batch, err := w.Store.ClaimDueEmails(ctx, store.EmailClaim{Now: now, Batch: claimBatch, Lease: claimLease, MaxAttempts: w.MaxAttempts})
	if err != nil {
		return 0, err
	}
	for _, d := range batch {
		if err := w.deliver(ctx, d); err != nil {
			return len(batch), err
		}
	}
	return len(batch), nil
}

// deliver tries one message and records the outcome. Only a failure to record is returned.
func (w *Worker) deliver(ctx context.Context, d domain.EmailDelivery) error {
	log := w.Logger.With("delivery_id", d.ID, "kind", d.Kind, "attempt", d.Attempts)
	err := recovery.Run(ctx, log, "email panicked while being prepared or sent", func() error { return w.send(ctx, d) })
	// Record the outcome even when ctx was cancelled mid-send.
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now := w.Now()
	switch {
	case err == nil:
		log.InfoContext(ctx, "email sent")
		return w.markSent(rec, d.ID, now)
	case recovery.Is(err):
		// Logged with its stack above; the same message would panic again on every retry.
		return w.Store.MarkEmailFailed(rec, d.ID, "internal error while preparing or sending the message; it is not retried (the service log has the details)", now)
	case isPermanent(err):
		log.WarnContext(ctx, "email failed for good", "error", err)
		return w.Store.MarkEmailFailed(rec, d.ID, err.Error(), now)
	case d.Attempts >= w.MaxAttempts:
		log.WarnContext(ctx, "email given up", "error", err)
		return w.Store.MarkEmailFailed(rec, d.ID, fmt.Sprintf("gave up after %d attempts: %v", d.Attempts, err), now)
	default:
		next := now.Add(w.Backoff(d.Attempts))
		log.InfoContext(ctx, "email will be retried", "error", err, "next_attempt_at", next)
		return w.Store.RetryEmailLater(rec, d.ID, err.Error(), next, now)
	}
}

// markSent records a delivered message and, in the same transaction, what follows from it.
func (w *Worker) markSent(ctx context.Context, id uuid.UUID, now time.Time) error {
	_, err := store.InTx(ctx, w.Store, func(tx *store.Tx) (struct{}, error) {
		d, err := tx.MarkEmailSent(ctx, id, now)
		if err != nil || w.Delivered == nil {
			return struct{}{}, err
		}
		return struct{}{}, w.Delivered(ctx, tx, d)
	})
	return err
}

func (w *Worker) send(ctx context.Context, d domain.EmailDelivery) error {
	var files []Attachment
	if w.Prepare != nil {
		var err error
		if files, err = w.Prepare(ctx, &d); err != nil {
			return err
		}
	}
	m, err := w.Composer.Compose(d)
	if err != nil {
		return err
	}
	if err := w.addHTML(ctx, d, m); err != nil {
		return err
	}
	for _, f := range files {
		if err := m.AttachReader(f.Name, bytes.NewReader(f.Data), gomail.WithFileContentType(gomail.ContentType(f.ContentType))); err != nil {
			return &PermanentError{fmt.Errorf("attachment %s: %w", f.Name, err)}
		}
	}
	sendCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return w.Sender.Send(sendCtx, d, m)
}

// addHTML adds the branded HTML part beside the plain text, in the account's current branding,
// with its logo inline (cid:logo).
func (w *Worker) addHTML(ctx context.Context, d domain.EmailDelivery, m *gomail.Msg) error {
	branding, err := w.Store.FindBranding(ctx, d.AccountID)
	if err != nil {
		return err
	}
	brand := BrandOf(branding)
	html, err := FromText(d, brand).HTML()
	if err != nil {
		return &PermanentError{fmt.Errorf("html part: %w", err)}
	}
	m.AddAlternativeString(gomail.TypeTextHTML, html)
	if len(brand.Logo) > 0 {
		// The header takes the id in angle brackets (RFC 2045's msg-id): cid:logo in the HTML
		// names the part whose Content-ID is <logo>; go-mail writes the value as given.
		if err := m.EmbedReader("logo.png", bytes.NewReader(brand.Logo), gomail.WithFileContentID("<"+LogoContentID+">"),
			gomail.WithFileContentType(gomail.ContentType("image/png"))); err != nil {
			return &PermanentError{fmt.Errorf("logo: %w", err)}
		}
	}
	return nil
}
