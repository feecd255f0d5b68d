// Package coverage records which operations and documented (operation, status) pairs the
// tests observed, and reports them against the contract.
package coverage

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/certhub/credentiald/openapi"
)

// Observation is one validated answer.
type Observation struct {
	OperationID string `json:"operationId"`
	Status      string `json:"status"` // the documented key it matched: "200", "2XX", "default"
}

var (
	mu       sync.Mutex
	observed = map[Observation]bool{}
)

// Record notes one validated answer.
func Record(o Observation) {
	mu.Lock()
	observed[o] = true
	mu.Unlock()
}

// DefaultDir is where test processes write what they observed: .data/contract-coverage at the
// module root, or $CONTRACT_COVERAGE_DIR.
func DefaultDir() string {
	if d := os.Getenv("CONTRACT_COVERAGE_DIR"); d != "" {
		return d
	}
	return filepath.Join(ModuleRoot(), ".data", "contract-coverage")
}

// ModuleRoot is the nearest folder above the working directory holding go.mod (tests run in
// their package's folder), or the working directory itself.
func ModuleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return dir
}

// Flush writes this process's observations to a file of its own in dir.
func Flush(dir string) error {
	mu.Lock()
	list := make([]Observation, 0, len(observed))
	for o := range observed {
		list = append(list, o)
	}
	mu.Unlock()
	if len(list) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "observed-*.json")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Report reads every file in dir and compares it with the document.
func Report(dir string) (string, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		return "", err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "observed-*.json"))
	seen := map[Observation]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		var list []Observation
		if err := json.Unmarshal(b, &list); err != nil {
			return "", fmt.Errorf("%s: %w", f, err)
		}
		for _, o := range list {
			seen[o] = true
		}
	}
	var ops, missingOps, missingResp []string
	documented, hit, opsHit := 0, 0, 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, op.OperationID)
			opSeen := false
			for status := range op.Responses.Map() {
				documented++
				if seen[Observation{op.OperationID, status}] {
					hit++
					opSeen = true
				} else {
					missingResp = append(missingResp, fmt.Sprintf("%s %s", op.OperationID, status))
				}
			}
			if opSeen {
				opsHit++
			} else {
				missingOps = append(missingOps, fmt.Sprintf("%s (%s %s)", op.OperationID, method, path))
			}
		}
	}
	sort.Strings(missingOps)
	sort.Strings(missingResp)
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d operations, %d of %d documented responses\n", opsHit, len(ops), hit, documented)
	if len(files) == 0 {
		fmt.Fprintf(&b, "(no observations in %s: run `make test` first)\n", dir)
	}
	if len(missingOps) > 0 {
		fmt.Fprintf(&b, "operations never observed:\n  %s\n", strings.Join(missingOps, "\n  "))
	}
	if os.Getenv("VERBOSE") != "" && len(missingResp) > 0 {
		fmt.Fprintf(&b, "responses never observed:\n  %s\n", strings.Join(missingResp, "\n  "))
	}
	return b.String(), nil
}
