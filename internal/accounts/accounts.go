// Package accounts creates accounts with their owners and changes plans: the rules behind the
// operator commands (and, later, sign-up).
package accounts

import (
	"context"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/store"
)

// Service applies the account rules.
type Service struct{ store *store.Store }

// New returns the service.
func New(s *store.Store) *Service { return &Service{store: s} }

// CreateParams describe a new account and its owner.
type CreateParams struct {
	Email, Password, Name, AccountName, Plan string
}

// Create validates p, hashes the password and creates the account with its owner.
func (s *Service) Create(ctx context.Context, p CreateParams) (store.Account, store.User, error) {
	email := strings.ToLower(strings.TrimSpace(p.Email))
	var details []apperr.Detail
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		details = append(details, apperr.Detail{Field: "email", Message: "is not a valid email address"})
	}
	if n := utf8.RuneCountInString(p.Password); n < 10 || n > 128 {
		details = append(details, apperr.Detail{Field: "password", Message: "must be 10 to 128 characters"})
	}
	details = appendLength(details, "name", p.Name)
	details = appendLength(details, "accountName", p.AccountName)
	if len(details) > 0 {
		return store.Account{}, store.User{}, &apperr.Error{Code: apperr.ValidationError, Message: "The account is not valid.", Details: details}
	}
	hash, err := auth.HashPassword(ctx, p.Password)
	if err != nil {
		return store.Account{}, store.User{}, err
	}
	plan := p.Plan
	if plan == "" {
		plan = "free"
	}
	return s.store.CreateAccountWithOwner(ctx, store.NewAccount{
		AccountName: strings.TrimSpace(p.AccountName), Plan: plan,
		OwnerEmail: email, OwnerName: strings.TrimSpace(p.Name), PasswordHash: hash,
	})
}

// SetPlan moves an account to plan.
func (s *Service) SetPlan(ctx context.Context, accountID uuid.UUID, plan string) (store.Account, error) {
	return s.store.SetAccountPlan(ctx, accountID, plan)
}

func appendLength(details []apperr.Detail, field, v string) []apperr.Detail {
	if n := utf8.RuneCountInString(strings.TrimSpace(v)); n < 1 || n > 100 {
		return append(details, apperr.Detail{Field: field, Message: "must be 1 to 100 characters"})
	}
	if hasControl(v) {
		return append(details, apperr.Detail{Field: field, Message: "must not contain control characters"})
	}
	return details
}

// hasControl reports line breaks and other control characters: names end up in email headers
// and on certificates, where they have no place.
func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}
