// Package memory keeps the process's soft memory limit above what the service's caches hold.
//
// The service sets a soft limit when the operator sets none (app.RuntimeDefaults): with GOGC
// at 400 the heap may otherwise grow to five times what is live. But the caches (the
// renderer's images, the rendered previews and PDFs, the badges' images) may hold some 300 MiB
// between them by their budgets, and a limit under what is live makes the collector run
// without pause. So the limit the service manages is a base, the room for garbage, plus what
// the caches hold now: every cache reports what it keeps and forgets (Hold), and the limit
// moves with it.
package memory

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
)

var (
	mu   sync.Mutex
	held atomic.Int64
	base int64 // 0: the limit is not the service's to manage
)

// Hold records that the caches keep n bytes more (fewer, when n is negative), and moves the
// soft limit with them when the service manages it.
func Hold(n int64) {
	mu.Lock()
	defer mu.Unlock()
	h := held.Add(n)
	if base > 0 {
		debug.SetMemoryLimit(base + h)
	}
}

// Held is what the caches keep, in bytes.
func Held() int64 { return held.Load() }

// Manage makes the soft limit b plus what the caches keep, from now on, and answers the limit
// there was; Manage(0) stops moving it (and leaves it as it is).
func Manage(b int64) (previous int64) {
	mu.Lock()
	defer mu.Unlock()
	base = b
	if b <= 0 {
		return debug.SetMemoryLimit(-1)
	}
	return debug.SetMemoryLimit(b + held.Load())
}
