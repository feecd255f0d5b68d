// Package bulk issues certificates for many attendees of an event: synchronously for up to 100,
// or as a background job on River that survives restarts and never issues, charges or emails
// anyone twice (each attendee's issuance and its record on the job commit together).
package bulk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"golang.org/x/sync/errgroup"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

// MaxSync is the most attendees one synchronous request issues for.
const MaxSync = 100

// Issuer issues certificates; the service runs with *certificates.Service.
type Issuer interface {
	// Generate issues one certificate in a transaction of its own.
	Generate(ctx context.Context, p certificates.GenerateParams) (domain.Certificate, error)
	// Issue issues one certificate in the caller's transaction.
	Issue(ctx context.Context, tx *store.Tx, p certificates.GenerateParams) (domain.Certificate, error)
	// IssueAll issues a certificate for each of ps in the caller's transaction, together, or
	// answers an error when one of them would not be a plain issuance (see
	// certificates.Service.IssueAll).
	IssueAll(ctx context.Context, tx *store.Tx, ps []certificates.GenerateParams) ([]domain.Certificate, error)
	Now() time.Time
}

// Timing paces the jobs; the zero value is production's.
type Timing struct {
	// RunFor bounds one run of a job (default 20 s); the job then yields and continues in its
	// next run, so that no run outlasts JobTimeout.
	RunFor time.Duration
	// JobTimeout cancels a run that takes longer (default 1 min).
	JobTimeout time.Duration
	// RescueAfter is when a job whose process died mid-run is taken up again (0: the process's
	// River client's default, jobqueue.DefaultRescueAfter): that client takes it (see
	// jobqueue); bulk only keeps the figure, for the client a test builds.
	RescueAfter time.Duration
}

// Service runs bulk issuance. Its jobs run on the process's one River client (see jobqueue),
// with the worker Worker returns.
type Service struct {
	store  *store.Store
	certs  Issuer
	logger *slog.Logger
	timing Timing
}

// New returns the service.
func New(st *store.Store, certs Issuer, logger *slog.Logger, t Timing) (*Service, error) {
	t.RunFor = cmp.Or(t.RunFor, 20*time.Second)
	t.JobTimeout = cmp.Or(t.JobTimeout, time.Minute)
	return &Service{store: st, certs: certs, logger: logger, timing: t}, nil
}

// Worker is the River worker of the service's jobs.
func (s *Service) Worker() river.Worker[JobArgs] { return &worker{s: s} }

// Timing is the service's pace, its defaults applied.
func (s *Service) Timing() Timing { return s.timing }

// Request is what to issue for an event.
type Request struct {
	AccountID, EventID uuid.UUID
	AttendeeIDs        []uuid.UUID // nil: every attendee without a valid certificate
	TemplateID         *uuid.UUID  // nil: the event's
	SendEmail, Draft   bool
	// AllowPartial starts a job whose attendees to issue outnumber the credits left: it issues
	// while they last. Without it such a job is refused (jobs only).
	AllowPartial bool
}

// Skipped is an attendee who already held a valid certificate.
type Skipped struct {
	AttendeeID uuid.UUID
	Existing   apperr.Existing
}

// Failed is an attendee who could not be issued.
type Failed struct {
	AttendeeID    uuid.UUID
	Code, Message string
}

// Result is the outcome of a synchronous bulk issuance, per attendee.
type Result struct {
	Issued  []domain.Certificate
	Skipped []Skipped
	Failed  []Failed
}

