package auth

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/store"
)

// APIKeyCacheTTL is how long a verified API key is served from memory before the database is
// asked again. It bounds how long another instance keeps accepting a key deleted through
// this one: the instance that deletes a key forgets it at once, the others learn of it when
// their entry lapses. Nothing else about a key changes after it is created (scopes, account),
// and an entry never outlives the key's own expiry.
const APIKeyCacheTTL = 10 * time.Second

// maxCachedKeys bounds the memory: a full cache starts again.
const maxCachedKeys = 10_000

// keyCache remembers recently verified API keys by the SHA-256 of the key, so that a busy key
// costs no database round trip per request. Only keys found active are kept; an unknown or
// deleted key always goes to the database.
type keyCache struct {
	mu      sync.Mutex
	entries map[[32]byte]cachedKey
	// generation moves on every forget: a key read from the database before a delete and
	// put after it is not kept.
	generation uint64
}

type cachedKey struct {
	key   store.ActiveKey
	until time.Time
}

func newKeyCache() *keyCache { return &keyCache{entries: map[[32]byte]cachedKey{}} }

// get returns the cached key, or the generation to hand to put after reading it.
func (c *keyCache) get(hash []byte, now time.Time) (store.ActiveKey, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[[32]byte(hash)]
	if !ok || !now.Before(e.until) {
		return store.ActiveKey{}, c.generation, false
	}
	return e.key, c.generation, true
}

// put remembers a key read from the database for APIKeyCacheTTL (never past its expiry),
// unless a key was forgotten since get gave generation. A hit never extends an entry: every
// key is read from the database again at least every APIKeyCacheTTL.
func (c *keyCache) put(hash []byte, k store.ActiveKey, generation uint64, now time.Time) {
	until := now.Add(APIKeyCacheTTL)
	if k.ExpiresAt != nil && k.ExpiresAt.Before(until) {
		until = *k.ExpiresAt
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if generation != c.generation {
		return
	}
	h := [32]byte(hash)
	if _, ok := c.entries[h]; !ok && len(c.entries) >= maxCachedKeys {
		clear(c.entries)
	}
	c.entries[h] = cachedKey{key: k, until: until}
}

// touched records the use written to the database, keeping the entry's lapse.
func (c *keyCache) touched(hash []byte, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[[32]byte(hash)]; ok {
		e.key.LastUsedAt = &now
		c.entries[[32]byte(hash)] = e
	}
}

// forget drops the key id from the cache.
func (c *keyCache) forget(id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	for h, e := range c.entries {
		if e.key.ID == id {
			delete(c.entries, h)
		}
	}
}
