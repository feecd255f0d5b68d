package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/certhub/credentiald/internal/testkit"
)

// `account create` without -plan puts the account on SIGNUP_PLAN, as a registration does
// (t.Setenv: not parallel).
func TestAccountCreateWithoutAPlanTakesTheSignupPlan(t *testing.T) {
	t.Setenv("DATABASE_URL", testkit.Database(t))
	t.Setenv("SECRETS_KEY", base64.StdEncoding.EncodeToString(testkit.SecretsKey()))
	t.Setenv("LOG_LEVEL", "error")
	t.Setenv("SIGNUP_PLAN", "business")
	var out bytes.Buffer
	err := run(context.Background(), []string{"account", "create", "-email", "ada@example.org", "-name", "Ada", "-account-name", "Society"},
		strings.NewReader("correct horse battery\n"), &out)
	if err != nil {
		t.Fatal(describe(err))
	}
	if !strings.Contains(out.String(), "plan business") {
		t.Fatalf("output %q, want the account on plan business", out.String())
	}
}
