package store

import (
	"cmp"
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// pageLimit and pageOffset are a page's LIMIT and OFFSET.
func pageLimit(p domain.Page) int32  { return int32(p.Size) }
func pageOffset(p domain.Page) int32 { return int32((p.Number - 1) * p.Size) }

// TemplateUsable reports whether an event of the account may use a template: one of the
// account's own, or a system template.
func (d queries) TemplateUsable(ctx context.Context, accountID, templateID uuid.UUID) (bool, error) {
	ok, err := d.q.TemplateUsable(ctx, db.TemplateUsableParams{AccountID: accountID, ID: templateID})
	return ok, mapError(err)
}

// CreateEvent creates an event of the account, created at now.
func (d queries) CreateEvent(ctx context.Context, accountID uuid.UUID, f domain.EventFields, now time.Time) (domain.Event, error) {
	row, err := d.q.CreateEvent(ctx, db.CreateEventParams{ID: newID(), AccountID: accountID, Name: f.Name,
		Description: f.Description, EventDate: f.EventDate, Location: f.Location, TemplateID: f.TemplateID,
		CertificateValidityDays: int32Ptr(f.CertificateValidityDays), Locale: localeOr(f.Locale), Now: now})
	if err != nil {
		return domain.Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// FindEvent returns an event of the account.
func (d queries) FindEvent(ctx context.Context, accountID, id uuid.UUID) (domain.Event, error) {
	row, err := d.q.GetEvent(ctx, db.GetEventParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// ListEvents returns a page of the account's events, in p's order and matching its search,
// and how many match.
func (d queries) ListEvents(ctx context.Context, accountID uuid.UUID, p domain.Page) ([]domain.Event, int, error) {
	q, err := d.list(eventOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	pattern := containsPattern(p.Q)
	rows, err := q.ListEvents(ctx, db.ListEventsParams{AccountID: accountID, Pattern: pattern, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := q.CountEvents(ctx, db.CountEventsParams{AccountID: accountID, Pattern: pattern})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, eventFrom), int(total), nil
}

// UpdateEvent replaces an event's fields, at now.
func (d queries) UpdateEvent(ctx context.Context, accountID, id uuid.UUID, f domain.EventFields, now time.Time) (domain.Event, error) {
	row, err := d.q.UpdateEvent(ctx, db.UpdateEventParams{AccountID: accountID, ID: id, Name: f.Name,
		Description: f.Description, EventDate: f.EventDate, Location: f.Location, TemplateID: f.TemplateID,
		CertificateValidityDays: int32Ptr(f.CertificateValidityDays), Locale: localeOr(f.Locale), Now: now})
	if err != nil {
		return domain.Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// UpdateRegistration replaces an event's registration settings, at now.
func (d queries) UpdateRegistration(ctx context.Context, accountID, id uuid.UUID, r domain.Registration, now time.Time) (domain.Event, error) {
	row, err := d.q.UpdateEventRegistration(ctx, db.UpdateEventRegistrationParams{AccountID: accountID, ID: id,
		Enabled: r.Enabled, OpensAt: r.OpensAt, ClosesAt: r.ClosesAt, Capacity: int32Ptr(r.Capacity), Message: r.Message, Now: now})
	if err != nil {
		return domain.Event{}, mapError(err)
	}
	return eventFrom(row), nil
}

// LockEvent holds an event of the account until the transaction ends: nothing is issued for it,
// and no job created, meanwhile.
func (d queries) LockEvent(ctx context.Context, accountID, id uuid.UUID) error {
	_, err := d.q.LockEvent(ctx, db.LockEventParams{AccountID: accountID, ID: id})
	return mapError(err)
}

// CountIssuedCertificatesOfEvent counts an event's certificates other than drafts, but for those
// of attendees erased at their request.
func (d queries) CountIssuedCertificatesOfEvent(ctx context.Context, accountID, eventID uuid.UUID) (int, error) {
	n, err := d.q.CountIssuedCertificatesOfEvent(ctx, db.CountIssuedCertificatesOfEventParams{AccountID: accountID, EventID: eventID})
	return int(n), mapError(err)
}

// ReleaseErasedOfEvent lets the credentials of an event's erased attendees go of them
// (migration 00044), so that the event and its attendees can be deleted while those
// credentials stay, revoked.
func (d queries) ReleaseErasedOfEvent(ctx context.Context, accountID, eventID uuid.UUID) error {
	return mapError(d.q.UnlinkErasedOfEvent(ctx, db.UnlinkErasedOfEventParams{AccountID: accountID, EventID: eventID}))
}

// DeleteEvent removes an event with its draft certificates (its attendees go with it). Run it
// in a transaction.
func (t *Tx) DeleteEvent(ctx context.Context, accountID, id uuid.UUID) error {
	drafts, err := t.q.DeleteDraftCertificatesOfEvent(ctx, db.DeleteDraftCertificatesOfEventParams{AccountID: accountID, EventID: id})
	if err != nil {
		return mapError(err)
	}
	for _, d := range drafts {
		t.changed(changefeed.Change{Certificate: d.ID, Code: d.VerificationCode})
	}
	return mapError(t.q.DeleteEvent(ctx, db.DeleteEventParams{AccountID: accountID, ID: id}))
}

// localeOr is an event's locale as stored: the events service has chosen it (the branding's
// default when the request named none); a direct caller naming none (factories, benchmarks)
// stores English, the column's default.
func localeOr(l string) string { return cmp.Or(l, "en") }

func eventFrom(r db.Event) domain.Event {
	return domain.Event{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description, EventDate: r.EventDate,
		Location: r.Location, TemplateID: r.TemplateID, CertificateValidityDays: intPtr(r.CertificateValidityDays),
		Locale: r.Locale, Registration: domain.Registration{Enabled: r.RegistrationEnabled, OpensAt: r.RegistrationOpensAt,
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
