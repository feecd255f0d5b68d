package domain

import (
	"time"

	"github.com/google/uuid"
)

// Attendee is a person attending an event.
type Attendee struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	EventID   uuid.UUID
	FirstName string
	LastName  string
	Email     string
	Metadata  map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
	// ErasedAt is when the person was erased at their request (their data replaced; nothing is
	// issued to them or changed of them after it), or nil.
	ErasedAt *time.Time
}

// AttendeeFields are what creating an attendee sets.
type AttendeeFields struct {
	FirstName, LastName, Email string
	Metadata                   map[string]string
}

// AttendeeChanges are the fields an update changes; nil leaves a field as it is.
type AttendeeChanges struct {
	FirstName, LastName, Email *string
	Metadata                   map[string]string // nil: unchanged; otherwise replaces the map
}

// AttendeeFilter narrows a list of attendees: to one event, to one email address (compared
// trimmed and lower-cased); nil fields do not narrow.
type AttendeeFilter struct {
	EventID *uuid.UUID
	Email   *string
}
