package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// NewBulkJob is a job to record, with one item per attendee.
type NewBulkJob struct {
	AccountID, EventID, TemplateID uuid.UUID
	SendEmail, Draft               bool
	AttendeeIDs                    []uuid.UUID
}

// The outcomes of one attendee of a job.
const (
	ItemIssued  = "issued"
	ItemSkipped = "skipped"
	ItemFailed  = "failed"
)

// ActiveBulkJob returns the id of the event's queued or running job. ErrNotFound: none.
func (d queries) ActiveBulkJob(ctx context.Context, eventID uuid.UUID) (uuid.UUID, error) {
	id, err := d.q.ActiveBulkJob(ctx, eventID)
	return id, mapError(err)
}

// InsertBulkJob records a job, created at now, and its items, queued. It runs in a
// transaction only: the job is recorded with all its items or not at all.
func (t *Tx) InsertBulkJob(ctx context.Context, in NewBulkJob, now time.Time) (domain.BulkJob, error) {
	row, err := t.q.InsertBulkJob(ctx, db.InsertBulkJobParams{ID: newID(), AccountID: in.AccountID, EventID: in.EventID,
		TemplateID: in.TemplateID, SendEmail: in.SendEmail, Draft: in.Draft, Total: int32(len(in.AttendeeIDs)), Now: now})
	if err != nil {
		return domain.BulkJob{}, mapError(err)
	}
	items := make([]db.InsertBulkJobItemsParams, len(in.AttendeeIDs))
	for i, id := range in.AttendeeIDs {
		items[i] = db.InsertBulkJobItemsParams{JobID: row.ID, AttendeeID: id}
	}
	if _, err := t.q.InsertBulkJobItems(ctx, items); err != nil {
		return domain.BulkJob{}, mapError(err)
	}
	return bulkJobFrom(row), nil
}

// FindBulkJob returns a job of an event of the account.
func (d queries) FindBulkJob(ctx context.Context, accountID, eventID, id uuid.UUID) (domain.BulkJob, error) {
	row, err := d.q.GetBulkJob(ctx, db.GetBulkJobParams{AccountID: accountID, EventID: eventID, ID: id})
	if err != nil {
		return domain.BulkJob{}, mapError(err)
	}
	return bulkJobFrom(row), nil
}

