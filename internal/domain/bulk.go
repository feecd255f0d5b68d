package domain

import (
	"time"

	"github.com/google/uuid"
)

// BulkJob is a background issuance for an event, with its progress.
type BulkJob struct {
	ID, AccountID, EventID, TemplateID uuid.UUID
	Status                             BulkJobStatus
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

// BulkJobStatus is where a bulk job is.
type BulkJobStatus string

// A job is queued, then running, then completed or failed.
const (
	BulkJobQueued    BulkJobStatus = "queued"
	BulkJobRunning   BulkJobStatus = "running"
	BulkJobCompleted BulkJobStatus = "completed"
	BulkJobFailed    BulkJobStatus = "failed"
)
