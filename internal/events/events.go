// Package events holds the rules of events and their registration settings.
package events

import (
	"context"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/store"
)

// Service applies the event rules.
type Service struct{ store *store.Store }

// New returns the service.
func New(s *store.Store) *Service { return &Service{store: s} }

// Create validates f and creates an event in the account.
func (s *Service) Create(ctx context.Context, accountID uuid.UUID, f store.EventFields) (store.Event, error) {
	if err := normalize(&f); err != nil {
		return store.Event{}, err
	}
	return s.store.CreateEvent(ctx, accountID, f)
}

// Get returns an event of the account.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (store.Event, error) {
	return s.store.FindEvent(ctx, accountID, id)
}

// List returns a page of the account's events, newest first, and their total.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, p store.Page) ([]store.Event, int, error) {
	return s.store.ListEvents(ctx, accountID, p)
}

// Replace validates f and replaces the event's fields with it.
func (s *Service) Replace(ctx context.Context, accountID, id uuid.UUID, f store.EventFields) (store.Event, error) {
	if err := normalize(&f); err != nil {
		return store.Event{}, err
	}
	return s.store.UpdateEvent(ctx, accountID, id, f)
}

// Delete removes an event without issued certificates, with its attendees and drafts.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	return s.store.DeleteEvent(ctx, accountID, id)
}

// SetRegistration validates and replaces an event's registration settings.
func (s *Service) SetRegistration(ctx context.Context, accountID, id uuid.UUID, r store.Registration) (store.Event, error) {
	if r.OpensAt != nil && r.ClosesAt != nil && !r.ClosesAt.After(*r.OpensAt) {
		return store.Event{}, apperr.Invalid("body.closesAt", "must be after opensAt")
	}
	if r.Message != nil && strings.TrimSpace(*r.Message) == "" {
		r.Message = nil
	}
	return s.store.UpdateRegistration(ctx, accountID, id, r)
}

// normalize trims the texts, clears blank optional ones and refuses control characters in the
// one-line fields (they appear on certificates and in email subjects).
func normalize(f *store.EventFields) error {
	var details []apperr.Detail
	f.Name = strings.TrimSpace(f.Name)
	if f.Name == "" {
		details = append(details, apperr.Detail{Field: "body.name", Message: "must not be blank"})
	} else if strings.IndexFunc(f.Name, unicode.IsControl) >= 0 {
		details = append(details, apperr.Detail{Field: "body.name", Message: "must not contain control characters"})
	}
	if f.Location != nil {
		if v := strings.TrimSpace(*f.Location); v == "" {
			f.Location = nil
		} else if strings.IndexFunc(v, unicode.IsControl) >= 0 {
			details = append(details, apperr.Detail{Field: "body.location", Message: "must not contain control characters"})
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
