package secretbox

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"
)

func key(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealedSecretsOpenOnlyWhereTheyBelong(t *testing.T) {
	k1, k2 := key(t), key(t)
	old, _ := New(k1)
	sealed, err := old.Seal([]byte("whsec_secret"), []byte("webhook:1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("whsec_secret")) {
		t.Fatal("the sealed value holds the secret in clear")
	}
	again, _ := old.Seal([]byte("whsec_secret"), []byte("webhook:1"))
	if bytes.Equal(sealed, again) {
		t.Fatal("two seals of one secret are equal: the nonce is not random")
	}
	if got, err := old.Open(sealed, []byte("webhook:1")); err != nil || string(got) != "whsec_secret" {
		t.Fatalf("open: %q %v", got, err)
	}
	// Bound to its place: another row's associated data does not open it.
	if _, err := old.Open(sealed, []byte("webhook:2")); !errors.Is(err, ErrOpen) {
		t.Fatalf("opened for another place: %v", err)
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	if _, err := old.Open(tampered, []byte("webhook:1")); !errors.Is(err, ErrOpen) {
		t.Fatalf("opened an altered value: %v", err)
	}

	// Rotation: the new box seals under k2 and still opens what k1 sealed.
	rotated, _ := New(k2, k1)
	if got, err := rotated.Open(sealed, []byte("webhook:1")); err != nil || string(got) != "whsec_secret" {
		t.Fatalf("open after rotation: %q %v", got, err)
	}
	if rotated.Current(sealed) {
		t.Fatal("a value sealed under the previous key counts as current")
	}
	resealed, _ := rotated.Seal([]byte("whsec_secret"), []byte("webhook:1"))
	if !rotated.Current(resealed) {
		t.Fatal("a new seal is not under the current key")
	}
	if _, err := old.Open(resealed, []byte("webhook:1")); !errors.Is(err, ErrOpen) {
		t.Fatalf("the old box opened a value sealed under the new key: %v", err)
	}
	for _, bad := range [][]byte{nil, {1}, {2, 0, 0, 0, 0}, append([]byte{1}, sealed[1:12]...)} {
		if _, err := rotated.Open(bad, nil); !errors.Is(err, ErrOpen) {
			t.Fatalf("%x: %v", bad, err)
		}
	}
	if _, err := New(make([]byte, 16)); err == nil {
		t.Fatal("a 16-byte key was accepted")
	}
}

func TestKeyedHashesFindAValueAcrossARotation(t *testing.T) {
	k1, k2 := key(t), key(t)
	old, _ := New(k1)
	rotated, _ := New(k2, k1)
	h := old.KeyedHash([]byte("token"), "wallet offer")
	if bytes.Equal(h, old.KeyedHash([]byte("token"), "other purpose")) {
		t.Fatal("one hash for two purposes")
	}
	if bytes.Equal(h, old.KeyedHash([]byte("tokeN"), "wallet offer")) {
		t.Fatal("one hash for two values")
	}
	hs := rotated.KeyedHashes([]byte("token"), "wallet offer")
	if len(hs) != 2 || !bytes.Equal(hs[1], h) || bytes.Equal(hs[0], h) || !bytes.Equal(hs[0], rotated.KeyedHash([]byte("token"), "wallet offer")) {
		t.Fatal("after a rotation, the hashes are not the new key's then the old key's")
	}
	other, _ := New(key(t))
	if bytes.Equal(other.KeyedHash([]byte("token"), "wallet offer"), h) {
		t.Fatal("another key gives the same hash: it is not keyed")
	}
}
