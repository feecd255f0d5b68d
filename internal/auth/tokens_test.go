package auth_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func keyring(t *testing.T, ctx context.Context, clock *testkit.Clock, o auth.KeyringOptions) *auth.Keyring {
	t.Helper()
	st, _ := testkit.Store(t)
	o.Now = clock.Now
	if o.Issuer == "" {
		o.Issuer, o.Audience = "https://certs.example", "https://certs.example/api/v1"
	}
	k, err := auth.NewKeyring(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A retired key verifies for one token lifetime after its retirement, and not after: the
// cutoff is what refuses it then, not the expiry of its tokens. The first instance keeps a
// configured key that another instance retires, so it goes on signing fresh tokens with it
// (an instance left with an old JWT_SIGNING_KEY, or a retired key that leaked).
func TestARetiredKeyVerifiesUntilItsTokensExpire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testkit.Clock{}
	st, _ := testkit.Store(t)
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 42
	opts := auth.KeyringOptions{Issuer: "https://certs.example", Audience: "https://certs.example/api/v1", Now: clock.Now}
	pinned := opts
	pinned.Seed = seed
	first, err := auth.NewKeyring(ctx, st, pinned)
	if err != nil {
		t.Fatal(err)
	}
	user, acct, sess := uuid.New(), uuid.New(), uuid.New()
	old, _, err := first.Issue(ctx, user, acct, sess)
	if err != nil {
		t.Fatal(err)
	}
	next, err := auth.NewSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.RotateSigningKey(ctx, st, next, clock.Now()); err != nil {
		t.Fatal(err)
	}
	// Another instance starting now signs with the new key and still accepts the old key's
	// tokens, fresh ones included.
	second, err := auth.NewKeyring(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := second.Verify(ctx, old)
	if err != nil || claims.UserID != user || claims.AccountID != acct || claims.SessionID != sess {
		t.Fatalf("the old token after rotation: %+v %v", claims, err)
	}
	if fresh, _, err := first.Issue(ctx, user, acct, sess); err != nil {
		t.Fatal(err)
	} else if _, err := second.Verify(ctx, fresh); err != nil {
		t.Fatalf("a token of the key retired just now: %v", err)
	}
	fresh, _, err := second.Issue(ctx, user, acct, sess)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second) // the first instance rereads the keys at most once a second
	if _, err := first.Verify(ctx, fresh); err != nil {
		t.Fatalf("the first instance does not learn the new key: %v", err)
	}
	clock.Advance(auth.AccessTokenTTL + 2*time.Minute)
	third, err := auth.NewKeyring(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := third.Verify(ctx, old); err == nil {
		t.Fatal("a token of a key retired longer than a token lifetime ago still verifies")
	}
	// A token the retired key signs now has not expired: only the cutoff refuses it.
	late, _, err := first.Issue(ctx, user, acct, sess)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyEdDSA(late, ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)); err != nil {
		t.Fatalf("the late token is not the retired key's: %v", err)
	}
	if _, err := third.Verify(ctx, late); err == nil {
		t.Fatal("a fresh token of a key retired longer than a token lifetime ago verifies")
	}
}

func TestTokensOfAnotherIssuerOrAudienceAreRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testkit.Clock{}
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 7
	// Same key, other issuer or audience: only the claims differ.
	ours := keyring(t, ctx, clock, auth.KeyringOptions{Seed: seed})
	for name, o := range map[string]auth.KeyringOptions{
		"issuer":   {Issuer: "https://evil.example", Audience: "https://certs.example/api/v1", Seed: seed},
		"audience": {Issuer: "https://certs.example", Audience: "https://certs.example/admin", Seed: seed},
	} {
		theirs := keyring(t, ctx, clock, o)
		tok, _, err := theirs.Issue(ctx, uuid.New(), uuid.New(), uuid.New())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ours.Verify(ctx, tok); err == nil {
			t.Errorf("a token with another %s verifies", name)
		}
	}
}

func TestAConfiguredSeedIsTheSigningKey(t *testing.T) {
	t.Parallel()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	parsed, err := auth.ParseSeed(base64.StdEncoding.EncodeToString(seed))
	if err != nil || string(parsed) != string(seed) {
		t.Fatalf("ParseSeed: %v", err)
	}
	if _, err := auth.ParseSeed("c2hvcnQ="); err == nil {
		t.Fatal("a short seed was accepted")
	}
	ctx := context.Background()
	k := keyring(t, ctx, &testkit.Clock{}, auth.KeyringOptions{Seed: seed})
	tok, _, err := k.Issue(ctx, uuid.New(), uuid.New(), uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	// Verify with nothing but the public key of the seed: the token is EdDSA with a kid.
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if err := verifyEdDSA(tok, pub); err != nil {
		t.Fatal(err)
	}
}
