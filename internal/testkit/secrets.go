package testkit

import (
	"crypto/rand"
	"testing"

	"github.com/certhub/credentiald/internal/secretbox"
)

// SecretsKey returns a new random key for the secrets at rest.
func SecretsKey() []byte {
	k := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(k)
	return k
}

// SecretBox returns a box under a new random key.
func SecretBox(t testing.TB) *secretbox.Box {
	t.Helper()
	b, err := secretbox.New(SecretsKey())
	if err != nil {
		t.Fatal(err)
	}
	return b
}
