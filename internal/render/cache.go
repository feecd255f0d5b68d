package render

import "sync"

// memo keeps what the renderer drew or decoded, by key, for the next document that needs the
// same (a template's background, its images, a seal): at most max entries, and when full it
// forgets them all, which bounds the memory that many distinct inputs can take; what was
// forgotten is drawn again on its next use.
type memo[K comparable, V any] struct {
	mu  sync.Mutex
	m   map[K]V
	max int
}

func newMemo[K comparable, V any](max int) *memo[K, V] { return &memo[K, V]{m: map[K]V{}, max: max} }

func (c *memo[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memo[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}

// clear forgets every entry (benchmarks draw anew with it).
func (c *memo[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}
