package app

import (
	"runtime/debug"
	"testing"

	"github.com/certhub/credentiald/internal/config"
)

// Unset, GOGC and GOMEMLIMIT take the service's defaults; set, the operator's stay; restore
// puts back what there was.
func TestRuntimeDefaultsLeaveTheOperatorsSettings(t *testing.T) {
	before, beforeGC := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(beforeGC)

	restore := RuntimeDefaults(config.Config{})
	limit, gc := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(gc)
	if limit != defaultMemoryLimit || gc != defaultGOGC {
		t.Errorf("unset: limit %d, GOGC %d; want %d, %d", limit, gc, defaultMemoryLimit, defaultGOGC)
	}
	restore()
	if limit, gc := debug.SetMemoryLimit(-1), debug.SetGCPercent(beforeGC); limit != before || gc != beforeGC {
		t.Errorf("restored: limit %d, GOGC %d; want %d, %d", limit, gc, before, beforeGC)
	}

	restore = RuntimeDefaults(config.Config{GOGCSet: true, GOMEMLIMITSet: true})
	limit, gc = debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(gc)
	restore()
	if limit != before || gc != beforeGC {
		t.Errorf("set by the operator: limit %d, GOGC %d; want theirs, %d, %d", limit, gc, before, beforeGC)
	}
}
