package rdfc

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/piprate/json-gold/ld"
)

// Kind says what a term is. The zero Kind, in a quad's graph, is the default graph.
type Kind uint8

// The kinds of terms.
const (
	KindIRI Kind = iota + 1
	KindBlankNode
	KindLiteral
)

// Term is one component of a quad.
type Term struct {
	Kind Kind
	// Value is the IRI, the blank node identifier (without "_:"), or the literal's lexical form.
	Value string
	// Datatype is a literal's datatype IRI; "" means xsd:string. A literal with a Language is
	// an rdf:langString whatever Datatype says.
	Datatype string
	Language string
}

// Quad is a subject, predicate, object and graph name; a Graph of the zero Kind is the
// default graph.
type Quad struct {
	Subject, Predicate, Object, Graph Term
}

// IRI is the term of an IRI.
func IRI(v string) Term { return Term{Kind: KindIRI, Value: v} }

// BlankNode is the term of a blank node, its identifier without "_:".
func BlankNode(id string) Term { return Term{Kind: KindBlankNode, Value: id} }

// Literal is the term of a literal; datatype "" is xsd:string.
func Literal(v, datatype, lang string) Term {
	return Term{Kind: KindLiteral, Value: v, Datatype: datatype, Language: lang}
}

// The datatypes canonical N-Quads writes without a datatype (xsd:string) or as a language tag.
const (
	xsdString    = "http://www.w3.org/2001/XMLSchema#string"
	rdfLangStrng = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
)

// ErrInvalidDataset says that a quad is not one RDFC-1.0 can canonicalize: a term of a kind its
// position does not take, an empty blank node identifier, or text that is not valid UTF-8
// (canonical N-Quads is UTF-8; invalid bytes would have no canonical form).
var ErrInvalidDataset = errors.New("rdfc: invalid dataset")

func (q Quad) validate() error {
	for _, c := range []struct {
		name  string
		t     Term
		kinds []Kind
	}{
		{"subject", q.Subject, []Kind{KindIRI, KindBlankNode}},
		{"predicate", q.Predicate, []Kind{KindIRI}},
		{"object", q.Object, []Kind{KindIRI, KindBlankNode, KindLiteral}},
		{"graph", q.Graph, []Kind{0, KindIRI, KindBlankNode}},
	} {
		if !slices.Contains(c.kinds, c.t.Kind) {
			return fmt.Errorf("%w: a %s of kind %d", ErrInvalidDataset, c.name, c.t.Kind)
		}
		if c.t.Kind == KindBlankNode && c.t.Value == "" {
			return fmt.Errorf("%w: a blank node %s without an identifier", ErrInvalidDataset, c.name)
		}
		if !utf8.ValidString(c.t.Value) || !utf8.ValidString(c.t.Datatype) || !utf8.ValidString(c.t.Language) {
			return fmt.Errorf("%w: the %s is not valid UTF-8", ErrInvalidDataset, c.name)
		}
	}
	return nil
}

// FromRDFDataset converts json-gold's dataset (its ToRDF or N-Quads parser's output) into
// quads: the default graph first, then the named graphs in the order of their names, so that
// the order (which decides only between automorphic blank nodes) does not depend on Go's map
// order.
func FromRDFDataset(ds *ld.RDFDataset) ([]Quad, error) {
	names := make([]string, 0, len(ds.Graphs))
	for name := range ds.Graphs {
		if name != "@default" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if _, ok := ds.Graphs["@default"]; ok {
		names = append([]string{"@default"}, names...)
	}
	total := 0
	for _, name := range names {
		total += len(ds.Graphs[name])
	}
	out := make([]Quad, 0, total)
	for _, name := range names {
		for _, q := range ds.Graphs[name] {
			s, err := fromNode(q.Subject)
			if err != nil {
				return nil, err
			}
			p, err := fromNode(q.Predicate)
			if err != nil {
				return nil, err
			}
			o, err := fromNode(q.Object)
			if err != nil {
				return nil, err
			}
			var g Term
			if name != "@default" {
				// json-gold keys a graph by its name and sets Quad.Graph only for named graphs.
				if strings.HasPrefix(name, "_:") {
					g = BlankNode(name[2:])
				} else {
					g = IRI(name)
				}
			}
			out = append(out, Quad{Subject: s, Predicate: p, Object: o, Graph: g})
		}
	}
	return out, nil
}

func fromNode(n ld.Node) (Term, error) {
	switch n := n.(type) {
	case ld.IRI:
		return IRI(n.Value), nil
	case ld.BlankNode:
		return BlankNode(strings.TrimPrefix(n.Attribute, "_:")), nil
	case ld.Literal:
		if n.Datatype == rdfLangStrng || n.Language != "" {
			return Literal(n.Value, rdfLangStrng, n.Language), nil
		}
		return Literal(n.Value, n.Datatype, ""), nil
	}
	return Term{}, fmt.Errorf("%w: json-gold node %T", ErrInvalidDataset, n)
}
