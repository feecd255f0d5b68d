package spec

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/certhub/credentiald/openapi"
)

// PatternDescriptionKey is the extension that says in words what a schema's `pattern`
// accepts; a refused value is told "must be <description>", never the regular expression.
const PatternDescriptionKey = "x-pattern-description"

var (
	patternsOnce sync.Once
	patterns     map[string]string
	patternsErr  error
)

// PatternDescriptions maps every `pattern` of the contract to its x-pattern-description. The
// error names a pattern without a description, or one described in two ways: the validator
// finds a description by the pattern alone, so equal patterns must mean the same.
func PatternDescriptions() (map[string]string, error) {
	patternsOnce.Do(func() {
		var doc any
		if patternsErr = json.Unmarshal(openapi.Document, &doc); patternsErr != nil {
			return
		}
		patterns = map[string]string{}
		patternsErr = collectPatterns(doc, patterns)
	})
	return patterns, patternsErr
}

func collectPatterns(node any, out map[string]string) error {
	switch n := node.(type) {
	case map[string]any:
		if p, ok := n["pattern"].(string); ok {
			d, _ := n[PatternDescriptionKey].(string)
			if d == "" {
				return fmt.Errorf("pattern %q has no %s", p, PatternDescriptionKey)
			}
			if prev, seen := out[p]; seen && prev != d {
				return fmt.Errorf("pattern %q is described both as %q and as %q", p, prev, d)
			}
			out[p] = d
		}
		for _, v := range n {
			if err := collectPatterns(v, out); err != nil {
				return err
			}
		}
	case []any:
		for _, v := range n {
			if err := collectPatterns(v, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// PatternMessage tells what a value refused by pattern should be, in words.
func PatternMessage(pattern string) string {
	d, _ := PatternDescriptions()
	if desc := d[pattern]; desc != "" {
		return "must be " + desc
	}
	return "does not have the expected form"
}
