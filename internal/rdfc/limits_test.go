package rdfc

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"testing"
)

const (
	rdfFirst = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first"
	rdfRest  = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest"
	rdfNil   = "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil"
)

// listOfEqualItems is what JSON-LD makes of {"p": {"@list": ["a", "a", ...]}}: a chain of n
// blank nodes, all but the ends with the same first-degree hash.
func listOfEqualItems(n int) []Quad {
	quads := []Quad{{Subject: BlankNode("root"), Predicate: IRI("urn:example:p"), Object: BlankNode("l0")}}
	for i := range n {
		next := IRI(rdfNil)
		if i < n-1 {
			next = BlankNode(fmt.Sprintf("l%d", i+1))
		}
		node := BlankNode(fmt.Sprintf("l%d", i))
		quads = append(quads,
			Quad{Subject: node, Predicate: IRI(rdfFirst), Object: Literal("a", "", "")},
			Quad{Subject: node, Predicate: IRI(rdfRest), Object: next})
	}
	return quads
}

// clique is test074's shape: n blank nodes, each related to every one, itself included.
func clique(n int) []Quad {
	var quads []Quad
	for i := range n {
		for j := range n {
			quads = append(quads, Quad{Subject: BlankNode(fmt.Sprint("n", i)), Predicate: IRI("urn:example:p"), Object: BlankNode(fmt.Sprint("n", j))})
		}
	}
	return quads
}

func workLimit(t *testing.T, err error) *LimitError {
	t.Helper()
	var limit *LimitError
	if !errors.As(err, &limit) || !limit.Work() || !errors.Is(err, ErrLimit) {
		t.Fatalf("%v, want the work limit", err)
	}
	return limit
}

// The three computable poison graphs of the suite take 468 Hash N-Degree Quads calls and 9,060
// steps each (the figures docs/decisions/bounded-canonicalization.md gives): about half the
// default limits.
func TestTheComputablePoisonGraphsFitTheDefaultLimits(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"test044", "test045", "test046"} {
		got, err := Canonicalize(context.Background(), readQuads(t, "rdfc10/"+name+"-in.nq"), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := (Stats{HashNDegreeCalls: 468, Permutations: 2880, Steps: 9060}); got.Stats != want {
			t.Errorf("%s: %+v, want %+v", name, got.Stats, want)
		}
		if 2*got.Stats.HashNDegreeCalls > DefaultMaxHashNDegreeCalls || 2*got.Stats.Steps > DefaultMaxSteps {
			t.Errorf("%s: %+v leaves less than half the default limits", name, got.Stats)
		}
	}
}

// Each shape that makes blank nodes alike is stopped by the work counter, whichever of its two
// limits comes first: the clique (test074) and an @list of equal items, 800 and 7,000 long.
// Without the limits, the clique takes at least 3.6 million calls and the list of 800 hundreds
// of thousands, each call copying an issuer of hundreds of entries.
func TestPoisonShapesStopAtTheWorkLimit(t *testing.T) {
	t.Parallel()
	for name, quads := range map[string][]Quad{
		"test074 clique":      readQuads(t, "rdfc10/test074-in.nq"),
		"clique of 10":        clique(10),
		"@list of 800":        listOfEqualItems(800),
		"@list of 7,000":      listOfEqualItems(7000),
		"clique of 10, calls": clique(10),
	} {
		opts := Options{}
		if name == "clique of 10, calls" {
			opts.MaxSteps = 1 << 30 // then the calls stop it
		}
		_, err := Canonicalize(context.Background(), quads, opts)
		limit := workLimit(t, err)
		if name == "clique of 10, calls" && limit.Limit != LimitHashNDegreeCalls {
			t.Errorf("%s: stopped by %s", name, limit.Limit)
		}
	}
	// A short list is ordinary data: it canonicalizes with a call for each node inside it.
	got, err := Canonicalize(context.Background(), listOfEqualItems(5), Options{})
	if err != nil || got.Stats.HashNDegreeCalls > 20 {
		t.Fatalf("@list of 5: %+v %v", got.Stats, err)
	}
}

