package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// Account is an organisation using the service.
type Account struct {
	ID        uuid.UUID
	Name      string
	Plan      string
	CreatedAt time.Time
}

// User is a person who signs in to an account.
type User struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	Email     string
	Name      string
	Role      string
}

// NewAccount is what creating an account with its owner takes.
type NewAccount struct {
	AccountName  string
	Plan         string
	OwnerEmail   string
	OwnerName    string
	PasswordHash string
}

// CreateAccountWithOwner creates an account and its owner in one transaction.
func (s *Store) CreateAccountWithOwner(ctx context.Context, n NewAccount) (Account, User, error) {
	var acc db.Account
	var usr db.User
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if ok, err := q.PlanExists(ctx, n.Plan); err != nil {
			return err
		} else if !ok {
			return apperr.Invalid("plan", "unknown plan "+n.Plan)
		}
		var err error
		if acc, err = q.CreateAccount(ctx, db.CreateAccountParams{ID: newID(), Name: n.AccountName, Plan: n.Plan}); err != nil {
			return err
		}
		usr, err = q.CreateUser(ctx, db.CreateUserParams{ID: newID(), AccountID: acc.ID, Email: n.OwnerEmail,
			Name: n.OwnerName, PasswordHash: n.PasswordHash, Role: "owner"})
		return err
	})
	if err != nil {
		return Account{}, User{}, err
	}
	return accountFrom(acc), userFrom(usr), nil
}

// SetAccountPlan moves an account to another plan.
func (s *Store) SetAccountPlan(ctx context.Context, accountID uuid.UUID, plan string) (Account, error) {
	var acc db.Account
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if ok, err := q.PlanExists(ctx, plan); err != nil {
			return err
		} else if !ok {
			return apperr.Invalid("plan", "unknown plan "+plan)
		}
		var err error
		acc, err = q.SetAccountPlan(ctx, db.SetAccountPlanParams{ID: accountID, Plan: plan})
		return err
	})
	if err != nil {
		return Account{}, err
	}
	return accountFrom(acc), nil
}

// FindAccountByID returns an account.
func (s *Store) FindAccountByID(ctx context.Context, id uuid.UUID) (Account, error) {
	acc, err := s.q.GetAccount(ctx, id)
	if err != nil {
		return Account{}, mapError(err)
	}
	return accountFrom(acc), nil
}

// FindUserByEmail returns the user with email (compared trimmed and case-insensitively).
func (s *Store) FindUserByEmail(ctx context.Context, email string) (User, error) {
	u, err := s.q.FindUserByEmail(ctx, email)
	if err != nil {
		return User{}, mapError(err)
	}
	return userFrom(u), nil
}

// Credentials are what signing in checks a user against. They never leave the auth rules.
type Credentials struct {
	User         User
	PasswordHash string
	TOTPSecret   string // empty until two-step sign-in is set up
	TOTPEnabled  bool
}

// FindCredentialsByEmail returns the credentials of the user with email.
func (s *Store) FindCredentialsByEmail(ctx context.Context, email string) (Credentials, error) {
	u, err := s.q.FindUserByEmail(ctx, email)
	if err != nil {
		return Credentials{}, mapError(err)
	}
	return credentialsFrom(u), nil
}

// FindCredentials returns the credentials of a user of an account.
func (s *Store) FindCredentials(ctx context.Context, accountID, userID uuid.UUID) (Credentials, error) {
	u, err := s.q.GetUser(ctx, db.GetUserParams{AccountID: accountID, ID: userID})
	if err != nil {
		return Credentials{}, mapError(err)
	}
	return credentialsFrom(u), nil
}

func credentialsFrom(u db.User) Credentials {
	c := Credentials{User: userFrom(u), PasswordHash: u.PasswordHash, TOTPEnabled: u.TotpEnabled}
	if u.TotpSecret != nil {
		c.TOTPSecret = *u.TotpSecret
	}
	return c
}

// Profile is a user with the account it works in.
type Profile struct {
	User             User
	TwoFactorEnabled bool
	Account          Account
}

// FindProfile returns a user of an account with that account.
func (s *Store) FindProfile(ctx context.Context, accountID, userID uuid.UUID) (Profile, error) {
	r, err := s.q.GetUserProfile(ctx, db.GetUserProfileParams{AccountID: accountID, ID: userID})
	if err != nil {
		return Profile{}, mapError(err)
	}
	return Profile{
		User:             User{ID: r.ID, AccountID: r.AccountID, Email: r.Email, Name: r.Name, Role: r.Role},
		TwoFactorEnabled: r.TotpEnabled,
		Account:          Account{ID: r.AccountID, Name: r.AccountName, Plan: r.AccountPlan},
	}, nil
}

func accountFrom(a db.Account) Account {
	return Account{ID: a.ID, Name: a.Name, Plan: a.Plan, CreatedAt: a.CreatedAt}
}

func userFrom(u db.User) User {
	return User{ID: u.ID, AccountID: u.AccountID, Email: u.Email, Name: u.Name, Role: u.Role}
}

// newID returns a time-ordered UUID (version 7).
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
