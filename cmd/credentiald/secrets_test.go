package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/webhooks"
)

// With DATABASE_URL set, starting without SECRETS_KEY fails and says what to do.
func TestServingWithADatabaseNeedsTheSecretsKey(t *testing.T) {
	t.Setenv("DATABASE_URL", testkit.Database(t))
	t.Setenv("SECRETS_KEY", "")
	t.Setenv("LOG_LEVEL", "error")
	for _, args := range [][]string{{"serve"}, {"secrets", "rotate"}} {
		err := run(context.Background(), args, nil, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "SECRETS_KEY is required when DATABASE_URL is set") ||
			!strings.Contains(err.Error(), "openssl rand -base64 32") {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

// `secrets rotate` reseals every secret under the new key, plain TOTP secrets included; the old
// key can then go.
func TestSecretsRotateResealsUnderTheNewKey(t *testing.T) {
	ctx := context.Background()
	url := testkit.Database(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("LOG_LEVEL", "error")
	oldKey, newKey := testkit.SecretsKey(), testkit.SecretsKey()
	oldBox, _ := secretbox.New(oldKey)
	newOnly, _ := secretbox.New(newKey)
	t.Setenv("SECRETS_KEY", base64.StdEncoding.EncodeToString(oldKey)) // seals the account's issuer key

	var out bytes.Buffer
	if err := run(ctx, []string{"account", "create", "-email", "ada@example.org", "-name", "Ada", "-account-name", "Society"},
		strings.NewReader("correct horse battery\n"), &out); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	user, err := st.FindCredentialsByEmail(ctx, "ada@example.org")
	if err != nil {
		t.Fatal(err)
	}
	u := "https://93.184.216.34/hook"
	sub, secret, err := webhooks.NewService(st, oldBox, webhooks.Policy{}, nil).Create(ctx, user.User.AccountID,
		webhooks.Fields{URL: &u, Events: []string{"certificate.issued"}})
	if err != nil {
		t.Fatal(err)
	}
	// A TOTP secret stored in plain, as before secrets were sealed.
	testkit.SQLAt(t, url, "UPDATE users SET totp_secret = 'JBSWY3DPEHPK3PXP' WHERE id = $1", user.User.ID)

	t.Setenv("SECRETS_KEY", base64.StdEncoding.EncodeToString(newKey))
	t.Setenv("SECRETS_KEY_PREVIOUS", base64.StdEncoding.EncodeToString(oldKey))
	out.Reset()
	if err := run(ctx, []string{"secrets", "rotate"}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1 webhook signing secrets, 1 TOTP secrets") {
		t.Fatalf("output %q", out.String())
	}
	hooks, _ := st.WebhookSecrets(ctx, uuid.Nil, 10)
	if got, err := newOnly.Open(hooks[0].Sealed, []byte("webhook:"+sub.ID.String())); err != nil || string(got) != secret {
		t.Fatalf("the signing secret under the new key alone: %q %v", got, err)
	}
	totps, _ := st.TOTPSecrets(ctx, uuid.Nil, 10)
	if totps[0].Plain != nil {
		t.Fatal("the plain TOTP secret is still there")
	}
	if got, err := newOnly.Open(totps[0].Sealed, []byte("totp:"+user.User.ID.String())); err != nil || string(got) != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("the TOTP secret under the new key alone: %q %v", got, err)
	}
	out.Reset()
	if err := run(ctx, []string{"secrets", "rotate"}, nil, &out); err != nil || !strings.Contains(out.String(), "0 webhook signing secrets, 0 TOTP secrets") {
		t.Fatalf("again: %q %v", out.String(), err)
	}
	// Without the old key, a secret still sealed under it is named, not skipped.
	resealed, _ := oldBox.Seal([]byte(secret), []byte("webhook:"+sub.ID.String()))
	if ok, err := st.ReplaceWebhookSecret(ctx, sub.ID, hooks[0].Sealed, resealed); err != nil || !ok {
		t.Fatal(err)
	}
	t.Setenv("SECRETS_KEY_PREVIOUS", "")
	if err := run(ctx, []string{"secrets", "rotate"}, nil, &out); err == nil || !strings.Contains(err.Error(), sub.ID.String()) ||
		!strings.Contains(err.Error(), "SECRETS_KEY_PREVIOUS") {
		t.Fatalf("an old secret without its key: %v", err)
	}
}
