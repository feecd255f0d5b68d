package domain

import "time"

// Retention is how long an account keeps what it no longer needs: email bodies, webhook
// payloads and its audit log, in days. A lowering of the audit log's waits 30 days
// (PendingAuditLogDays from PendingFrom).
type Retention struct {
	EmailBodiesDays     int
	WebhookPayloadsDays int
	AuditLogDays        int
	PendingAuditLogDays *int
	PendingFrom         *time.Time
	UpdatedAt           *time.Time // nil: never changed, the defaults
}

// DefaultRetention is an account's retention until it changes it.
var DefaultRetention = Retention{EmailBodiesDays: 90, WebhookPayloadsDays: 30, AuditLogDays: 400}
