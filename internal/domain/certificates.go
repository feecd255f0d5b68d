package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Certificate is a certificate; Status is what clients see at the time it was read
// (CertificateStatusAt).
type Certificate struct {
	ID                   uuid.UUID
	AccountID            uuid.UUID
	EventID              uuid.UUID
	AttendeeID           uuid.UUID
	TemplateID           uuid.UUID
	Number               string
	VerificationCode     string
	Status               CertificateStatus
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

// CertificateStatus is a certificate's status as clients see it.
type CertificateStatus string

// The statuses clients see.
const (
	CertificateDraft   CertificateStatus = "draft"
	CertificateValid   CertificateStatus = "valid"
	CertificateExpired CertificateStatus = "expired"
	CertificateRevoked CertificateStatus = "revoked"
)

// The statuses a certificate is stored with: an issued one reads as valid or expired.
const (
	StoredCertificateDraft   = "draft"
	StoredCertificateIssued  = "issued"
	StoredCertificateExpired = "expired"
	StoredCertificateRevoked = "revoked"
)

// CertificateStatusAt is what a certificate stored with status stored reads as at now: an
// issued certificate whose expiry has passed is expired, whether or not anything wrote so yet
// (the store marks lapsed ones only when it next issues for their attendee); a draft stays a
// draft and a revoked one revoked.
func CertificateStatusAt(stored string, expiresAt *time.Time, now time.Time) CertificateStatus {
	switch {
	case stored == StoredCertificateIssued && expiresAt != nil && !now.Before(*expiresAt):
		return CertificateExpired
	case stored == StoredCertificateIssued:
		return CertificateValid
	}
	return CertificateStatus(stored)
}

// CertificateFilter narrows a list of certificates; every filter set must hold. Status is as
// the API names it, at the time of the list (an issued certificate past its expiry is
// expired); IssuedFrom and IssuedTo are days (their dates alone count, in UTC), both
// inclusive (a draft, never issued, is left out by either).
type CertificateFilter struct {
	EventID, AttendeeID, TemplateID *uuid.UUID
	Status                          *CertificateStatus
	IssuedFrom, IssuedTo            *time.Time
}

// IssuedBounds are the instants the filter's days bound the issue time with: from the start
// of IssuedFrom, before the start of the day after IssuedTo (nil when unset).
func (f CertificateFilter) IssuedBounds() (from, before *time.Time) {
	day := func(d *time.Time, add int) *time.Time {
		if d == nil {
			return nil
		}
		t := time.Date(d.Year(), d.Month(), d.Day()+add, 0, 0, 0, 0, time.UTC)
		return &t
	}
	return day(f.IssuedFrom, 0), day(f.IssuedTo, 1)
}