// Generate issues for up to MaxSync attendees: all together in one transaction when every one
// of them is a plain issuance and the credits suffice for all (issueAll), else one by one, each
// in a transaction of its own (credits are spent one at a time; those past the limit fail with
// CREDIT_LIMIT).
func (s *Service) Generate(ctx context.Context, r Request) (Result, error) {
	tmpl, err := s.template(ctx, r)
	if err != nil {
		return Result{}, err
	}
	ids := r.AttendeeIDs
	if ids == nil {
		if ids, err = s.store.AttendeesWithoutValid(ctx, r.AccountID, r.EventID, tmpl, s.certs.Now()); err != nil {
			return Result{}, err
		}
		if len(ids) > MaxSync {
			return Result{}, apperr.Invalid("attendeeIds", fmt.Sprintf("%d attendees hold no valid certificate; name at most %d, or start a job", len(ids), MaxSync))
		}
	}
	res := Result{Issued: []domain.Certificate{}, Skipped: []Skipped{}, Failed: []Failed{}}
	if issued, ok := s.issueAll(ctx, r, tmpl, ids); ok {
		res.Issued = issued
		return res, nil
	}
	for _, a := range ids {
		c, err := s.certs.Generate(ctx, certificates.GenerateParams{AccountID: r.AccountID, EventID: r.EventID, AttendeeID: a,
			TemplateID: tmpl, SendEmail: r.SendEmail, Draft: r.Draft})
		if err == nil {
			res.Issued = append(res.Issued, c)
			continue
		}
		e, ok := apperr.As(err)
		switch {
		case !ok || e.Code == apperr.Internal:
			return Result{}, err
		case e.Code == apperr.AlreadyIssued:
			res.Skipped = append(res.Skipped, Skipped{AttendeeID: a, Existing: *e.Existing})
		default:
			res.Failed = append(res.Failed, Failed{AttendeeID: a, Code: string(e.Code), Message: e.Message})
		}
	}
	return res, nil
}

// issueAll issues for every attendee of ids in one transaction, together (Issuer.IssueAll: the
// reads of all in one round trip, the writes of all in one plan applied in one round trip), their attendees locked
// first in id order. ok is false, and nothing was written, when that was not possible (one of
// them would be skipped, refused or fail, or too few credits are left for all): the caller
// then issues them one by one, each with its own outcome.
func (s *Service) issueAll(ctx context.Context, r Request, tmpl uuid.UUID, ids []uuid.UUID) ([]domain.Certificate, bool) {
	if len(ids) < 2 {
		return nil, false
	}
	ps := make([]certificates.GenerateParams, len(ids))
	for i, a := range ids {
		ps[i] = certificates.GenerateParams{AccountID: r.AccountID, EventID: r.EventID, AttendeeID: a, TemplateID: tmpl,
			SendEmail: r.SendEmail, Draft: r.Draft}
	}
	issued, err := store.InTx(ctx, s.store, func(tx *store.Tx) ([]domain.Certificate, error) {
		if err := tx.LockAttendees(ctx, r.AccountID, ids); err != nil {
			return nil, err
		}
		return s.certs.IssueAll(ctx, tx, ps)
	})
	return issued, err == nil
}

// template resolves the request's template: the one named (the account's, or a system one),
// or the event's. The event must be the account's.
func (s *Service) template(ctx context.Context, r Request) (uuid.UUID, error) {
	ev, err := s.store.FindEvent(ctx, r.AccountID, r.EventID)
	if err != nil {
		return uuid.Nil, apperr.When(err, store.ErrNotFound, apperr.NoSuch("event"))
	}
	if r.TemplateID == nil {
		return ev.TemplateID, nil
	}
	if err := templates.RequireUsable(ctx, s.store, r.AccountID, *r.TemplateID); err != nil {
		return uuid.Nil, err
	}
	return *r.TemplateID, nil
}