// ListBulkJobs returns a page of an event's jobs, in p's order, and their total.
func (d queries) ListBulkJobs(ctx context.Context, accountID, eventID uuid.UUID, p domain.Page) ([]domain.BulkJob, int, error) {
	q, err := d.list(createdOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.ListBulkJobs(ctx, db.ListBulkJobsParams{AccountID: accountID, EventID: eventID,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := q.CountBulkJobs(ctx, db.CountBulkJobsParams{AccountID: accountID, EventID: eventID})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, bulkJobFrom), int(total), nil
}

// BulkJobByID returns a job, for its worker.
func (d queries) BulkJobByID(ctx context.Context, id uuid.UUID) (domain.BulkJob, error) {
	row, err := d.q.GetBulkJobByID(ctx, id)
	if err != nil {
		return domain.BulkJob{}, mapError(err)
	}
	return bulkJobFrom(row), nil
}

// StartBulkJob marks a job running at now (keeping its first start time).
func (d queries) StartBulkJob(ctx context.Context, id uuid.UUID, now time.Time) error {
	return mapError(d.q.StartBulkJob(ctx, db.StartBulkJobParams{ID: id, Now: now}))
}

// PendingBulkJobItems returns up to n attendees of a job still to process.
func (d queries) PendingBulkJobItems(ctx context.Context, jobID uuid.UUID, n int) ([]uuid.UUID, error) {
	ids, err := d.q.PendingBulkJobItems(ctx, db.PendingBulkJobItemsParams{JobID: jobID, BatchSize: int32(n)})
	return ids, mapError(err)
}

// JobItemOutcome is what became of one attendee of a job.
type JobItemOutcome struct {
	JobID, AttendeeID uuid.UUID
	Outcome           string // ItemIssued, ItemSkipped, ItemFailed
	CertificateID     *uuid.UUID
	Code, Message     string
}

// RecordJobItem records an item's outcome at now, once, and counts it on its job (in one
// statement). Inside the issuing transaction, an issuance and its record commit together.
func (d queries) RecordJobItem(ctx context.Context, o JobItemOutcome, now time.Time) error {
	_, err := d.q.RecordBulkJobItem(ctx, db.RecordBulkJobItemParams{JobID: o.JobID, AttendeeID: o.AttendeeID, Outcome: o.Outcome,
		CertificateID: o.CertificateID, ErrorCode: o.Code, ErrorMessage: o.Message, Now: now})
	return mapError(err)
}

// IssuedItem is an attendee of a job and the certificate issued to them.
type IssuedItem struct {
	AttendeeID, CertificateID uuid.UUID
}

// RecordIssuedJobItems records at now that the job issued items, and counts them on the job,
// in one statement (each item once). Inside the issuing transaction, the issuances and their
// records commit together.
func (d queries) RecordIssuedJobItems(ctx context.Context, jobID uuid.UUID, items []IssuedItem, now time.Time) error {
	attendees, certs := make([]uuid.UUID, len(items)), make([]uuid.UUID, len(items))
	for i, it := range items {
		attendees[i], certs[i] = it.AttendeeID, it.CertificateID
	}
	return mapError(d.q.RecordIssuedBulkJobItems(ctx, db.RecordIssuedBulkJobItemsParams{JobID: jobID, AttendeeIds: attendees,
		CertificateIds: certs, Now: now}))
}

// FinishBulkJob records a job's end at now with status (domain.BulkJobCompleted or
// domain.BulkJobFailed). ErrNotFound: the job had ended already.
func (d queries) FinishBulkJob(ctx context.Context, id uuid.UUID, status domain.BulkJobStatus, now time.Time) (domain.BulkJob, error) {
	row, err := d.q.FinishBulkJob(ctx, db.FinishBulkJobParams{ID: id, Status: string(status), Now: now})
	if err != nil {
		return domain.BulkJob{}, mapError(err)
	}
	return bulkJobFrom(row), nil
}

func bulkJobFrom(r db.BulkJob) domain.BulkJob {
	j := domain.BulkJob{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, TemplateID: r.TemplateID, Status: domain.BulkJobStatus(r.Status),
		SendEmail: r.SendEmail, Draft: r.Draft, Total: int(r.Total), Processed: int(r.Processed), Issued: int(r.Issued),
		Skipped: int(r.Skipped), Failed: int(r.Failed), CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	_ = json.Unmarshal(r.Errors, &j.Errors) // written by RecordBulkJobItem
	if j.Errors == nil {
		j.Errors = []domain.BulkJobError{}
	}
	return j
}

// AttendeesWithoutValid lists an event's attendees who hold no valid certificate of the
// template at now, oldest first.
func (d queries) AttendeesWithoutValid(ctx context.Context, accountID, eventID, templateID uuid.UUID, now time.Time) ([]uuid.UUID, error) {
	ids, err := d.q.AttendeesWithoutValidCertificate(ctx, db.AttendeesWithoutValidCertificateParams{AccountID: accountID,
		EventID: eventID, TemplateID: templateID, Now: now})
	return ids, mapError(err)
}

// CountAttendeesToIssue counts, of the attendees named, those of the event who hold no valid
// certificate of the template at now.
func (d queries) CountAttendeesToIssue(ctx context.Context, accountID, eventID, templateID uuid.UUID, ids []uuid.UUID, now time.Time) (int, error) {
	n, err := d.q.CountAttendeesToIssue(ctx, db.CountAttendeesToIssueParams{AccountID: accountID, EventID: eventID, Ids: ids,
		TemplateID: templateID, Now: now})
	return int(n), mapError(err)
}