func TestSizeLimits(t *testing.T) {
	t.Parallel()
	quads := listOfEqualItems(10) // 21 quads, 11 blank nodes
	for _, c := range []struct {
		opts  Options
		limit Limit
		max   int
	}{
		{Options{MaxQuads: 20}, LimitQuads, 20},
		{Options{MaxBlankNodes: 10}, LimitBlankNodes, 10},
		{Options{MaxHashNDegreeCalls: 3}, LimitHashNDegreeCalls, 3},
		{Options{MaxSteps: 3}, LimitSteps, 3},
	} {
		_, err := Canonicalize(context.Background(), quads, c.opts)
		var limit *LimitError
		if !errors.As(err, &limit) || limit.Limit != c.limit || limit.Max != c.max {
			t.Errorf("%+v: %v, want over %d %s", c.opts, err, c.max, c.limit)
		}
	}
	if _, err := Canonicalize(context.Background(), quads, Options{MaxQuads: 21, MaxBlankNodes: 11}); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
}

func TestCanonicalizationStopsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Canonicalize(ctx, readQuads(t, "rdfc10/test044-in.nq"), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want context.Canceled", err)
	}
}

// Canonical N-Quads (Appendix A) escapes BS, HT, LF, FF, CR, '"' and '\' as ECHAR; the other
// C0 controls, DEL, U+FFFE and U+FFFF as \u with uppercase hex; and nothing else (json-gold
// wrote BS, FF, the other controls and DEL raw).
func TestLiteralsAreEscapedAsRDFC10Says(t *testing.T) {
	t.Parallel()
	in := "\b\t\n\f\r\"\\ \x00\x01\x07\x0b\x0e\x1f\x7f \ufffe\uffff é ∞ 😀 \u2028 \u0085 '"
	got, err := Canonicalize(context.Background(), []Quad{{Subject: IRI("urn:s"), Predicate: IRI("urn:p"), Object: Literal(in, "", "")}}, Options{})
	want := `<urn:s> <urn:p> "\b\t\n\f\r\"\\ \u0000\u0001\u0007\u000B\u000E\u001F\u007F \uFFFE\uFFFF é ∞ 😀 ` + "\u2028 \u0085 '\" .\n"
	if err != nil || got.NQuads != want {
		t.Fatalf("%q %v\nwant %q", got.NQuads, err, want)
	}
	typed := []Quad{
		{Subject: IRI("urn:s"), Predicate: IRI("urn:p"), Object: Literal("1", "http://www.w3.org/2001/XMLSchema#integer", "")},
		{Subject: IRI("urn:s"), Predicate: IRI("urn:p"), Object: Literal("x", "http://www.w3.org/2001/XMLSchema#string", "")},
		{Subject: IRI("urn:s"), Predicate: IRI("urn:p"), Object: Literal("y", rdfLangStrng, "en-GB")},
	}
	got, err = Canonicalize(context.Background(), typed, Options{})
	want = "<urn:s> <urn:p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<urn:s> <urn:p> \"x\" .\n<urn:s> <urn:p> \"y\"@en-GB .\n"
	if err != nil || got.NQuads != want {
		t.Fatalf("%q %v\nwant %q", got.NQuads, err, want)
	}
}

func TestInvalidDatasetsAreRefused(t *testing.T) {
	t.Parallel()
	s, p, o := IRI("urn:s"), IRI("urn:p"), IRI("urn:o")
	for name, q := range map[string]Quad{
		"literal subject":        {Subject: Literal("x", "", ""), Predicate: p, Object: o},
		"blank node predicate":   {Subject: s, Predicate: BlankNode("p"), Object: o},
		"literal graph":          {Subject: s, Predicate: p, Object: o, Graph: Literal("g", "", "")},
		"no object":              {Subject: s, Predicate: p},
		"empty blank node":       {Subject: BlankNode(""), Predicate: p, Object: o},
		"invalid UTF-8 literal":  {Subject: s, Predicate: p, Object: Literal("\xff", "", "")},
		"invalid UTF-8 IRI":      {Subject: s, Predicate: IRI("urn:\xc3"), Object: o},
		"invalid UTF-8 language": {Subject: s, Predicate: p, Object: Literal("x", rdfLangStrng, "e\xffn")},
	} {
		if _, err := Canonicalize(context.Background(), []Quad{q}, Options{}); !errors.Is(err, ErrInvalidDataset) {
			t.Errorf("%s: %v, want ErrInvalidDataset", name, err)
		}
	}
	if _, err := Canonicalize(context.Background(), nil, Options{Hash: crypto.MD5}); err == nil {
		t.Error("MD5 accepted")
	}
}
