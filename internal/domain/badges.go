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
	Status            BadgeStatus
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
	Revoked          bool   // revoked itself (StatusAt says what clients see)
	IssuedAt         time.Time
	ExpiresAt        *time.Time
	RevokedAt        *time.Time
	RevocationReason *string
	// RevocationReasonCode is the certificates' set of codes; nil while not revoked.
	RevocationReasonCode *string
	// Locale is the language of its attendee's event when it was issued: its email, its
	// page's fallback and its credential's generated sentences speak it.
	Locale    string
	CreatedAt time.Time
}

// BadgeStatus is whether a badge is still issued.
type BadgeStatus string

// A badge is active until it is retired; a retired badge's assertions read as revoked.
const (
	BadgeActive  BadgeStatus = "active"
	BadgeRetired BadgeStatus = "retired"
)

// AssertionStatus is a badge assertion's status as clients see it.
type AssertionStatus string

// The statuses of an assertion clients see.
const (
	AssertionActive  AssertionStatus = "active"
	AssertionExpired AssertionStatus = "expired"
	AssertionRevoked AssertionStatus = "revoked"
)

// StatusAt is what assertion a of badge b reads as at now: revoked when it was revoked or its
// badge retired, expired once its expiry has passed, active otherwise.
func (a BadgeAssertion) StatusAt(b Badge, now time.Time) AssertionStatus {
	switch {
	case a.Revoked || b.Status == BadgeRetired:
		return AssertionRevoked
	case a.ExpiresAt != nil && !now.Before(*a.ExpiresAt):
		return AssertionExpired
	}
	return AssertionActive
}