// CreateJob records a background job for the event, with one item per attendee, and queues
// it, in one transaction that holds the event. A second job for an event while one is queued
// or running answers 409 with the Location of that one. Unless the request allows a partial
// job, one whose attendees to issue outnumber the credits left is refused with CREDIT_LIMIT
// before anything is written.
func (s *Service) CreateJob(ctx context.Context, r Request) (domain.BulkJob, error) {
	tmpl, err := s.template(ctx, r)
	if err != nil {
		return domain.BulkJob{}, err
	}
	now := s.certs.Now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.BulkJob, error) {
		if err := tx.LockEvent(ctx, r.AccountID, r.EventID); err != nil {
			return domain.BulkJob{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("event"))
		}
		if active, err := tx.ActiveBulkJob(ctx, r.EventID); err == nil {
			e := apperr.New(apperr.Conflict, "A job for this event is already queued or running; follow it at Location.")
			e.Location = links.BulkJob(r.EventID, active)
			return domain.BulkJob{}, e
		} else if !errors.Is(err, store.ErrNotFound) {
			return domain.BulkJob{}, err
		}
		ids := r.AttendeeIDs
		if ids == nil {
			if ids, err = tx.AttendeesWithoutValid(ctx, r.AccountID, r.EventID, tmpl, now); err != nil {
				return domain.BulkJob{}, err
			}
		}
		if !r.Draft && !r.AllowPartial { // drafts use no credit
			if err := creditsSuffice(ctx, tx, r, tmpl, ids, now); err != nil {
				return domain.BulkJob{}, err
			}
		}
		j, err := tx.InsertBulkJob(ctx, store.NewBulkJob{AccountID: r.AccountID, EventID: r.EventID, TemplateID: tmpl,
			SendEmail: r.SendEmail, Draft: r.Draft, AttendeeIDs: ids}, now)
		if err != nil {
			return domain.BulkJob{}, err
		}
		return j, tx.InsertJob(ctx, JobArgs{JobID: j.ID})
	})
}

// creditsSuffice refuses a job whose attendees to issue outnumber the credits left this month.
// Those to issue are the job's attendees of the event without a valid certificate of the
// template: an attendee who holds one is skipped, an unknown one fails, neither is charged. An
// unlimited plan is never refused. Credits are spent as the job runs, not reserved here.
func creditsSuffice(ctx context.Context, tx *store.Tx, r Request, templateID uuid.UUID, ids []uuid.UUID, now time.Time) error {
	c, err := issuance.CreditsOf(ctx, tx, r.AccountID, now)
	if err != nil || c.Remaining == nil {
		return err
	}
	n, err := tx.CountAttendeesToIssue(ctx, r.AccountID, r.EventID, templateID, ids, now)
	if err != nil || n <= *c.Remaining {
		return err
	}
	e := apperr.New(apperr.CreditLimit, "This job would issue %s, but %s left this month "+
		"(the %s plan has %d; they renew on %s). Name fewer attendees, or set allowPartial to issue while credits last.",
		counted(n, "certificate", "certificates"), counted(*c.Remaining, "credit is", "credits are"), c.Plan, *c.Limit,
		c.ResetsAt.Format("2 January 2006"))
	e.Credits = c.Figures()
	return e
}

func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Job returns a job of an event of the account.
func (s *Service) Job(ctx context.Context, accountID, eventID, id uuid.UUID) (domain.BulkJob, error) {
	j, err := s.store.FindBulkJob(ctx, accountID, eventID, id)
	return j, apperr.When(err, store.ErrNotFound, apperr.NoSuch("job"))
}

// Jobs returns a page of an event's jobs, newest first, and their total; another account's
// event is 404.
func (s *Service) Jobs(ctx context.Context, accountID, eventID uuid.UUID, p domain.Page) ([]domain.BulkJob, int, error) {
	if err := events.Require(ctx, s.store, accountID, eventID); err != nil {
		return nil, 0, err
	}
	return s.store.ListBulkJobs(ctx, accountID, eventID, p)
}

// finish records a job's end with status and, in the same transaction, its job.completed
// event; a job that had ended already changes nothing and sends nothing again.
func (s *Service) finish(ctx context.Context, id uuid.UUID, status domain.BulkJobStatus) error {
	now := s.certs.Now().UTC()
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		j, err := tx.FinishBulkJob(ctx, id, status, now)
		if errors.Is(err, store.ErrNotFound) {
			return struct{}{}, nil
		} else if err != nil {
			return struct{}{}, err
		}
		data := map[string]any{"jobId": j.ID, "eventId": j.EventID, "status": j.Status, "total": j.Total,
			"issued": j.Issued, "skipped": j.Skipped, "failed": j.Failed}
		body := map[string]any{"eventType": "job.completed", "timestamp": now.Format(time.RFC3339), "data": data}
		return struct{}{}, tx.Outbox(ctx, j.AccountID, "job.completed", now, body)
	})
	return err
}

