package rdfc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/piprate/json-gold/ld"
)

// FuzzCanonicalFormIsStable checks what makes a canonical form one, on any dataset json-gold's
// parser reads: the same dataset with its quads in another order and its blank nodes named
// otherwise canonicalizes to the same N-Quads, and the canonical form canonicalizes to itself.
// Seeded with every input of the W3C suite.
func FuzzCanonicalFormIsStable(f *testing.F) {
	inputs, err := filepath.Glob(filepath.Join(suite, "rdfc10", "*-in.nq"))
	if err != nil || len(inputs) == 0 {
		f.Fatalf("the suite's inputs: %v", err)
	}
	for _, name := range inputs {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	opts := Options{MaxHashNDegreeCalls: 200, MaxSteps: 2_000}
	f.Fuzz(func(t *testing.T, nquads string) {
		ds, err := ld.ParseNQuads(nquads)
		if err != nil {
			return
		}
		quads, err := FromRDFDataset(ds)
		if err != nil {
			return
		}
		first, err := Canonicalize(context.Background(), quads, opts)
		if errors.Is(err, ErrInvalidDataset) {
			return
		}
		renamed := slices.Clone(quads)
		slices.Reverse(renamed)
		rename := func(t Term) Term {
			if t.Kind == KindBlankNode {
				t.Value = "x" + t.Value
			}
			return t
		}
		for i, q := range renamed {
			renamed[i] = Quad{Subject: rename(q.Subject), Predicate: q.Predicate, Object: rename(q.Object), Graph: rename(q.Graph)}
		}
		second, err2 := Canonicalize(context.Background(), renamed, opts)
		if errors.Is(err, ErrLimit) || errors.Is(err2, ErrLimit) {
			// The work done may differ with the names (they order the permutations tried, and
			// so what is cut short), so near a limit one naming may pass where another does not.
			return
		}
		if err != nil || err2 != nil {
			t.Fatalf("%v, then %v", err, err2)
		}
		if second.NQuads != first.NQuads {
			t.Fatalf("reordered and renamed:\n%s\nfirst:\n%s", second.NQuads, first.NQuads)
		}
		again, err := ld.ParseNQuads(first.NQuads)
		if err != nil {
			t.Fatalf("the canonical form does not parse: %v\n%s", err, first.NQuads)
		}
		quads, err = FromRDFDataset(again)
		if err != nil {
			t.Fatal(err)
		}
		third, err := Canonicalize(context.Background(), quads, opts)
		if err != nil || third.NQuads != first.NQuads {
			t.Fatalf("the canonical form canonicalizes to\n%s\n%v", third.NQuads, err)
		}
	})
}
