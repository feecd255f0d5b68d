package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// `account create` makes the account with its issuer key; `keys rotate -account ID` retires
// the account's issuer key and starts a new one; all stay published. `secrets rotate` reseals
// the issuer keys under a new SECRETS_KEY.
func TestKeysRotateStartsANewIssuerKeyAndKeepsTheOld(t *testing.T) {
	ctx := context.Background()
	url := testkit.Database(t)
	oldKey, newKey := testkit.SecretsKey(), testkit.SecretsKey()
	t.Setenv("DATABASE_URL", url)
	t.Setenv("LOG_LEVEL", "error")
	t.Setenv("SECRETS_KEY", base64.StdEncoding.EncodeToString(oldKey))
	var out bytes.Buffer
	if err := run(ctx, []string{"account", "create", "-email", "ada@example.org", "-name", "Ada", "-account-name", "Society"},
		strings.NewReader("correct horse battery\n"), &out); err != nil {
		t.Fatal(err)
	}
	account := regexp.MustCompile(`account ([0-9a-f-]{36})`).FindStringSubmatch(out.String())[1]
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	oldBox, _ := secretbox.New(oldKey)
	created, err := credentials.New(st, oldBox, "http://localhost:8080", nil).DIDDocument(ctx, uuid.MustParse(account), "")
	if err != nil || len(created.Value.AssertionMethod) != 1 {
		t.Fatalf("DID document of the new account: %+v %v", created.Value, err)
	}
	initial := created.Value.AssertionMethod[0]

	method := regexp.MustCompile(`with (did:web:\S+#z6Mk\S+)`)
	out.Reset()
	if err := run(ctx, []string{"keys", "rotate", "-account", account}, nil, &out); err != nil {
		t.Fatal(err)
	}
	first := method.FindStringSubmatch(out.String())
	if first == nil || first[1] == initial || !strings.Contains(out.String(), "retired "+initial) {
		t.Fatalf("first rotation: %q", out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"keys", "rotate", "-account", account}, nil, &out); err != nil {
		t.Fatal(err)
	}
	second := method.FindStringSubmatch(out.String())
	if second == nil || second[1] == first[1] || !strings.Contains(out.String(), "retired "+first[1]) {
		t.Fatalf("second rotation: %q", out.String())
	}

	got, err := credentials.New(st, oldBox, "http://localhost:8080", nil).DIDDocument(ctx, uuid.MustParse(account), "")
	doc := got.Value
	if err != nil || len(doc.AssertionMethod) != 3 || doc.AssertionMethod[0] != initial || doc.AssertionMethod[1] != first[1] ||
		doc.AssertionMethod[2] != second[1] {
		t.Fatalf("DID document after two rotations: %+v %v", doc, err)
	}

	t.Setenv("SECRETS_KEY", base64.StdEncoding.EncodeToString(newKey))
	t.Setenv("SECRETS_KEY_PREVIOUS", base64.StdEncoding.EncodeToString(oldKey))
	out.Reset()
	if err := run(ctx, []string{"secrets", "rotate"}, nil, &out); err != nil || !strings.Contains(out.String(), "3 issuer keys") {
		t.Fatalf("secrets rotate: %q %v", out.String(), err)
	}
	newOnly, _ := secretbox.New(newKey)
	keys, _ := st.AllIssuerKeys(ctx)
	for _, k := range keys {
		if !newOnly.Current(k.PrivateKeySealed) {
			t.Fatalf("issuer key %s is not sealed under the new key", k.ID)
		}
	}

	if err := run(ctx, []string{"keys", "rotate", "-account", uuid.NewString()}, nil, &out); err == nil {
		t.Fatal("an unknown account was rotated")
	}
	if err := run(ctx, []string{"keys", "rotate", "-account", "nope"}, nil, &out); err == nil || !strings.Contains(err.Error(), "UUID") {
		t.Fatalf("a malformed id: %v", err)
	}
}
