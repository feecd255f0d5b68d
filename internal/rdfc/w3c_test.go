package rdfc

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piprate/json-gold/ld"
)

// suite is the W3C RDFC-1.0 test suite's data (testdata/rdf-canon, copied from w3c/rdf-canon's
// tests/ at the Recommendation; LICENCE.md beside it).
const suite = "testdata/rdf-canon"

type manifestEntry struct {
	ID, Type, Name, Action, Result string
	HashAlgorithm                  string
}

func readManifest(t testing.TB) []manifestEntry {
	t.Helper()
	var m struct{ Entries []manifestEntry }
	b, err := os.ReadFile(filepath.Join(suite, "manifest.jsonld"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Entries
}

// readQuads parses one of the suite's N-Quads files with json-gold's parser.
func readQuads(t testing.TB, name string) []Quad {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(suite, name))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ld.ParseNQuads(string(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	quads, err := FromRDFDataset(ds)
	if err != nil {
		t.Fatal(err)
	}
	return quads
}

func entryOptions(e manifestEntry) Options {
	switch e.HashAlgorithm {
	case "SHA384":
		return Options{Hash: crypto.SHA384}
	case "SHA512":
		return Options{Hash: crypto.SHA512}
	}
	return Options{}
}

// Every test of the suite passes under the default limits: the evaluation tests' canonical
// N-Quads byte for byte, the map tests' issued identifiers, and the negative test (the
// 10-node clique) refused by the work limit.
func TestW3CSuite(t *testing.T) {
	t.Parallel()
	entries := readManifest(t)
	if len(entries) != 86 {
		t.Fatalf("%d entries in the manifest, want 86", len(entries))
	}
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Type]++
		t.Run(strings.TrimPrefix(e.ID, "#"), func(t *testing.T) {
			t.Parallel()
			quads := readQuads(t, e.Action)
			got, err := Canonicalize(context.Background(), quads, entryOptions(e))
			switch e.Type {
			case "rdfc:RDFC10NegativeEvalTest":
				var limit *LimitError
				if !errors.As(err, &limit) || !limit.Work() {
					t.Fatalf("%s: %v, want a work limit", e.Name, err)
				}
				return
			case "rdfc:RDFC10EvalTest":
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				want, err := os.ReadFile(filepath.Join(suite, e.Result))
				if err != nil {
					t.Fatal(err)
				}
				if got.NQuads != string(want) {
					t.Fatalf("%s:\n%s\nwant:\n%s", e.Name, got.NQuads, want)
				}
			case "rdfc:RDFC10MapTest":
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				var want map[string]string
				b, err := os.ReadFile(filepath.Join(suite, e.Result))
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, &want); err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(got.IssuedIdentifiers, want) {
					t.Fatalf("%s: issued %v, want %v", e.Name, got.IssuedIdentifiers, want)
				}
			default:
				t.Fatalf("unknown test type %s", e.Type)
			}
		})
	}
	if counts["rdfc:RDFC10EvalTest"] != 64 || counts["rdfc:RDFC10MapTest"] != 21 || counts["rdfc:RDFC10NegativeEvalTest"] != 1 {
		t.Fatalf("test types: %v", counts)
	}
}
