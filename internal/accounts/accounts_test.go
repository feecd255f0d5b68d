package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestCreateAccountWithOwnerStoresAHashedPassword(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	svc := accounts.New(st, nil)
	ctx := context.Background()
	acc, usr, err := svc.Create(ctx, accounts.CreateParams{Email: "  Ada@Example.org ", Password: "correct horse battery",
		Name: "Ada Lovelace", AccountName: "Analytical Society", Plan: "pro"})
	if err != nil {
		t.Fatal(err)
	}
	if acc.Plan != "pro" || usr.Role != "owner" || usr.Email != "ada@example.org" || usr.AccountID != acc.ID {
		t.Fatalf("account %+v, user %+v", acc, usr)
	}
	found, err := st.FindUserByEmail(ctx, "ADA@example.org")
	if err != nil || found.ID != usr.ID {
		t.Fatalf("find by email: %+v, %v", found, err)
	}
}

func TestCreateAccountRefusesBadInputAndTakenEmails(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	svc := accounts.New(st, nil)
	ctx := context.Background()
	valid := accounts.CreateParams{Email: "grace@example.org", Password: "correct horse battery", Name: "Grace", AccountName: "Navy"}
	if _, _, err := svc.Create(ctx, valid); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		change    func(p *accounts.CreateParams)
		wantCode  apperr.Code
		wantField string
	}{
		{"email taken, in another case", func(p *accounts.CreateParams) { p.Email = "GRACE@example.org" }, apperr.Conflict, "email"},
		{"not an email", func(p *accounts.CreateParams) { p.Email = "grace" }, apperr.ValidationError, "email"},
		{"short password", func(p *accounts.CreateParams) { p.Email = "g2@example.org"; p.Password = "short" }, apperr.ValidationError, "password"},
		{"blank account name", func(p *accounts.CreateParams) { p.Email = "g3@example.org"; p.AccountName = "  " }, apperr.ValidationError, "accountName"},
		{"unknown plan", func(p *accounts.CreateParams) { p.Email = "g4@example.org"; p.Plan = "gold" }, apperr.ValidationError, "plan"},
		{"line break in a name", func(p *accounts.CreateParams) { p.Email = "g5@example.org"; p.Name = "Eve\r\nBcc: victim@example.org" }, apperr.ValidationError, "name"},
	}
	for _, tc := range cases {
		p := valid
		tc.change(&p)
		_, _, err := svc.Create(ctx, p)
		e, ok := apperr.As(err)
		if !ok || e.Code != tc.wantCode || len(e.Details) == 0 || e.Details[0].Field != tc.wantField {
			t.Errorf("%s: got %v, want %s naming %s", tc.name, err, tc.wantCode, tc.wantField)
		}
	}
}

func TestSetPlanChangesThePlanAndRefusesUnknownOnes(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	svc := accounts.New(st, nil)
	ctx := context.Background()
	acc, _, err := svc.Create(ctx, accounts.CreateParams{Email: "a@example.org", Password: "correct horse battery", Name: "A", AccountName: "A"})
	if err != nil {
		t.Fatal(err)
	}
	if acc.Plan != "free" {
		t.Fatalf("a new account is on %s, want free", acc.Plan)
	}
	if got, err := svc.SetPlan(ctx, acc.ID, "unlimited"); err != nil || got.Plan != "unlimited" {
		t.Fatalf("set-plan: %+v %v", got, err)
	}
	if _, err := svc.SetPlan(ctx, acc.ID, "gold"); apperr.CodeOf(err) != apperr.ValidationError {
		t.Fatalf("unknown plan: %v", err)
	}
	if _, err := svc.SetPlan(ctx, uuid.New(), "pro"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("unknown account: %v", err)
	}
	if got, _ := st.FindAccountByID(ctx, acc.ID); got.Plan != "unlimited" {
		t.Fatalf("the refused change altered the plan: %s", got.Plan)
	}
}

