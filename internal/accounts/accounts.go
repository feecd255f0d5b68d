// Package accounts creates accounts with their owners and changes plans: the rules behind the
// operator commands and sign-up.
package accounts

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/store"
)

// Service applies the account rules.
type Service struct {
	store *store.Store
	now   func() time.Time
	keys  IssuerKeyMaker
	// signupPlan is the plan of an account created without one (WithSignupPlan).
	signupPlan string
}

// IssuerKeyMaker makes an account's issuer key, its private key sealed (credentials.Service).
type IssuerKeyMaker interface {
	NewIssuerKey(accountID uuid.UUID, now time.Time) (store.IssuerKey, error)
}

// Option configures a Service.
type Option func(*Service)

// WithIssuerKeys has Create give every new account its first issuer key, made by keys, in the
// transaction that creates it, so that reading an account's keys never writes. A service
// built without it (tests of other concerns) creates accounts without keys: their credentials
// cannot be signed until credentials.BackfillIssuerKeys runs.
func WithIssuerKeys(keys IssuerKeyMaker) Option { return func(s *Service) { s.keys = keys } }

// WithSignupPlan has Create put an account created without a plan (a registration) on plan,
// the installation's SIGNUP_PLAN, instead of free. CheckSignupPlan tells whether it is one of
// the plans.
func WithSignupPlan(plan string) Option {
	return func(s *Service) {
		if plan != "" {
			s.signupPlan = plan
		}
	}
}

// New returns the service; now is its clock (nil: the system's).
func New(s *store.Store, now func() time.Time, opts ...Option) *Service {
	if now == nil {
		now = time.Now
	}
	svc := &Service{store: s, now: now, signupPlan: "free"}
	for _, opt := range opts {
		opt(svc)
	}
	return svc
}

// CreateParams describe a new account and its owner.
type CreateParams struct {
	Email, Password, Name, AccountName, Plan string
}

// Create validates p, hashes the password and creates the account with its owner and, given
// WithIssuerKeys, its first issuer key. An empty p.Plan is the signup plan (WithSignupPlan).
func (s *Service) Create(ctx context.Context, p CreateParams) (domain.Account, domain.User, error) {
	email := strings.ToLower(strings.TrimSpace(p.Email))
	var details []apperr.Detail
	if !spec.IsEmail(email) {
		details = append(details, apperr.Detail{Field: "email", Message: "is not a valid email address"})
	}
	if n := utf8.RuneCountInString(p.Password); n < 10 || n > 128 {
		details = append(details, apperr.Detail{Field: "password", Message: "must be 10 to 128 characters"})
	}
	details = appendLength(details, "name", p.Name)
	details = appendLength(details, "accountName", p.AccountName)
	if len(details) > 0 {
		return domain.Account{}, domain.User{}, &apperr.Error{Code: apperr.ValidationError, Message: "The account is not valid.", Details: details}
	}
	hash, err := auth.HashPassword(ctx, p.Password)
	if err != nil {
		return domain.Account{}, domain.User{}, err
	}
	plan := p.Plan
	if plan == "" {
		plan = s.signupPlan
	}
	now := s.now()
	type created struct {
		account domain.Account
		owner   domain.User
	}
	c, err := store.InTx(ctx, s.store, func(tx *store.Tx) (created, error) {
		if err := requirePlan(ctx, tx, plan); err != nil {
			return created{}, err
		}
		a, err := tx.CreateAccount(ctx, store.NewAccount{Name: strings.TrimSpace(p.AccountName), Plan: plan}, now)
		if err != nil {
			return created{}, planConflict(err)
		}
		u, err := tx.CreateUser(ctx, store.NewUser{AccountID: a.ID, Email: email, Name: strings.TrimSpace(p.Name),
			PasswordHash: hash, Role: "owner"}, now)
		if err != nil {
			e := apperr.New(apperr.Conflict, "A user with this email already exists.").At("email", "is already registered")
			return created{}, apperr.When(err, store.Conflict(store.UniqueUserEmail), e)
		}
		if s.keys != nil {
			k, err := s.keys.NewIssuerKey(a.ID, now)
			if err != nil {
				return created{}, err
			}
			if _, err := tx.InsertActiveIssuerKey(ctx, k); err != nil {
				return created{}, err
			}
		}
		return created{account: a, owner: u}, nil
	})
	return c.account, c.owner, err
}

// SetPlan moves an account to plan.
func (s *Service) SetPlan(ctx context.Context, accountID uuid.UUID, plan string) (domain.Account, error) {
	if err := requirePlan(ctx, s.store, plan); err != nil {
		return domain.Account{}, err
	}
	a, err := s.store.SetAccountPlan(ctx, accountID, plan, s.now())
	if err != nil {
		return domain.Account{}, apperr.When(planConflict(err), store.ErrNotFound, apperr.NoSuch("account"))
	}
	return a, nil
}

// CheckSignupPlan refuses a signup plan (WithSignupPlan) that is none of the plans of the
// database's plans table, naming it: the service checks it before serving, so that no
// registration is the first to find out.
func (s *Service) CheckSignupPlan(ctx context.Context) error {
	ok, err := s.store.PlanExists(ctx, s.signupPlan)
	if err != nil {
		return fmt.Errorf("reading the plans: %w", err)
	}
	if !ok {
		return fmt.Errorf("%q is none of the plans of the database's plans table (free, pro, business and unlimited, "+
			"unless it was changed)", s.signupPlan)
	}
	return nil
}

// planChecker tells whether a plan exists: a *store.Store, or a *store.Tx.
type planChecker interface {
	PlanExists(ctx context.Context, plan string) (bool, error)
}

// requirePlan answers VALIDATION_ERROR on plan unless it is one of the plans.
func requirePlan(ctx context.Context, c planChecker, plan string) error {
	if ok, err := c.PlanExists(ctx, plan); err != nil || ok {
		return err
	}
	return apperr.Invalid("plan", "unknown plan "+plan)
}

// planConflict is the answer when the database refuses the plan (a plan removed meanwhile).
func planConflict(err error) error {
	return apperr.When(err, store.Conflict(store.AccountPlanExists), apperr.Invalid("plan", "unknown plan"))
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
