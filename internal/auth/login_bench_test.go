package auth_test

import (
	"context"
	"testing"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/testkit"
)

// The two failing logins should cost the same: compare their ns/op in `make bench`. An
// unknown email verifies a dummy hash, so that timing does not tell who has an account.
func BenchmarkLoginRefused(b *testing.B) {
	ctx := context.Background()
	st, _ := testkit.Store(b)
	if _, _, err := accounts.New(st, nil).Create(ctx, accounts.CreateParams{Email: "ada@example.org",
		Password: testkit.Password, Name: "Ada", AccountName: "Society"}); err != nil {
		b.Fatal(err)
	}
	keys, err := auth.NewKeyring(ctx, st, auth.KeyringOptions{Issuer: "https://x", Audience: "https://x/api/v1"})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := auth.NewService(ctx, st, keys, "test")
	if err != nil {
		b.Fatal(err)
	}
	for name, email := range map[string]string{"WrongPassword": "ada@example.org", "UnknownEmail": "nobody@example.org"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := svc.Login(ctx, auth.LoginParams{Email: email, Password: "wrong password"}); err == nil {
					b.Fatal("login succeeded")
				}
			}
		})
	}
}