// JobArgs are the arguments of a bulk job's River job.
type JobArgs struct {
	JobID uuid.UUID `json:"jobId"`
}

// Kind is the job's kind in River.
func (JobArgs) Kind() string { return "bulk_generate_certificates" }

// InsertOpts puts bulk jobs in their own queue.
func (JobArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobs.QueueBulk} }

type worker struct {
	river.WorkerDefaults[JobArgs]
	s *Service
}

// Timeout cancels a run that takes longer than the service's JobTimeout.
func (w *worker) Timeout(*river.Job[JobArgs]) time.Duration { return w.s.timing.JobTimeout }

// itemBatch is how many pending attendees a run reads at a time: the batches the lanes share
// out, read again only when all of them are done.
const itemBatch = 8 * issueBatch

// Work processes a job's pending attendees. Each issuance records its item in the same
// transaction; skips and failures are recorded after (they changed nothing). A run that is
// cancelled or dies leaves the rest pending, and the next run (after a restart, River retries
// or rescues the job) goes on from there. A panic fails its attendee's item (see process); one
// anywhere else fails the job for good: River would retry it, and it would panic again. So
// does an error on the job's last attempt, so that no job stays "running" after River gives
// it up.
func (w *worker) Work(ctx context.Context, job *river.Job[JobArgs]) error {
	err := recovery.Run(ctx, w.s.logger, "bulk job panicked", func() error { return w.work(ctx, job) }, "job_id", job.Args.JobID)
	// A stop (the context cancelled) is not the job's failure: the next process goes on.
	lastAttempt := err != nil && job.Attempt >= job.MaxAttempts && !isSnooze(err) && !errors.Is(ctx.Err(), context.Canceled)
	if !recovery.Is(err) && !lastAttempt {
		return err
	}
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if ferr := w.s.finish(rec, job.Args.JobID, domain.BulkJobFailed); ferr != nil {
		return errors.Join(err, ferr)
	}
	return river.JobCancel(err)
}

func isSnooze(err error) bool {
	var snooze *rivertype.JobSnoozeError
	return errors.As(err, &snooze)
}

// NextRetry is when a run that failed (a database error, or a rescue after its process died)
// is taken up again. Its progress is recorded, so soon: 1 s doubling, at most 30 s. River's
// default schedule (errors⁴ seconds: 16 s, 81 s, 256 s...) left a job that failed a few runs
// waiting minutes with its attendees pending.
func (w *worker) NextRetry(job *river.Job[JobArgs]) time.Time {
	return time.Now().Add(min(time.Second<<min(len(job.Errors), 5), 30*time.Second))
}

// runContext bounds one run: past RunFor the run yields before its next batch, and its context
// ends halfway between RunFor and River's JobTimeout, so that a batch slowed by a loaded
// database is rolled back and taken up again by the next run, instead of River timing the run
// out as a failure.
func (s *Service) runContext(ctx context.Context) (context.Context, time.Time, context.CancelFunc) {
	start := time.Now() // the machine's time, not the service's clock: it keeps River's timeout, which a test clock does not move
	hard := s.timing.RunFor + max(s.timing.JobTimeout-s.timing.RunFor, 0)/2
	run, cancel := context.WithTimeout(ctx, hard)
	return run, start.Add(s.timing.RunFor), cancel
}

func (w *worker) work(ctx context.Context, job *river.Job[JobArgs]) error {
	run, deadline, cancel := w.s.runContext(ctx)
	defer cancel()
	progressed, err := w.s.run(run, job.Args.JobID, deadline)
	if err != nil && run.Err() != nil && ctx.Err() == nil {
		// The run's own bound ended it, not River or a stop: whatever it was doing rolled
		// back. After some progress the next run goes on at once; a run that committed
		// nothing counts as a failed attempt, so that a batch that can never finish in time
		// ends the job (its last attempt) instead of snoozing forever.
		if progressed {
			return river.JobSnooze(0)
		}
		return fmt.Errorf("bulk job %s: a run committed nothing within its bound: %w", job.Args.JobID, err)
	}
	return err
}

