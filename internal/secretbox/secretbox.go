// Package secretbox keeps secrets at rest encrypted with AES-256-GCM under a key from
// configuration: webhook signing secrets, TOTP secrets and issuer keys, which the service must
// read back in clear (to sign, to check a code), so a hash will not do.
//
// A sealed value is: version (1 byte), the key's id (the first 4 bytes of SHA-256 of the key),
// a random 96-bit nonce, and the ciphertext with its tag. The key id lets a box hold the
// previous keys during a rotation: values sealed under any of them open, new values are sealed
// under the current one. Associated data binds a value to its place (for example
// "webhook:<id>"), so that a ciphertext copied to another row does not open there.
package secretbox

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

const version = 1

// KeySize is the size of a key: AES-256.
const KeySize = 32

// ErrOpen says a value could not be opened: sealed under a key the box does not hold, altered,
// or bound to other associated data.
var ErrOpen = errors.New("secretbox: cannot open the value (unknown key, altered, or sealed for another place)")

// Box seals under its current key and opens under any key it holds.
type Box struct {
	current [4]byte
	aeads   map[[4]byte]cipher.AEAD
	// hashKeys are the keys of KeyedHashes, derived from each key, the current first.
	hashKeys [][]byte
}

// New returns a box that seals under key and also opens values sealed under previous keys.
func New(key []byte, previous ...[]byte) (*Box, error) {
	b := &Box{aeads: map[[4]byte]cipher.AEAD{}}
	for i, k := range append([][]byte{key}, previous...) {
		if len(k) != KeySize {
			return nil, fmt.Errorf("secretbox: a key must be %d bytes, key %d has %d", KeySize, i, len(k))
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		id := KeyID(k)
		if i == 0 {
			b.current = id
		}
		b.aeads[id] = aead
		// A key of its own for hashing, so that no hash is ever computed under the AES key.
		derive := hmac.New(sha256.New, k)
		derive.Write([]byte("credentiald secretbox keyed hash v1"))
		b.hashKeys = append(b.hashKeys, derive.Sum(nil))
	}
	return b, nil
}

// KeyID is the id a sealed value names its key by.
func KeyID(key []byte) [4]byte {
	sum := sha256.Sum256(key)
	return [4]byte(sum[:4])
}

// Seal encrypts plaintext bound to associated.
func (b *Box) Seal(plaintext, associated []byte) ([]byte, error) {
	aead := b.aeads[b.current]
	out := make([]byte, 0, 1+4+aead.NonceSize()+len(plaintext)+aead.Overhead())
	out = append(out, version)
	out = append(out, b.current[:]...)
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plaintext, associated), nil
}

// Open decrypts a sealed value bound to associated.
func (b *Box) Open(sealed, associated []byte) ([]byte, error) {
	if len(sealed) < 5 || sealed[0] != version {
		return nil, ErrOpen
	}
	aead, ok := b.aeads[[4]byte(sealed[1:5])]
	if !ok || len(sealed) < 5+aead.NonceSize()+aead.Overhead() {
		return nil, ErrOpen
	}
	nonce := sealed[5 : 5+aead.NonceSize()]
	plain, err := aead.Open(nil, nonce, sealed[5+aead.NonceSize():], associated)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// Current reports whether a sealed value is sealed under the current key (a rotation reseals
// those that are not).
func (b *Box) Current(sealed []byte) bool {
	return len(sealed) >= 5 && sealed[0] == version && bytes.Equal(sealed[1:5], b.current[:])
}

// KeyedHash is the HMAC-SHA256 of value for purpose under the current key: how a secret that
// must also be kept sealed (a wallet offer's token) is found without a plain digest that anyone
// holding the table could test guesses against.
func (b *Box) KeyedHash(value []byte, purpose string) []byte {
	return keyedHash(b.hashKeys[0], value, purpose)
}

// KeyedHashes is KeyedHash under every key the box holds, the current first: a value hashed
// before a rotation is still found.
func (b *Box) KeyedHashes(value []byte, purpose string) [][]byte {
	out := make([][]byte, len(b.hashKeys))
	for i, k := range b.hashKeys {
		out[i] = keyedHash(k, value, purpose)
	}
	return out
}

func keyedHash(key, value []byte, purpose string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(value)
	return m.Sum(nil)
}
