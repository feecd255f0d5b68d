package memory

import (
	"runtime/debug"
	"testing"
)

// Managed, the limit is the base plus what the caches keep, as they keep and forget; not
// managed, what they keep leaves the limit alone.
func TestTheLimitMovesWithTheCaches(t *testing.T) {
	before := Manage(100 << 20)
	t.Cleanup(func() { Manage(0); debug.SetMemoryLimit(before) })
	start := Held()
	if got := debug.SetMemoryLimit(-1); got != 100<<20+start {
		t.Fatalf("managed: limit %d, want %d", got, 100<<20+start)
	}
	Hold(30 << 20)
	if got := debug.SetMemoryLimit(-1); got != 130<<20+start {
		t.Errorf("caches keep 30 MiB more: limit %d", got)
	}
	Hold(-30 << 20)
	if got := debug.SetMemoryLimit(-1); got != 100<<20+start {
		t.Errorf("and forget them: limit %d", got)
	}
	Manage(0)
	Hold(10 << 20)
	defer Hold(-10 << 20)
	if got := debug.SetMemoryLimit(-1); got != 100<<20+start {
		t.Errorf("not managed: limit %d moved", got)
	}
}
