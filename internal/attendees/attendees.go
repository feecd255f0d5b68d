// Package attendees holds the rules of attendees: adding them one by one or from a CSV file,
// changing, removing and exporting them.
package attendees

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/events"
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
type Service struct {
	store *store.Store
	now   func() time.Time
}

// New returns the service.
func New(s *store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: s, now: now}
}

// Create validates f and adds an attendee to an event of the account.
func (s *Service) Create(ctx context.Context, accountID, eventID uuid.UUID, f domain.AttendeeFields) (domain.Attendee, error) {
	var details []apperr.Detail
	f.FirstName = checkName(f.FirstName, "firstName", &details)
	f.LastName = checkName(f.LastName, "lastName", &details)
	f.Email = checkEmail(f.Email, "email", &details)
	f.Metadata = checkMetadata(f.Metadata, "metadata", &details)
	if len(details) > 0 {
		return domain.Attendee{}, invalid(details)
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Attendee, error) {
		if err := tx.LockEventForAttendees(ctx, accountID, eventID); err != nil {
			return domain.Attendee{}, apperr.When(err, store.ErrNotFound, events.Missing())
		}
		a, err := tx.CreateAttendee(ctx, accountID, eventID, f, now)
		if err == nil {
			audit.Describe(ctx, "attendee", a.ID.String(), "")
		}
		return a, err
	})
}

// Get returns an attendee of the account.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (domain.Attendee, error) {
	a, err := s.store.FindAttendee(ctx, accountID, id)
	return a, noSuchAttendee(err)
}

func noSuchAttendee(err error) error {
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("attendee"))
}

// List returns a page of the account's attendees that f lets through (one event, one email)
// and their total. A filter naming no event of the account lists nothing.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, f domain.AttendeeFilter, p domain.Page) ([]domain.Attendee, int, error) {
	return s.store.ListAttendees(ctx, accountID, f, p)
}

// ListOfEvent is List for one event that must exist: another account's event is 404.
func (s *Service) ListOfEvent(ctx context.Context, accountID, eventID uuid.UUID, p domain.Page) ([]domain.Attendee, int, error) {
	if err := events.Require(ctx, s.store, accountID, eventID); err != nil {
		return nil, 0, err
	}
	return s.store.ListAttendees(ctx, accountID, domain.AttendeeFilter{EventID: &eventID}, p)
}

// Count counts the account's attendees, of one event when eventID is set.
func (s *Service) Count(ctx context.Context, accountID uuid.UUID, eventID *uuid.UUID) (int, error) {
	return s.store.CountAttendees(ctx, accountID, domain.AttendeeFilter{EventID: eventID})
}

// Update validates and applies the changes c sets.
func (s *Service) Update(ctx context.Context, accountID, id uuid.UUID, c domain.AttendeeChanges) (domain.Attendee, error) {
	var details []apperr.Detail
	if c.FirstName != nil {
		v := checkName(*c.FirstName, "firstName", &details)
		c.FirstName = &v
	}
	if c.LastName != nil {
		v := checkName(*c.LastName, "lastName", &details)
		c.LastName = &v
	}
	if c.Email != nil {
		v := checkEmail(*c.Email, "email", &details)
		c.Email = &v
	}
	if c.Metadata != nil {
		c.Metadata = checkMetadata(c.Metadata, "metadata", &details)
	}
	if len(details) > 0 {
		return domain.Attendee{}, invalid(details)
	}
	a, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Attendee, error) {
		locked, err := tx.LockAttendee(ctx, accountID, id)
		if err != nil {
			return domain.Attendee{}, err
		}
		if locked.Erased {
			return domain.Attendee{}, Erased()
		}
		return tx.UpdateAttendee(ctx, accountID, id, c, s.now())
	})
	return a, noSuchAttendee(err)
}

// Erased refuses to change, or issue to, a person erased at their request (a new error each
// time: callers add details to it).
func Erased() *apperr.Error {
	return apperr.New(apperr.Conflict, "The attendee was erased at their request: nothing more is issued to them or changed of them. Add them again if they return.")
}

// Delete removes an attendee and their draft certificates. One who holds an issued
// certificate or a badge stays: 409, and nothing is removed; but for a person erased at their
// request, whose credentials stay, revoked, when they go. The attendee is locked, so that
// nothing is issued to them meanwhile.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		locked, err := tx.LockAttendee(ctx, accountID, id)
		if err != nil {
			return struct{}{}, noSuchAttendee(err)
		}
		if locked.Erased {
			if err := tx.ReleaseErasedAttendee(ctx, accountID, id); err != nil {
				return struct{}{}, err
			}
			return struct{}{}, tx.DeleteAttendee(ctx, accountID, id)
		}
		held, err := tx.AttendeeHoldings(ctx, accountID, id)
		if err != nil {
			return struct{}{}, err
		}
		if held.Certificates > 0 {
			return struct{}{}, apperr.New(apperr.AttendeeHasCerts, "The attendee holds %s; issued certificates are never erased, so the attendee stays.",
				apperr.Count(held.Certificates, "issued certificate", "issued certificates"))
		}
		if held.Badges > 0 {
			return struct{}{}, apperr.New(apperr.AttendeeHasBadges, "The attendee was issued %s; issued badges are never erased, so the attendee stays.",
				apperr.Count(held.Badges, "badge", "badges"))
		}
		return struct{}{}, tx.DeleteAttendee(ctx, accountID, id)
	})
	return err
}

// importRows adds rows to an event in one transaction, and answers how many it added: with
// once, those whose email is neither on the event nor on an earlier row. The event is locked
// first, so that concurrent imports into one event see each other's rows.
func (s *Service) importRows(ctx context.Context, accountID, eventID uuid.UUID, rows []domain.AttendeeFields, once bool) (int, error) {
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (int, error) {
		if err := tx.LockEventForAttendees(ctx, accountID, eventID); err != nil {
			return 0, apperr.When(err, store.ErrNotFound, events.Missing())
		}
		if len(rows) == 0 {
			return 0, nil
		}
		return tx.ImportAttendees(ctx, accountID, eventID, rows, once, now)
	})
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
