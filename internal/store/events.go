package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// Page selects a page of a list: Number from 1, Size items.
type Page struct{ Number, Size int }

func (p Page) limit() int32  { return int32(p.Size) }
func (p Page) offset() int32 { return int32((p.Number - 1) * p.Size) }

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
	Registration            Registration
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// EventFields are what creating or replacing an event sets.
type EventFields struct {
	Name                    string
	Description             *string
	EventDate               time.Time
	Location                *string
	TemplateID              uuid.UUID
	CertificateValidityDays *int
}

func (s *Store) templateUsable(ctx context.Context, q *db.Queries, accountID, templateID uuid.UUID, field string) error {
	ok, err := q.TemplateUsable(ctx, db.TemplateUsableParams{AccountID: accountID, ID: templateID})
	if err != nil {
		return mapError(err)
	}
	if !ok {
		return notFoundAt(pgx.ErrNoRows, "template", field, noSuchTemplate)
	}
	return nil
}

// CreateEvent creates an event whose template the account may use.
func (s *Store) CreateEvent(ctx context.Context, accountID uuid.UUID, f EventFields) (Event, error) {
	var row db.Event
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if err := s.templateUsable(ctx, q, accountID, f.TemplateID, "body.templateId"); err != nil {
			return err
		}
		var err error
		row, err = q.CreateEvent(ctx, db.CreateEventParams{ID: newID(), AccountID: accountID, Name: f.Name,
			Description: f.Description, EventDate: f.EventDate, Location: f.Location, TemplateID: f.TemplateID,
			CertificateValidityDays: int32Ptr(f.CertificateValidityDays)})
		return err
	})
	return eventFrom(row), err
}

// FindEvent returns an event of the account.
func (s *Store) FindEvent(ctx context.Context, accountID, id uuid.UUID) (Event, error) {
	row, err := s.q.GetEvent(ctx, db.GetEventParams{AccountID: accountID, ID: id})
	if err != nil {
		return Event{}, notFoundAs(err, "event")
	}
	return eventFrom(row), nil
}

// ListEvents returns a page of the account's events, newest first, and how many there are.
func (s *Store) ListEvents(ctx context.Context, accountID uuid.UUID, p Page) ([]Event, int, error) {
	rows, err := s.q.ListEvents(ctx, db.ListEventsParams{AccountID: accountID, PageSize: p.limit(), PageOffset: p.offset()})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := s.q.CountEvents(ctx, accountID)
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, eventFrom), int(total), nil
}

// UpdateEvent replaces an event's fields.
func (s *Store) UpdateEvent(ctx context.Context, accountID, id uuid.UUID, f EventFields) (Event, error) {
	var row db.Event
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if _, err := q.LockEvent(ctx, db.LockEventParams{AccountID: accountID, ID: id}); err != nil {
			return notFoundAs(err, "event")
		}
		if err := s.templateUsable(ctx, q, accountID, f.TemplateID, "body.templateId"); err != nil {
			return err
		}
		var err error
		row, err = q.UpdateEvent(ctx, db.UpdateEventParams{AccountID: accountID, ID: id, Name: f.Name,
			Description: f.Description, EventDate: f.EventDate, Location: f.Location, TemplateID: f.TemplateID,
			CertificateValidityDays: int32Ptr(f.CertificateValidityDays)})
		return err
	})
	return eventFrom(row), err
}

// UpdateRegistration replaces an event's registration settings.
func (s *Store) UpdateRegistration(ctx context.Context, accountID, id uuid.UUID, r Registration) (Event, error) {
	row, err := s.q.UpdateEventRegistration(ctx, db.UpdateEventRegistrationParams{AccountID: accountID, ID: id,
		Enabled: r.Enabled, OpensAt: r.OpensAt, ClosesAt: r.ClosesAt, Capacity: int32Ptr(r.Capacity), Message: r.Message})
	if err != nil {
		return Event{}, notFoundAs(err, "event")
	}
	return eventFrom(row), nil
}

// DeleteEvent removes an event with its attendees and draft certificates. An event with any
// issued certificate (valid, expired or revoked) is kept: 409, and nothing is removed.
func (s *Store) DeleteEvent(ctx context.Context, accountID, id uuid.UUID) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		if _, err := q.LockEvent(ctx, db.LockEventParams{AccountID: accountID, ID: id}); err != nil {
			return notFoundAs(err, "event")
		}
		n, err := q.CountIssuedCertificatesOfEvent(ctx, db.CountIssuedCertificatesOfEventParams{AccountID: accountID, EventID: id})
		if err != nil {
			return err
		}
		if n > 0 {
			return apperr.New(apperr.Conflict, "The event has %d issued certificates; issued certificates are never erased, so the event stays.", n)
		}
		if err := q.DeleteDraftCertificatesOfEvent(ctx, db.DeleteDraftCertificatesOfEventParams{AccountID: accountID, EventID: id}); err != nil {
			return err
		}
		return q.DeleteEvent(ctx, db.DeleteEventParams{AccountID: accountID, ID: id})
	})
}

func eventFrom(r db.Event) Event {
	return Event{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description, EventDate: r.EventDate,
		Location: r.Location, TemplateID: r.TemplateID, CertificateValidityDays: intPtr(r.CertificateValidityDays),
		Registration: Registration{Enabled: r.RegistrationEnabled, OpensAt: r.RegistrationOpensAt,
			ClosesAt: r.RegistrationClosesAt, Capacity: intPtr(r.RegistrationCapacity), Message: r.RegistrationMessage},
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// notFoundAt is notFoundAs with a detail naming the input that pointed at the missing row.
func notFoundAt(err error, what, field, message string) error {
	e := notFoundAs(err, what)
	if ae, ok := apperr.As(e); ok && ae.Code == apperr.NotFound {
		ae.Details = []apperr.Detail{{Field: field, Message: message}}
	}
	return e
}

const (
	noSuchEvent    = "names no event of this account"
	noSuchTemplate = "names no template of this account and no system template"
)

// RequireEvent answers NOT_FOUND, naming field, unless the account has the event.
func (s *Store) RequireEvent(ctx context.Context, accountID, eventID uuid.UUID, field string) error {
	_, err := s.q.GetEvent(ctx, db.GetEventParams{AccountID: accountID, ID: eventID})
	return notFoundAt(err, "event", field, noSuchEvent)
}

// RequireTemplate answers NOT_FOUND, naming field, unless the account may use the template
// (one of its own, or a system template).
func (s *Store) RequireTemplate(ctx context.Context, accountID, templateID uuid.UUID, field string) error {
	return s.templateUsable(ctx, s.q, accountID, templateID, field)
}

// notFoundAs maps a missing row to NOT_FOUND naming what was looked for.
func notFoundAs(err error, what string) error {
	if apperr.CodeOf(mapError(err)) == apperr.NotFound {
		e := notFound(what)
		e.Cause = err
		return e
	}
	return mapError(err)
}

func int32Ptr(v *int) *int32 {
	if v == nil {
		return nil
	}
	n := int32(*v)
	return &n
}

func intPtr(v *int32) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}
