package auth

import (
	"context"
	"strings"
	"testing"
)

func TestPasswordHashVerifiesOnlyTheRightPassword(t *testing.T) {
	ctx := context.Background()
	hash, err := HashPassword(ctx, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(hash, "horse") {
		t.Fatalf("hash %q", hash)
	}
	if ok, err := VerifyPassword(ctx, "correct horse battery", hash); err != nil || !ok {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, _ := VerifyPassword(ctx, "correct horse batterY", hash); ok {
		t.Fatal("wrong password accepted")
	}
	other, _ := HashPassword(ctx, "correct horse battery")
	if other == hash {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	if _, err := VerifyPassword(ctx, "x", "$argon2id$garbage"); err == nil {
		t.Fatal("a malformed hash verified")
	}
}
