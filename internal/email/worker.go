package email

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
)

// Attachment is a file sent with a message.
type Attachment struct {
	Name, ContentType string
	Data              []byte
}

// Worker sends recorded messages: it is the River worker of jobs.SendEmail, queued in the
// transaction that records each message. River retries a temporary failure on the worker's
// schedule (NextRetry) and rescues the job of a process that died while sending; the outcome
// of every attempt is recorded on the message, which the API lists.
type Worker struct {
	river.WorkerDefaults[jobs.SendEmail]

	Store    *store.Store
	Sender   Sender
	Composer Composer
	Logger   *slog.Logger
	// MaxAttempts before a temporarily failing message is given up (default jobs.EmailAttempts;
	// at most that).
	MaxAttempts int
	// Backoff is the wait after the n-th failed attempt (default: 30 s doubling, at most 1 h,
	// with a jitter drawn from the job's id and the attempt).
	Backoff func(attempt int) time.Duration
	// Prepare, when set, completes a message as it is sent: it may fill in the body (a link
	// with a secret that must not rest in the database) and returns the files it carries (a
	// certificate's PDF).
	Prepare func(ctx context.Context, d *domain.EmailDelivery) ([]Attachment, error)
	// Delivered, when set, writes what follows from a delivery in the transaction that marks
	// the message sent (a certificate's certificate.sent event).
	Delivered func(ctx context.Context, tx *store.Tx, d domain.EmailDelivery) error
	// Now is the worker's clock (default time.Now): the times recorded on the message.
	Now func() time.Time
}

// Timeout bounds one attempt: preparing (a certificate's PDF) and the minute of sending.
func (w *Worker) Timeout(*river.Job[jobs.SendEmail]) time.Duration { return 3 * time.Minute }

// backoff is the wait after the failed attempt numbered attempt of job id: 30 s doubling, at
// most 1 h, between half of that and all of it. The jitter is drawn from the job's id and the
// attempt, so that NextRetry (River's schedule) and the time recorded on the message agree.
func (w *Worker) backoff(id int64, attempt int) time.Duration {
	if w.Backoff != nil {
		return w.Backoff(attempt)
	}
	d := 30 * time.Second << min(attempt-1, 7)
	d = min(d, time.Hour)
	jitter := rand.New(rand.NewPCG(uint64(id), uint64(attempt)))
	return d/2 + time.Duration(jitter.Int64N(int64(d/2)+1))
}

// NextRetry is when River tries a failed attempt again: counted from the attempt's start (and
// not before now: River refuses a time past).
func (w *Worker) NextRetry(job *river.Job[jobs.SendEmail]) time.Time {
	next := w.attemptedAt(job).Add(w.backoff(job.ID, job.Attempt))
	if now := w.now(); next.Before(now) {
		return now
	}
	return next
}

func (w *Worker) attemptedAt(job *river.Job[jobs.SendEmail]) time.Time {
	if job.AttemptedAt != nil {
		return *job.AttemptedAt
	}
	return w.now()
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) maxAttempts() int {
	if w.MaxAttempts > 0 {
		return min(w.MaxAttempts, jobs.EmailAttempts)
	}
	return jobs.EmailAttempts
}

// Work makes one attempt at a message and records its outcome. A temporary failure is returned
// for River to retry on NextRetry; a permanent one, a panic or the last attempt's failure
// cancels the job. The attempt after the cap happens only when the last allowed one lapsed
// (its process died while sending): it records the message failed. A message no longer queued
// (its outcome recorded by an attempt whose job did not complete) is left as it is.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.SendEmail]) error {
	d, err := w.Store.EmailByID(ctx, job.Args.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if d.Status != "queued" {
		return nil
	}
	log := w.Logger.With("delivery_id", d.ID, "kind", d.Kind, "attempt", job.Attempt)
	limit := w.maxAttempts()
	// Record the outcome even when ctx was cancelled mid-send.
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if job.Attempt > limit {
		log.ErrorContext(ctx, "email given up: its last attempt did not finish")
		reason := fmt.Sprintf("gave up after %d attempts: the last one did not finish (the worker stopped or hung while sending)", limit)
		return cancelled(errors.New(reason), w.Store.MarkEmailFailed(rec, d.ID, limit, reason, w.now()))
	}
	err = recovery.Run(ctx, log, "email panicked while being prepared or sent", func() error { return w.send(ctx, d) })
	now := w.now()
	switch {
	case err == nil:
		log.InfoContext(ctx, "email sent")
		return w.markSent(rec, d.ID, job.Attempt, now)
	case recovery.Is(err):
		// Logged with its stack above; the same message would panic again on every retry.
		return cancelled(err, w.Store.MarkEmailFailed(rec, d.ID, job.Attempt, "internal error while preparing or sending the message; it is not retried (the service log has the details)", now))
	case isPermanent(err):
		log.WarnContext(ctx, "email failed for good", "error", err)
		return cancelled(err, w.Store.MarkEmailFailed(rec, d.ID, job.Attempt, err.Error(), now))
	case job.Attempt >= limit:
		log.WarnContext(ctx, "email given up", "error", err)
		return cancelled(err, w.Store.MarkEmailFailed(rec, d.ID, job.Attempt, fmt.Sprintf("gave up after %d attempts: %v", job.Attempt, err), now))
	default:
		next := w.NextRetry(job)
		log.InfoContext(ctx, "email will be retried", "error", err, "next_attempt_at", next)
		if rerr := w.Store.RetryEmailLater(rec, d.ID, job.Attempt, err.Error(), next, now); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
}

// cancelled ends a job whose message was recorded failed; a failure to record it is returned
// instead, for River to try the attempt again.
func cancelled(err, recordErr error) error {
	if recordErr != nil {
		return errors.Join(err, recordErr)
	}
	return river.JobCancel(err)
}

// markSent records a delivered message and, in the same transaction, what follows from it.
func (w *Worker) markSent(ctx context.Context, id uuid.UUID, attempt int, now time.Time) error {
	_, err := store.InTx(ctx, w.Store, func(tx *store.Tx) (struct{}, error) {
		d, err := tx.MarkEmailSent(ctx, id, attempt, now)
		if errors.Is(err, store.ErrNotFound) {
			return struct{}{}, nil // recorded meanwhile
		}
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