// run processes the job's pending attendees until none is left (and finishes the job) or
// until deadline, when it yields (River's snooze) to run again; a run starts no batch past
// its deadline once something committed, so every run commits at least one batch before it
// yields. progressed says whether the run committed anything.
func (s *Service) run(ctx context.Context, id uuid.UUID, deadline time.Time) (progressed bool, err error) {
	j, err := s.store.BulkJobByID(ctx, id)
	if err != nil {
		return false, err
	}
	if j.Status == domain.BulkJobCompleted || j.Status == domain.BulkJobFailed {
		return false, nil
	}
	if err := s.store.StartBulkJob(ctx, j.ID, s.certs.Now()); err != nil {
		return false, err
	}
	var done atomic.Bool // some attendee's outcome committed
	for {
		ids, err := s.store.PendingBulkJobItems(ctx, j.ID, itemBatch)
		if err != nil {
			return done.Load(), err
		}
		if len(ids) == 0 {
			return done.Load(), s.finish(ctx, j.ID, domain.BulkJobCompleted)
		}
		// The batches go jobLanes at a time: each its own transaction on its own connection,
		// on attendees of its own, so that one's reads and the server's work on it overlap
		// another's writes and commit.
		lanes, lctx := errgroup.WithContext(ctx)
		free := make(chan struct{}, jobLanes) // a token for each lane in use
		yield := false
		for batch := range slices.Chunk(ids, issueBatch) {
			select { // a free lane first, then whether to go on
			case free <- struct{}{}:
			case <-lctx.Done():
			}
			if lctx.Err() != nil {
				break
			}
			if done.Load() && time.Now().After(deadline) {
				yield = true
				break
			}
			lanes.Go(func() error {
				defer func() { <-free }()
				return recovery.Run(lctx, s.logger, "bulk job panicked", func() error { return s.runBatch(lctx, j, batch, &done) }, "job_id", j.ID)
			})
		}
		if err := lanes.Wait(); err != nil {
			return done.Load(), err
		}
		if err := ctx.Err(); err != nil {
			return done.Load(), err
		}
		if yield {
			return done.Load(), river.JobSnooze(0)
		}
	}
}

// runBatch issues for a batch of the job's attendees together; when something in it does
// not issue (a skip, a refusal, a failure, a panic), nothing of it commits, and its attendees
// go one by one, each outcome recorded as before. done is set once an outcome commits.
func (s *Service) runBatch(ctx context.Context, j domain.BulkJob, batch []uuid.UUID, done *atomic.Bool) error {
	if s.processBatch(ctx, j, batch) {
		done.Store(true)
		return nil
	}
	for _, a := range batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.process(ctx, j, a); err != nil {
			return err
		}
		done.Store(true) // the attendee's outcome is recorded
	}
	return nil
}

// jobLanes is how many batches of a job are in flight at once. The account's hot rows order
// the batches' writes, one after the other, whatever the lanes; what a second lane overlaps is
// the rest of a batch: its attendees' locks and reads, the server's work on them (their
// snapshots), and the previous batch's commit. A single issuance of the account waits behind
// at most the batches in flight.
const jobLanes = 2

// issueBatch is how many attendees a job issues for in one transaction. On a durable database
// a commit waits for its WAL flush, which one commit per attendee paid 10,000 times in a
// 10,000-attendee job; batches pay it once per batch, with the statements each batch runs
// whatever its size. A batch holds the account's credit row from its writes to its commit, so
// a single issuance of the same account waits for at most the batches in flight. 50 was
// measured faster than 25 (docs/benchmarks.md, "Figures behind design choices").
const issueBatch = 50

