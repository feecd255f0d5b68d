package domain

import (
	"time"

	"github.com/google/uuid"
)

// Page selects a page of a list: Number from 1, Size items, in the order Sort names (a field
// of the list, "-" before it for descending; empty: the list's default), of the items that
// match the search Q when it is set (what a search matches is the list's to say).
type Page struct {
	Number, Size int
	Sort         string
	Q            *string
}

// Registration is an event's registration settings.
type Registration struct {
	Enabled  bool
	OpensAt  *time.Time
	ClosesAt *time.Time
	Capacity *int
	Message  *string
}

// Event is an event of an account.
type Event struct {
	ID                      uuid.UUID
	AccountID               uuid.UUID
	Name                    string
	Description             *string
	EventDate               time.Time
	Location                *string
	TemplateID              uuid.UUID
	CertificateValidityDays *int
	// Locale is the language of the event's certificates, emails and generated credential
	// texts (internal/locale's Codes).
	Locale       string
	Registration Registration
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// EventFields are what creating or replacing an event sets.
type EventFields struct {
	Name                    string
	Description             *string
	EventDate               time.Time
	Location                *string
	TemplateID              uuid.UUID
	CertificateValidityDays *int
	// Locale is the event's language; "" takes the branding's default, else English.
	Locale string
}
