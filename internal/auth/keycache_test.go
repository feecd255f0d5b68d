package auth_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/testkit"
)

// Verified keys are served from memory for a few seconds. The instance that deletes a key
// refuses it at once; another instance, which cannot know, refuses it once its entry lapses,
// APIKeyCacheTTL at most: the bound docs/operations.md documents for several instances.
func TestADeletedKeyIsRefusedAtOnceHereAndWithinTheCacheTTLElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testkit.Clock{}
	st, _ := testkit.Store(t)
	acc, usr, err := accounts.New(st, clock.Now).Create(ctx, accounts.CreateParams{Email: "ada@example.org", Password: testkit.Password,
		Name: "Ada", AccountName: "Analytical Society"})
	if err != nil {
		t.Fatal(err)
	}
	ring, err := auth.NewKeyring(ctx, st, auth.KeyringOptions{Issuer: "https://certs.example", Audience: "https://certs.example/api/v1", Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	here, err := auth.NewService(ctx, st, ring, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, err := auth.NewService(ctx, st, ring, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.Principal{AccountID: acc.ID, UserID: usr.ID, SessionID: uuid.New(), AuthenticatedAt: clock.Now(), Role: auth.RoleOwner}
	key, full, err := here.CreateAPIKey(ctx, owner, auth.NewAPIKeyParams{Name: "k", Scopes: []string{"events:read"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*auth.Service{here, elsewhere} {
		if p, err := s.Authenticate(ctx, full); err != nil || p.KeyID != key.ID {
			t.Fatalf("a fresh key: %+v %v", p, err)
		}
	}
	if err := here.DeleteAPIKey(ctx, owner, key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := here.Authenticate(ctx, full); err == nil {
		t.Fatal("the instance that deleted the key still accepts it")
	}
	if _, err := elsewhere.Authenticate(ctx, full); err != nil {
		t.Fatalf("within the TTL another instance serves its cached entry (the documented bound): %v", err)
	}
	clock.Advance(auth.APIKeyCacheTTL)
	if _, err := elsewhere.Authenticate(ctx, full); err == nil {
		t.Fatal("another instance still accepts a deleted key after APIKeyCacheTTL")
	}
}
