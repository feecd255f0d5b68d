// Package changecache keeps what was read from the database in memory until the database says
// it changed. A Cache is told of changes by its owner (changefeed.Watch's notices, from every
// instance, and the owner's own commits), and keeps nothing while those may go untold: before
// it is told Listening, and after Lost until the next Listening.
//
// A read that missed puts what it read only if nothing was forgotten since it began (Begin's
// generation): a change that committed while it read, whose notice came before its put, would
// otherwise be undone by the put.
package changecache

import (
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/certhub/credentiald/internal/store/changefeed"
)

// Cache keeps up to its size of values by key, the least recently used out first. The nil
// Cache keeps nothing: every method works on it and none keeps anything.
type Cache[K comparable, V any] struct {
	mu   sync.Mutex // held to change gen, live or the entries together
	gen  uint64
	live bool
	lru  *lru.Cache[K, V]
	// hits and misses count Get's answers, for the operator's metrics.
	hits, misses atomic.Uint64
}

// Stats are a cache's figures: Get's hits and misses so far, the values kept now, and whether
// it keeps (listening).
type Stats struct {
	Hits, Misses uint64
	Entries      int
	Listening    bool
}

// Stats reads the cache's figures now; the nil cache's are zero.
func (c *Cache[K, V]) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	live := c.live
	c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: c.lru.Len(), Listening: live}
}

// New returns a cache of size values; 0 or less: none (nil).
func New[K comparable, V any](size int) *Cache[K, V] {
	if size <= 0 {
		return nil
	}
	l, err := lru.New[K, V](size)
	if err != nil {
		panic(err) // only for a size below 1, excluded above
	}
	return &Cache[K, V]{lru: l}
}

// Get returns the value kept under k.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	if c == nil {
		var zero V
		return zero, false
	}
	v, ok := c.lru.Get(k)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return v, ok
}

// Begin is the generation a read that missed runs under; ok is false when nothing it reads
// may be kept.
func (c *Cache[K, V]) Begin() (gen uint64, ok bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen, c.live
}

// Put keeps what a read that began at gen read, unless something was forgotten since.
func (c *Cache[K, V]) Put(gen uint64, k K, v V) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live && c.gen == gen {
		c.lru.Add(k, v)
	}
}

// Update replaces the value kept under k by what f makes of it, when f says it changed: for
// what the owner itself wrote of a kept value and knows to be true of it.
func (c *Cache[K, V]) Update(k K, f func(V) (V, bool)) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.lru.Peek(k); ok {
		if v, changed := f(v); changed {
			c.lru.Add(k, v)
		}
	}
}

// Forget forgets the value under k, and any read under way.
func (c *Cache[K, V]) Forget(k K) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.lru.Remove(k)
}

// ForgetAll forgets every value, and any read under way.
func (c *Cache[K, V]) ForgetAll() { c.purge(nil) }

// Listening: changes are told from now on, so the cache may keep what is read.
func (c *Cache[K, V]) Listening() { live := true; c.purge(&live) }

// Lost: changes may go untold, so the cache forgets everything and keeps nothing until the
// next Listening.
func (c *Cache[K, V]) Lost() { live := false; c.purge(&live) }

// purge forgets every value and any read under way, and sets whether the cache keeps.
func (c *Cache[K, V]) purge(live *bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if live != nil {
		c.live = *live
	}
	c.lru.Purge()
}

// Watcher tells a cache what changefeed.Watch and the store's commits tell (it is a
// changefeed.Watcher): Listening and Lost as they are, and each change as Forgets reads it.
type Watcher[K comparable, V any] struct {
	Cache *Cache[K, V]
	// Forgets says what a change makes the cache forget: the value under key (one), every
	// value (all), or nothing.
	Forgets func(changefeed.Change) (key K, one, all bool)
}

func (w Watcher[K, V]) Listening() { w.Cache.Listening() }
func (w Watcher[K, V]) Lost(error) { w.Cache.Lost() }

func (w Watcher[K, V]) Changed(ch changefeed.Change) {
	switch key, one, all := w.Forgets(ch); {
	case all:
		w.Cache.ForgetAll()
	case one:
		w.Cache.Forget(key)
	}
}