// processBatch issues for the attendees in one transaction, each issuance with its item's
// record, and reports whether it committed. It commits only when every attendee issued: on
// the first outcome that is not an issuance (a skip, a refusal, an error, a panic) the whole
// transaction rolls back and it answers false, leaving the attendees pending for process to
// take one by one. Either way an issuance and its record commit together, so a crash at any
// point issues, charges and emails nobody twice.
func (s *Service) processBatch(ctx context.Context, j domain.BulkJob, attendees []uuid.UUID) bool {
	err := recovery.Run(ctx, s.logger, "bulk job panicked while issuing a batch (its attendees go one by one)", func() error {
		_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
			// Every attendee of the batch is locked before the first issuance takes the
			// account's hot rows: issuing one by one, the batch would hold those rows while
			// waiting for an attendee a single issuance holds, which waits for the rows.
			if err := tx.LockAttendees(ctx, j.AccountID, attendees); err != nil {
				return struct{}{}, err
			}
			ps := make([]certificates.GenerateParams, len(attendees))
			for i, a := range attendees {
				ps[i] = issueFor(j, a)
			}
			// Their reads in one round trip, their writes in one plan applied in one round trip.
			certs, err := s.certs.IssueAll(ctx, tx, ps)
			if err != nil {
				return struct{}{}, err // rolls the batch back: its attendees go one by one
			}
			issued := make([]store.IssuedItem, len(attendees))
			for i, a := range attendees {
				issued[i] = store.IssuedItem{AttendeeID: a, CertificateID: certs[i].ID}
			}
			// The batch's records in one statement, in the transaction of its issuances.
			return struct{}{}, tx.RecordIssuedJobItems(ctx, j.ID, issued, s.certs.Now())
		})
		return err
	}, "job_id", j.ID)
	return err == nil
}

// issueFor is what the job asks of one attendee's issuance.
func issueFor(j domain.BulkJob, attendee uuid.UUID) certificates.GenerateParams {
	return certificates.GenerateParams{AccountID: j.AccountID, EventID: j.EventID, AttendeeID: attendee,
		TemplateID: j.TemplateID, SendEmail: j.SendEmail, Draft: j.Draft}
}

// process issues for one attendee of a job and records the outcome on its item: an issuance
// and its record commit together, in one transaction, so a job that stops between two
// attendees (or dies) never issues, charges or emails anyone twice. Skips and failures are
// recorded after (they changed nothing). A panic while issuing (its transaction rolled back)
// fails the item for good: the same attendee would panic again on every retry.
func (s *Service) process(ctx context.Context, j domain.BulkJob, attendee uuid.UUID) error {
	p := issueFor(j, attendee)
	err := recovery.Run(ctx, s.logger, "bulk job panicked while issuing", func() error {
		_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
			c, err := s.certs.Issue(ctx, tx, p)
			if err != nil {
				return struct{}{}, err
			}
			return struct{}{}, tx.RecordJobItem(ctx, store.JobItemOutcome{JobID: j.ID, AttendeeID: attendee,
				Outcome: store.ItemIssued, CertificateID: &c.ID}, s.certs.Now())
		})
		return err
	}, "job_id", j.ID, "attendee_id", attendee)
	if err == nil {
		return nil
	}
	now := s.certs.Now()
	if recovery.Is(err) {
		return s.store.RecordJobItem(ctx, store.JobItemOutcome{JobID: j.ID, AttendeeID: attendee, Outcome: store.ItemFailed,
			Code: string(apperr.Internal), Message: "An internal error stopped the issuance for this attendee; it is not retried (the service log has the details)."}, now)
	}
	e, ok := apperr.As(err)
	if !ok || e.Code == apperr.Internal || errors.Is(err, context.Canceled) {
		return err
	}
	o := store.JobItemOutcome{JobID: j.ID, AttendeeID: attendee, Outcome: store.ItemFailed, Code: string(e.Code), Message: e.Message}
	if e.Code == apperr.AlreadyIssued {
		id := uuid.MustParse(e.Existing.ID)
		o = store.JobItemOutcome{JobID: j.ID, AttendeeID: attendee, Outcome: store.ItemSkipped, CertificateID: &id}
	}
	return s.store.RecordJobItem(ctx, o, now)
}
