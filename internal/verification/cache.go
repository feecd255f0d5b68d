package verification

import (
	"container/list"
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/certhub/credentiald/internal/memory"
)

// renderCache keeps rendered certificates (a PNG page or a PDF costs far more time and memory than
// the lookup that asks for it) up to a budget of bytes, least recently used out first. Concurrent
// requests for one missing entry render it once; renders run at most one per core at a time, so
// that a burst of link unfurlers cannot exhaust memory.
type renderCache struct {
	budget int
	slots  chan struct{}

	mu       sync.Mutex
	used     int
	order    *list.List // of *cacheEntry, most recent first
	entries  map[string]*list.Element
	inflight map[string]*renderCall
}

type cacheEntry struct {
	key  string
	body []byte
}

type renderCall struct {
	done chan struct{}
	body []byte
	err  error
}

func newRenderCache(budget int) *renderCache {
	return &renderCache{budget: budget, slots: make(chan struct{}, runtime.GOMAXPROCS(0)), order: list.New(),
		entries: map[string]*list.Element{}, inflight: map[string]*renderCall{}}
}

// get returns the bytes under key, calling render when they are not kept.
func (c *renderCache) get(ctx context.Context, key string, render func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cacheEntry).body, nil
	}
	if call, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		select {
		case <-call.done:
			return call.body, call.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	call := &renderCall{done: make(chan struct{})}
	c.inflight[key] = call
	c.mu.Unlock()

	finished := false
	defer func() {
		if !finished { // render panicked: the waiters get an error, and the panic goes on
			call.body, call.err = nil, errRenderPanicked
			c.finish(key, call)
		}
	}()
	select {
	case c.slots <- struct{}{}:
		func() {
			defer func() { <-c.slots }() // the slot is given back whatever render does
			call.body, call.err = render()
		}()
	case <-ctx.Done():
		call.err = ctx.Err()
	}
	c.finish(key, call)
	finished = true
	return call.body, call.err
}

var errRenderPanicked = errors.New("verification: rendering panicked")

// finish ends the call under key: it keeps a successful answer (within the budget, the least
// recently used going first), forgets the call and wakes its waiters.
func (c *renderCache) finish(key string, call *renderCall) {
	c.mu.Lock()
	delete(c.inflight, key)
	if call.err == nil && len(call.body) <= c.budget/4 {
		c.entries[key] = c.order.PushFront(&cacheEntry{key: key, body: call.body})
		c.used += len(call.body)
		memory.Hold(int64(len(call.body)))
		for c.used > c.budget {
			last := c.order.Back()
			e := last.Value.(*cacheEntry)
			c.order.Remove(last)
			delete(c.entries, e.key)
			c.used -= len(e.body)
			memory.Hold(-int64(len(e.body)))
		}
	}
	c.mu.Unlock()
	close(call.done)
}
