// Package events holds the rules of events and their registration settings.
package events

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

// Service applies the event rules.
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

// Missing is NOT_FOUND for an event that an input (eventId) named but the account does not
// have. The field is the domain's name; the HTTP edge says where the operation takes it.
func Missing() *apperr.Error {
	return apperr.NoSuch("event").At("eventId", "names no event of this account")
}

// Require answers NOT_FOUND, naming eventId, unless the account has the event.
func Require(ctx context.Context, st *store.Store, accountID, eventID uuid.UUID) error {
	_, err := st.FindEvent(ctx, accountID, eventID)
	return apperr.When(err, store.ErrNotFound, Missing())
}

// Create validates f and creates an event in the account; its template must be one the
// account may use.
func (s *Service) Create(ctx context.Context, accountID uuid.UUID, f domain.EventFields) (domain.Event, error) {
	if err := normalize(&f); err != nil {
		return domain.Event{}, err
	}
	if err := templates.RequireUsable(ctx, s.store, accountID, f.TemplateID); err != nil {
		return domain.Event{}, err
	}
	if err := s.defaultLocale(ctx, s.store, accountID, &f); err != nil {
		return domain.Event{}, err
	}
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Event, error) {
		ev, err := tx.CreateEvent(ctx, accountID, f, s.now())
		if err == nil {
			audit.Describe(ctx, "event", ev.ID.String(), "") // before the commit writes the entry
		}
		return ev, err
	})
}

// Get returns an event of the account.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (domain.Event, error) {
	ev, err := s.store.FindEvent(ctx, accountID, id)
	return ev, noSuchEvent(err)
}

func noSuchEvent(err error) error { return apperr.When(err, store.ErrNotFound, apperr.NoSuch("event")) }

// List returns a page of the account's events, newest first, and their total.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, p domain.Page) ([]domain.Event, int, error) {
	return s.store.ListEvents(ctx, accountID, p)
}

// Replace validates f and replaces the event's fields with it.
func (s *Service) Replace(ctx context.Context, accountID, id uuid.UUID, f domain.EventFields) (domain.Event, error) {
	if err := normalize(&f); err != nil {
		return domain.Event{}, err
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Event, error) {
		if err := tx.LockEvent(ctx, accountID, id); err != nil {
			return domain.Event{}, noSuchEvent(err)
		}
		if err := templates.RequireUsable(ctx, tx, accountID, f.TemplateID); err != nil {
			return domain.Event{}, err
		}
		if err := s.defaultLocale(ctx, tx, accountID, &f); err != nil {
			return domain.Event{}, err
		}
		return tx.UpdateEvent(ctx, accountID, id, f, now)
	})
}

// defaultLocale gives f the account's default locale when it names none: the branding's
// defaultLocale, else English. A replaced event without one takes it again, as the contract's
// replacement clears every omitted field to its default.
func (s *Service) defaultLocale(ctx context.Context, st interface {
	FindBranding(context.Context, uuid.UUID) (domain.Branding, error)
}, accountID uuid.UUID, f *domain.EventFields) error {
	if f.Locale != "" {
		return nil
	}
	b, err := st.FindBranding(ctx, accountID)
	if err != nil {
		return err
	}
	f.Locale = locale.Or(store.Deref(b.DefaultLocale), locale.Default)
	return nil
}

// Delete removes an event with its attendees and draft certificates. An event with any issued
// certificate (valid, expired or revoked) is kept: 409, and nothing is removed; so is one whose
// attendees were issued badges. A person erased at their request holds neither: their
// credentials stay, revoked, when their event goes.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		if err := tx.LockEvent(ctx, accountID, id); err != nil {
			return struct{}{}, noSuchEvent(err)
		}
		n, err := tx.CountIssuedCertificatesOfEvent(ctx, accountID, id)
		if err != nil {
			return struct{}{}, err
		}
		if n > 0 {
			return struct{}{}, apperr.New(apperr.Conflict, "The event has %s; issued certificates are never erased, so the event stays.",
				apperr.Count(n, "issued certificate", "issued certificates"))
		}
		if err := tx.ReleaseErasedOfEvent(ctx, accountID, id); err != nil {
			return struct{}{}, err
		}
		err = tx.DeleteEvent(ctx, accountID, id)
		// The count above and an issuance that began before the event was locked: the attendee's
		// key refuses the deletion, and the event stays.
		err = apperr.When(err, store.Conflict(store.CertificateAttendee),
			apperr.New(apperr.Conflict, "A certificate was issued to an attendee of this event meanwhile; issued certificates are never erased, so the event stays."))
		return struct{}{}, apperr.When(err, store.Conflict(store.BadgeAssertionAttendee),
			apperr.New(apperr.Conflict, "Attendees of this event were issued badges; issued badges are never erased."))
	})
	return err
}

// SetRegistration validates and replaces an event's registration settings.
func (s *Service) SetRegistration(ctx context.Context, accountID, id uuid.UUID, r domain.Registration) (domain.Event, error) {
	if r.OpensAt != nil && r.ClosesAt != nil && !r.ClosesAt.After(*r.OpensAt) {
		return domain.Event{}, apperr.Invalid("closesAt", "must be after opensAt")
	}
	if r.Message != nil && strings.TrimSpace(*r.Message) == "" {
		r.Message = nil
	}
	ev, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Event, error) {
		return tx.UpdateRegistration(ctx, accountID, id, r, s.now())
	})
	return ev, noSuchEvent(err)
}

// normalize trims the texts, clears blank optional ones and refuses control characters in the
// one-line fields (they appear on certificates and in email subjects).
func normalize(f *domain.EventFields) error {
	var details []apperr.Detail
	f.Name = strings.TrimSpace(f.Name)
	if f.Name == "" {
		details = append(details, apperr.Detail{Field: "name", Message: "must not be blank"})
	} else if strings.IndexFunc(f.Name, unicode.IsControl) >= 0 {
		details = append(details, apperr.Detail{Field: "name", Message: "must not contain control characters"})
	}
	if f.Location != nil {
		if v := strings.TrimSpace(*f.Location); v == "" {
			f.Location = nil
		} else if strings.IndexFunc(v, unicode.IsControl) >= 0 {
			details = append(details, apperr.Detail{Field: "location", Message: "must not contain control characters"})
		} else {
			f.Location = &v
		}
	}
	if f.Description != nil && strings.TrimSpace(*f.Description) == "" {
		f.Description = nil
	}
	if len(details) > 0 {
		return &apperr.Error{Code: apperr.ValidationError, Message: "The event is not valid.", Details: details}
	}
	return nil
}
