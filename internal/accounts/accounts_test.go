package accounts_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
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