// An account is created with its first issuer key, in the same transaction: the key is the
// account's, active, and opens for signing; a creation refused (the email taken) leaves no key.
func TestCreateGivesTheAccountItsFirstIssuerKey(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	ctx := context.Background()
	creds := credentials.New(st, testkit.SecretBox(t), "https://credentials.example.org", nil)
	svc := accounts.New(st, nil, accounts.WithIssuerKeys(creds))
	acc, _, err := svc.Create(ctx, accounts.CreateParams{Email: "ada@example.org", Password: "correct horse battery", Name: "Ada", AccountName: "Society"})
	require.NoError(t, err)

	keys, err := st.IssuerKeys(ctx, acc.ID)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.Equal(t, acc.ID, keys[0].AccountID)
	require.Nil(t, keys[0].RetiredAt)
	public, err := creds.IssuerKeys(ctx, acc.ID)
	require.NoError(t, err)
	require.Len(t, public.Keys, 1)
	if diff := cmp.Diff([]byte(public.Keys[0]), keys[0].PublicKey); diff != "" {
		t.Errorf("the published key (-published +stored):\n%s", diff)
	}

	_, _, err = svc.Create(ctx, accounts.CreateParams{Email: "ADA@example.org", Password: "correct horse battery", Name: "Ada", AccountName: "Again"})
	require.Equal(t, apperr.Conflict, apperr.CodeOf(err))
	all, err := st.AllIssuerKeys(ctx)
	require.NoError(t, err)
	require.Len(t, all, 1, "keys after a refused creation")
}

// When the key cannot be made, no account is created: the account and its key commit
// together or not at all.
func TestAnAccountWhoseKeyFailsIsNotCreated(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	ctx := context.Background()
	svc := accounts.New(st, nil, accounts.WithIssuerKeys(failingKeys{}))
	_, _, err := svc.Create(ctx, accounts.CreateParams{Email: "ada@example.org", Password: "correct horse battery", Name: "Ada", AccountName: "Society"})
	require.ErrorIs(t, err, errNoEntropy)
	_, err = st.FindUserByEmail(ctx, "ada@example.org")
	require.ErrorIs(t, err, store.ErrNotFound)
}

var errNoEntropy = errors.New("no entropy")

type failingKeys struct{}

func (failingKeys) NewIssuerKey(uuid.UUID, time.Time) (store.IssuerKey, error) {
	return store.IssuerKey{}, errNoEntropy
}

// WithSignupPlan puts an account created without a plan (a registration) on the signup plan;
// a plan named (the operator command's -plan) wins over it.
func TestAnAccountWithoutAPlanIsOnTheSignupPlan(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	ctx := context.Background()
	svc := accounts.New(st, nil, accounts.WithSignupPlan("business"))
	require.NoError(t, svc.CheckSignupPlan(ctx))
	registered, _, err := svc.Create(ctx, accounts.CreateParams{Email: "ada@example.org", Password: "correct horse battery", Name: "Ada", AccountName: "Society"})
	require.NoError(t, err)
	require.Equal(t, "business", registered.Plan, "an account created without a plan")
	named, _, err := svc.Create(ctx, accounts.CreateParams{Email: "grace@example.org", Password: "correct horse battery", Name: "Grace", AccountName: "Navy", Plan: "pro"})
	require.NoError(t, err)
	require.Equal(t, "pro", named.Plan, "an account created with a plan")
}

// A signup plan that the plans table does not hold is refused by CheckSignupPlan, naming it,
// and by a registration, which creates nothing.
func TestAnUnknownSignupPlanIsRefused(t *testing.T) {
	t.Parallel()
	st, _ := testkit.Store(t)
	ctx := context.Background()
	svc := accounts.New(st, nil, accounts.WithSignupPlan("gold"))
	err := svc.CheckSignupPlan(ctx)
	require.ErrorContains(t, err, `"gold" is none of the plans`)
	_, _, err = svc.Create(ctx, accounts.CreateParams{Email: "ada@example.org", Password: "correct horse battery", Name: "Ada", AccountName: "Society"})
	require.Equal(t, apperr.ValidationError, apperr.CodeOf(err))
	_, err = st.FindUserByEmail(ctx, "ada@example.org")
	require.ErrorIs(t, err, store.ErrNotFound)
}
