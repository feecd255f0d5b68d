package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Certificate is a certificate as stored; Status is what clients see at the time it was read:
// draft, valid, expired or revoked.
type Certificate struct {
	ID                   uuid.UUID
	AccountID            uuid.UUID
	EventID              uuid.UUID
	AttendeeID           uuid.UUID
	TemplateID           uuid.UUID
	Number               string
	VerificationCode     string
	Status               string // draft, valid, expired, revoked
	FirstName, LastName  string
	Email                string
	Snapshot             json.RawMessage
	IssuedAt             *time.Time
	ExpiresAt            *time.Time
	RevokedAt            *time.Time
	RevocationReason     *string
	RevocationReasonCode *string
	CreatedAt, UpdatedAt time.Time
}

// Recipient is whom a certificate is made out to, copied from the attendee when issued.
type Recipient struct {
	FirstName, LastName, Email string
}
