// Package attendees holds the rules of attendees: adding them one by one or from a CSV file,
// changing, removing and exporting them.
package attendees

import (
	"context"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/store"
)

// Limits of one attendee, the same as the contract's.
const (
	maxNameLen      = 100
	maxEmailLen     = 254
	maxMetadataKeys = 20
	maxMetaKeyLen   = 64
	maxMetaValueLen = 500
)

// Service applies the attendee rules.
type Service struct{ store *store.Store }

// New returns the service.
func New(s *store.Store) *Service { return &Service{store: s} }

// Create validates f and adds an attendee to an event of the account.
func (s *Service) Create(ctx context.Context, accountID, eventID uuid.UUID, f store.AttendeeFields) (store.Attendee, error) {
	var details []apperr.Detail
	f.FirstName = checkName(f.FirstName, "body.firstName", &details)
	f.LastName = checkName(f.LastName, "body.lastName", &details)
	f.Email = checkEmail(f.Email, "body.email", &details)
	f.Metadata = checkMetadata(f.Metadata, "body.metadata", &details)
	if len(details) > 0 {
		return store.Attendee{}, invalid(details)
	}
	return s.store.CreateAttendee(ctx, accountID, eventID, f)
}

// Get returns an attendee of the account.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (store.Attendee, error) {
	return s.store.FindAttendee(ctx, accountID, id)
}

// List returns a page of the account's attendees (of one event when eventID is set) and their
// total. A filter naming no event of the account lists nothing.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, eventID *uuid.UUID, p store.Page) ([]store.Attendee, int, error) {
	return s.store.ListAttendees(ctx, accountID, eventID, p)
}

// ListOfEvent is List for one event that must exist: another account's event is 404.
func (s *Service) ListOfEvent(ctx context.Context, accountID, eventID uuid.UUID, p store.Page) ([]store.Attendee, int, error) {
	if err := s.store.RequireEvent(ctx, accountID, eventID, "path.id"); err != nil {
		return nil, 0, err
	}
	return s.store.ListAttendees(ctx, accountID, &eventID, p)
}

// Count counts the account's attendees, of one event when eventID is set.
func (s *Service) Count(ctx context.Context, accountID uuid.UUID, eventID *uuid.UUID) (int, error) {
	return s.store.CountAttendees(ctx, accountID, eventID)
}

// Update validates and applies the changes c sets.
func (s *Service) Update(ctx context.Context, accountID, id uuid.UUID, c store.AttendeeChanges) (store.Attendee, error) {
	var details []apperr.Detail
	if c.FirstName != nil {
		v := checkName(*c.FirstName, "body.firstName", &details)
		c.FirstName = &v
	}
	if c.LastName != nil {
		v := checkName(*c.LastName, "body.lastName", &details)
		c.LastName = &v
	}
	if c.Email != nil {
		v := checkEmail(*c.Email, "body.email", &details)
		c.Email = &v
	}
	if c.Metadata != nil {
		c.Metadata = checkMetadata(c.Metadata, "body.metadata", &details)
	}
	if len(details) > 0 {
		return store.Attendee{}, invalid(details)
	}
	return s.store.UpdateAttendee(ctx, accountID, id, c)
}

// Delete removes an attendee who holds no issued certificate and no badge.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	return s.store.DeleteAttendee(ctx, accountID, id)
}

func invalid(details []apperr.Detail) error {
	return &apperr.Error{Code: apperr.ValidationError, Message: "The attendee is not valid.", Details: details}
}

func checkName(v, field string, details *[]apperr.Detail) string {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		*details = append(*details, apperr.Detail{Field: field, Message: "must not be blank"})
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		*details = append(*details, apperr.Detail{Field: field, Message: "must not contain control characters"})
	}
	return v
}

func checkEmail(v, field string, details *[]apperr.Detail) string {
	v = strings.TrimSpace(v)
	if !spec.IsEmail(v) {
		*details = append(*details, apperr.Detail{Field: field, Message: "is not a valid email address"})
	}
	return v
}

func checkMetadata(m map[string]string, field string, details *[]apperr.Detail) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		key := strings.TrimSpace(k)
		if key == "" || strings.IndexFunc(key, unicode.IsControl) >= 0 {
			*details = append(*details, apperr.Detail{Field: field, Message: "keys must be printable and not blank"})
			continue
		}
		out[key] = v
	}
	return out
}
