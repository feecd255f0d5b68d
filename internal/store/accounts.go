package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// NewAccount is an account to create.
type NewAccount struct {
	Name string
	Plan string
}

// NewUser is a user to create in an account.
type NewUser struct {
	AccountID    uuid.UUID
	Email        string
	Name         string
	PasswordHash string
	Role         string // owner or member
}

// PlanExists reports whether plan is one of the plans.
func (d queries) PlanExists(ctx context.Context, plan string) (bool, error) {
	ok, err := d.q.PlanExists(ctx, plan)
	return ok, mapError(err)
}

// CreateAccount creates an account, created at now. A conflict on AccountPlanExists: no such
// plan.
func (d queries) CreateAccount(ctx context.Context, a NewAccount, now time.Time) (domain.Account, error) {
	row, err := d.q.CreateAccount(ctx, db.CreateAccountParams{ID: newID(), Name: a.Name, Plan: a.Plan, Now: now})
	if err != nil {
		return domain.Account{}, mapError(err)
	}
	return accountFrom(row), nil
}

// CreateUser creates a user, created at now. A conflict on UniqueUserEmail: the email is taken.
func (d queries) CreateUser(ctx context.Context, u NewUser, now time.Time) (domain.User, error) {
	row, err := d.q.CreateUser(ctx, db.CreateUserParams{ID: newID(), AccountID: u.AccountID, Email: u.Email, Name: u.Name,
		PasswordHash: u.PasswordHash, Role: u.Role, Now: now})
	if err != nil {
		return domain.User{}, mapError(err)
	}
	return userFrom(row), nil
}

// SetAccountPlan moves an account to another plan, at now. A conflict on AccountPlanExists: no
// such plan.
func (d queries) SetAccountPlan(ctx context.Context, accountID uuid.UUID, plan string, now time.Time) (domain.Account, error) {
	row, err := d.q.SetAccountPlan(ctx, db.SetAccountPlanParams{ID: accountID, Plan: plan, Now: now})
	if err != nil {
		return domain.Account{}, mapError(err)
	}
	return accountFrom(row), nil
}

// FindAccountOwner returns the owner of an account.
func (d queries) FindAccountOwner(ctx context.Context, accountID uuid.UUID) (domain.User, error) {
	row, err := d.q.FindAccountOwner(ctx, accountID)
	if err != nil {
		return domain.User{}, mapError(err)
	}
	return userFrom(row), nil
}

// FindAccountByID returns an account.
func (d queries) FindAccountByID(ctx context.Context, id uuid.UUID) (domain.Account, error) {
	acc, err := d.q.GetAccount(ctx, id)
	if err != nil {
		return domain.Account{}, mapError(err)
	}
	return accountFrom(acc), nil
}

// FindUserByEmail returns the user with email (compared trimmed and case-insensitively).
func (d queries) FindUserByEmail(ctx context.Context, email string) (domain.User, error) {
	u, err := d.q.FindUserByEmail(ctx, email)
	if err != nil {
		return domain.User{}, mapError(err)
	}
	return userFrom(u), nil
}

// Credentials are what signing in checks a user against. They never leave the auth rules.
type Credentials struct {
	User         domain.User
	PasswordHash string
	// The TOTP secret, sealed; or, written before secrets were sealed, plain (until the next
	// start seals it). Both are empty until two-step sign-in is set up.
	TOTPSecretSealed []byte
	TOTPSecretPlain  string
	TOTPEnabled      bool
}

// FindCredentialsByEmail returns the credentials of the user with email.
func (d queries) FindCredentialsByEmail(ctx context.Context, email string) (Credentials, error) {
	u, err := d.q.FindUserByEmail(ctx, email)
	if err != nil {
		return Credentials{}, mapError(err)
	}
	return credentialsFrom(u), nil
}

// FindCredentials returns the credentials of a user of an account.
func (d queries) FindCredentials(ctx context.Context, accountID, userID uuid.UUID) (Credentials, error) {
	u, err := d.q.GetUser(ctx, db.GetUserParams{AccountID: accountID, ID: userID})
	if err != nil {
		return Credentials{}, mapError(err)
	}
	return credentialsFrom(u), nil
}

func credentialsFrom(u db.User) Credentials {
	return Credentials{User: userFrom(u), PasswordHash: u.PasswordHash, TOTPEnabled: u.TotpEnabled,
		TOTPSecretSealed: u.TotpSecretSealed, TOTPSecretPlain: Deref(u.TotpSecret)}
}

// Profile is a user with the account it works in.
type Profile struct {
	User             domain.User
	TwoFactorEnabled bool
	EmailVerified    bool
	Account          domain.Account
}

// FindProfile returns a user of an account with that account.
func (d queries) FindProfile(ctx context.Context, accountID, userID uuid.UUID) (Profile, error) {
	r, err := d.q.GetUserProfile(ctx, db.GetUserProfileParams{AccountID: accountID, ID: userID})
	if err != nil {
		return Profile{}, mapError(err)
	}
	return Profile{
		User:             domain.User{ID: r.ID, AccountID: r.AccountID, Email: r.Email, Name: r.Name, Role: r.Role},
		TwoFactorEnabled: r.TotpEnabled,
		EmailVerified:    r.EmailVerified,
		Account:          domain.Account{ID: r.AccountID, Name: r.AccountName, Plan: r.AccountPlan},
	}, nil
}

func accountFrom(a db.Account) domain.Account {
	return domain.Account{ID: a.ID, Name: a.Name, Plan: a.Plan, CreatedAt: a.CreatedAt}
}

func userFrom(u db.User) domain.User {
	return domain.User{ID: u.ID, AccountID: u.AccountID, Email: u.Email, Name: u.Name, Role: u.Role}
}

// newID returns a time-ordered UUID (version 7).
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
