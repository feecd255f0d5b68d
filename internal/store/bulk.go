package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// BulkJob is a background issuance for an event, with its progress.
type BulkJob struct {
	ID, AccountID, EventID, TemplateID uuid.UUID
	Status                             string
	SendEmail, Draft                   bool
	Total, Processed                   int
	Issued, Skipped, Failed            int
	Errors                             []BulkJobError
	CreatedAt                          time.Time
	StartedAt, FinishedAt              *time.Time
}

// BulkJobError is one attendee's failure in a job.
type BulkJobError struct {
	AttendeeID uuid.UUID `json:"attendeeId"`
	Code       string    `json:"code"`
	Message    string    `json:"message"`
}

// NewBulkJob is a job to record.
type NewBulkJob struct {
	AccountID, EventID, TemplateID uuid.UUID
	SendEmail, Draft               bool
	AttendeeIDs                    []uuid.UUID // nil: every attendee without a valid certificate
	Now                            time.Time
	// Check, when set, may refuse the job in its transaction, once its attendees are known and
	// before anything is written.
	Check func(ctx context.Context, tx *Tx, attendeeIDs []uuid.UUID) error
}

// Pool is the connection pool, for the job queue that shares the database.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// CreateBulkJob records a job with one item per attendee and, through enqueue, its job-queue
// entry, in one transaction. A second job for an event while one is queued or running answers
// 409 with the Location of that one.
func (s *Store) CreateBulkJob(ctx context.Context, in NewBulkJob, enqueue func(ctx context.Context, tx pgx.Tx, jobID uuid.UUID) error) (BulkJob, error) {
	var out BulkJob
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if _, err := q.LockEvent(ctx, db.LockEventParams{AccountID: in.AccountID, ID: in.EventID}); err != nil {
			return notFoundAs(err, "event")
		}
		if active, err := q.ActiveBulkJob(ctx, in.EventID); err == nil {
			e := apperr.New(apperr.Conflict, "A job for this event is already queued or running; follow it at Location.")
			e.Location = "/api/v1/events/" + in.EventID.String() + "/certificates/generate/jobs/" + active.String()
			return e
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		ids := in.AttendeeIDs
		if ids == nil {
			var err error
			if ids, err = q.AttendeesWithoutValidCertificate(ctx, db.AttendeesWithoutValidCertificateParams{AccountID: in.AccountID,
				EventID: in.EventID, TemplateID: in.TemplateID, Now: in.Now}); err != nil {
				return err
			}
		}
		if in.Check != nil {
			if err := in.Check(ctx, &Tx{q: q}, ids); err != nil {
				return err
			}
		}
		row, err := q.InsertBulkJob(ctx, db.InsertBulkJobParams{ID: newID(), AccountID: in.AccountID, EventID: in.EventID,
			TemplateID: in.TemplateID, SendEmail: in.SendEmail, Draft: in.Draft, Total: int32(len(ids))})
		if err != nil {
			return err
		}
		items := make([]db.InsertBulkJobItemsParams, len(ids))
		for i, id := range ids {
			items[i] = db.InsertBulkJobItemsParams{JobID: row.ID, AttendeeID: id}
		}
		if _, err := q.InsertBulkJobItems(ctx, items); err != nil {
			return err
		}
		if err := enqueue(ctx, tx, row.ID); err != nil {
			return err
		}
		out = bulkJobFrom(row)
		return nil
	})
	return out, mapError(err)
}

// FindBulkJob returns a job of an event of the account.
func (s *Store) FindBulkJob(ctx context.Context, accountID, eventID, id uuid.UUID) (BulkJob, error) {
	row, err := s.q.GetBulkJob(ctx, db.GetBulkJobParams{AccountID: accountID, EventID: eventID, ID: id})
	if err != nil {
		return BulkJob{}, notFoundAs(err, "job")
	}
	return bulkJobFrom(row), nil
}

