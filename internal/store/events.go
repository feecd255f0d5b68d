package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
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

// TemplateUsable reports whether an event of the account may use a template: one of the
// account's own, or a system template.
func (d queries) TemplateUsable(ctx context.Context, accountID, templateID uuid.UUID) (bool, error) {
	ok, err := d.q.TemplateUsable(ctx, db.TemplateUsableParams{AccountID: accountID, ID: templateID})
	return ok, mapError(err)
}

// CreateEvent creates an event of the account, created at now.
func (d queries) CreateEvent(ctx context.Context, accountID uuid.UUID, f EventFields, now time.Time) (Event, error) {
	row, err := d.q.CreateEvent(ctx, db.CreateEventParams{ID: newID(), AccountID: accountID, Name: f.Name,
		Description: f.Description, EventDate: f.EventDate, Location: f.Location, TemplateID: f.TemplateID,
		CertificateValidityDays: int32Ptr(f.CertificateValidityDays), Now: now})
	if err != nil {
		return Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// FindEvent returns an event of the account.
func (d queries) FindEvent(ctx context.Context, accountID, id uuid.UUID) (Event, error) {
	row, err := d.q.GetEvent(ctx, db.GetEventParams{AccountID: accountID, ID: id})
	if err != nil {
		return Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// ListEvents returns a page of the account's events, newest first, and how many there are.
func (d queries) ListEvents(ctx context.Context, accountID uuid.UUID, p Page) ([]Event, int, error) {
	rows, err := d.q.ListEvents(ctx, db.ListEventsParams{AccountID: accountID, PageSize: p.limit(), PageOffset: p.offset()})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := d.q.CountEvents(ctx, accountID)
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, eventFrom), int(total), nil
}

// UpdateEvent replaces an event's fields, at now.
func (d queries) UpdateEvent(ctx context.Context, accountID, id uuid.UUID, f EventFields, now time.Time) (Event, error) {
	row, err := d.q.UpdateEvent(ctx, db.UpdateEventParams{AccountID: accountID, ID: id, Name: f.Name,
		Description: f.Description, EventDate: f.EventDate, Location: f.Location, TemplateID: f.TemplateID,
		CertificateValidityDays: int32Ptr(f.CertificateValidityDays), Now: now})
	if err != nil {
		return Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// UpdateRegistration replaces an event's registration settings, at now.
func (d queries) UpdateRegistration(ctx context.Context, accountID, id uuid.UUID, r Registration, now time.Time) (Event, error) {
	row, err := d.q.UpdateEventRegistration(ctx, db.UpdateEventRegistrationParams{AccountID: accountID, ID: id,
		Enabled: r.Enabled, OpensAt: r.OpensAt, ClosesAt: r.ClosesAt, Capacity: int32Ptr(r.Capacity), Message: r.Message, Now: now})
	if err != nil {
		return Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// LockEvent holds an event of the account until the transaction ends: nothing is issued for it,
// and no job created, meanwhile.
func (d queries) LockEvent(ctx context.Context, accountID, id uuid.UUID) error {
	_, err := d.q.LockEvent(ctx, db.LockEventParams{AccountID: accountID, ID: id})
	return mapError(err)
}

// CountIssuedCertificatesOfEvent counts an event's certificates other than drafts.
func (d queries) CountIssuedCertificatesOfEvent(ctx context.Context, accountID, eventID uuid.UUID) (int, error) {
	n, err := d.q.CountIssuedCertificatesOfEvent(ctx, db.CountIssuedCertificatesOfEventParams{AccountID: accountID, EventID: eventID})
	return int(n), mapError(err)
}

// DeleteEvent removes an event with its draft certificates (its attendees go with it). Run it
// in a transaction.
func (t *Tx) DeleteEvent(ctx context.Context, accountID, id uuid.UUID) error {
	if err := t.q.DeleteDraftCertificatesOfEvent(ctx, db.DeleteDraftCertificatesOfEventParams{AccountID: accountID, EventID: id}); err != nil {
		return mapError(err)
	}
	return mapError(t.q.DeleteEvent(ctx, db.DeleteEventParams{AccountID: accountID, ID: id}))
}

func eventFrom(r db.Event) Event {
	return Event{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description, EventDate: r.EventDate,
		Location: r.Location, TemplateID: r.TemplateID, CertificateValidityDays: intPtr(r.CertificateValidityDays),
		Registration: Registration{Enabled: r.RegistrationEnabled, OpensAt: r.RegistrationOpensAt,
			ClosesAt: r.RegistrationClosesAt, Capacity: intPtr(r.RegistrationCapacity), Message: r.RegistrationMessage},
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
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
