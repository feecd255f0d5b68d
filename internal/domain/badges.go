package domain

import (
	"time"

	"github.com/google/uuid"
)

// Badge is a badge as stored, with how many assertions were issued from it.
type Badge struct {
	ID                uuid.UUID
	AccountID         uuid.UUID
	Name              string
	Description       *string
	CriteriaNarrative *string
	CriteriaURL       *string
	Image             *string // the issuer's own image as a data URI; nil: none given
	Tags              []string
	ValidityDays      *int
	Status            string // active, retired
	RetiredAt         *time.Time
	IssuedCount       int
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// BadgeFields are what creating or replacing a badge sets.
type BadgeFields struct {
	Name                                               string
	Description, CriteriaNarrative, CriteriaURL, Image *string
	Tags                                               []string
	ValidityDays                                       *int
}

// BadgeAssertion is one badge issued to one attendee, as stored.
type BadgeAssertion struct {
	ID               uuid.UUID
	AccountID        uuid.UUID
	BadgeID          uuid.UUID
	AttendeeID       uuid.UUID
	VerificationCode string
	Recipient        Recipient
	RecipientSalt    string // hashes the email in Open Badges documents
	Revoked          bool   // revoked itself (the badges service says what clients see)
	IssuedAt         time.Time
	ExpiresAt        *time.Time
	RevokedAt        *time.Time
	RevocationReason *string
	// RevocationReasonCode is the certificates' set of codes; nil while not revoked.
	RevocationReasonCode *string
	CreatedAt            time.Time
}