// BulkJobByID returns a job, for its worker.
func (s *Store) BulkJobByID(ctx context.Context, id uuid.UUID) (BulkJob, error) {
	row, err := s.q.GetBulkJobByID(ctx, id)
	if err != nil {
		return BulkJob{}, notFoundAs(err, "job")
	}
	return bulkJobFrom(row), nil
}

// StartBulkJob marks a job running (keeping its first start time).
func (s *Store) StartBulkJob(ctx context.Context, id uuid.UUID) error {
	return mapError(s.q.StartBulkJob(ctx, id))
}

// PendingBulkJobItems returns up to n attendees of a job still to process.
func (s *Store) PendingBulkJobItems(ctx context.Context, jobID uuid.UUID, n int) ([]uuid.UUID, error) {
	ids, err := s.q.PendingBulkJobItems(ctx, db.PendingBulkJobItemsParams{JobID: jobID, BatchSize: int32(n)})
	return ids, mapError(err)
}

// JobItemOutcome is what became of one attendee of a job.
type JobItemOutcome struct {
	JobID, AttendeeID uuid.UUID
	Outcome           string // issued, skipped, failed
	CertificateID     *uuid.UUID
	Code, Message     string
}

// RecordJobItem records an item's outcome once and counts it on its job; inside tx when
// given, so that an issuance and its record commit together.
func (s *Store) RecordJobItem(ctx context.Context, tx *Tx, o JobItemOutcome) error {
	q := s.q
	if tx != nil {
		q = tx.q
	}
	_, err := q.RecordBulkJobItem(ctx, db.RecordBulkJobItemParams{JobID: o.JobID, AttendeeID: o.AttendeeID, Outcome: o.Outcome,
		CertificateID: o.CertificateID, ErrorCode: o.Code, ErrorMessage: o.Message})
	return mapError(err)
}

// FinishBulkJob records a job's end.
func (s *Store) FinishBulkJob(ctx context.Context, id uuid.UUID, status string) error {
	return mapError(s.q.FinishBulkJob(ctx, db.FinishBulkJobParams{ID: id, Status: status}))
}

func bulkJobFrom(r db.BulkJob) BulkJob {
	j := BulkJob{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, TemplateID: r.TemplateID, Status: r.Status,
		SendEmail: r.SendEmail, Draft: r.Draft, Total: int(r.Total), Processed: int(r.Processed), Issued: int(r.Issued),
		Skipped: int(r.Skipped), Failed: int(r.Failed), CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	_ = json.Unmarshal(r.Errors, &j.Errors) // written by RecordBulkJobItem
	if j.Errors == nil {
		j.Errors = []BulkJobError{}
	}
	return j
}

// AttendeesWithoutValid lists an event's attendees who hold no valid certificate of the template.
func (s *Store) AttendeesWithoutValid(ctx context.Context, accountID, eventID, templateID uuid.UUID, now time.Time) ([]uuid.UUID, error) {
	ids, err := s.q.AttendeesWithoutValidCertificate(ctx, db.AttendeesWithoutValidCertificateParams{AccountID: accountID,
		EventID: eventID, TemplateID: templateID, Now: now})
	return ids, mapError(err)
}

// Credits returns the account's credit figures for the month of now, read in the transaction.
func (t *Tx) Credits(ctx context.Context, accountID uuid.UUID, now time.Time) (Credits, error) {
	return creditsOf(ctx, t.q, accountID, now)
}

// CountAttendeesToIssue counts, of the attendees named, those of the event who hold no valid
// certificate of the template at now.
func (t *Tx) CountAttendeesToIssue(ctx context.Context, accountID, eventID, templateID uuid.UUID, ids []uuid.UUID, now time.Time) (int, error) {
	n, err := t.q.CountAttendeesToIssue(ctx, db.CountAttendeesToIssueParams{AccountID: accountID, EventID: eventID, Ids: ids,
		TemplateID: templateID, Now: now})
	return int(n), mapError(err)
}
