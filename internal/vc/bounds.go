package vc

import (
	"errors"
	"fmt"

	"github.com/certhub/credentiald/internal/rdfc"
)

// A JSON-LD document from outside (a holder's DID authentication, a credential to verify) is
// bounded before any work that grows faster than its size: its bytes, the depth of its JSON,
// its JSON values and objects, read before expansion (only the shipped contexts load, so
// nothing is fetched); then, after JSON-LD expansion and RDF conversion, its quads and blank
// nodes; then the canonicalizer's own count of its Hash N-Degree Quads work (RDFC-1.0 §4.4.3).
// Each bound is far above what the documents it guards hold, and far below what makes the
// work noticeable: a document over one is refused in milliseconds, the JSON bounds before
// any JSON-LD work and the work limit before the work grows.
// docs/decisions/bounded-canonicalization.md says why each is what it is.
type bounds struct {
	maxBytes, maxDepth, maxValues int // 0: not checked (what this service signs)
	// maxObjects counts the JSON objects outside @context and the proof: each object without
	// an id is a blank node.
	maxObjects int
	canon      rdfc.Options
}

// The bounds of each kind of document.
var (
	// ownBounds: what this service signs, which it built itself; the canonicalizer's default
	// limits still hold (a bug must not spin).
	ownBounds = bounds{}
	// presentationBounds: a holder's DID authentication holds a holder and a proof, about 15
	// JSON values, 2 to 10 quads and one blank node.
	presentationBounds = bounds{maxBytes: MaxPresentationBytes, maxDepth: 8, maxValues: 128, maxObjects: maxPresentationObjects,
		canon: rdfc.Options{MaxQuads: 64, MaxBlankNodes: 16}}
	// credentialBounds: a credential from outside. Ours hold about a hundred quads and a few
	// blank nodes; the W3C suites' about as many.
	credentialBounds = bounds{maxBytes: MaxCredentialBytes, maxDepth: 32, maxValues: 10_000,
		canon: rdfc.Options{MaxQuads: 2_048, MaxBlankNodes: 256}}
)

// MaxCredentialBytes bounds a credential verified from outside (VerifyDataIntegrity).
const MaxCredentialBytes = 256 << 10

// ErrOverBound matches every *BoundError (errors.Is).
var ErrOverBound = errors.New("vc: over a bound")

// BoundError says that a document from outside went over a bound on the work its verification
// may take: it was refused there, before its signature was checked. Its message names the
// bound.
type BoundError struct {
	Bound string // what was counted: "bytes", "JSON values", "quads", "Hash N-Degree Quads calls", ...
	Max   int
	// Limit is the canonicalizer's limit that stopped the document (its quads, blank nodes or
	// work), nil for the bounds on the JSON text.
	Limit *rdfc.LimitError
}

func (e *BoundError) Error() string {
	s := fmt.Sprintf("over the bound of %d %s", e.Max, e.Bound)
	if e.Limit != nil && e.Limit.Work() {
		s += " (a poison dataset: RDFC-1.0 canonicalization stopped)"
	}
	return s
}

// Is makes errors.Is(err, ErrOverBound) true.
func (e *BoundError) Is(target error) bool { return target == ErrOverBound }

// Unwrap gives the canonicalizer's error, if it stopped.
func (e *BoundError) Unwrap() error {
	if e.Limit == nil {
		return nil
	}
	return e.Limit
}

// checkSize is the first bound, before the JSON text is decoded.
func (b bounds) checkSize(doc []byte) error {
	if b.maxBytes > 0 && len(doc) > b.maxBytes {
		return &BoundError{Bound: "bytes", Max: b.maxBytes}
	}
	return nil
}

// checkShape bounds a decoded JSON document before JSON-LD expansion: its values (every
// object, array, string, number, boolean and null, @context's included), the depth of its
// objects and arrays, and its objects outside @context and "proof" (what becomes blank nodes).
// The walk stops at the bound of values, so its own work is bounded; the bound it reports does
// not depend on the order of a map's members: values first, then depth, then objects.
func (b bounds) checkShape(doc map[string]any) error {
	values, depth, objects := 0, 0, 0
	var walk func(v any, level int, counted bool) bool
	walk = func(v any, level int, counted bool) bool {
		if values++; b.maxValues > 0 && values > b.maxValues {
			return false
		}
		switch v := v.(type) {
		case map[string]any:
			depth = max(depth, level+1)
			if counted {
				objects++
			}
			for k, e := range v {
				if !walk(e, level+1, counted && k != "@context" && (level > 0 || k != "proof")) {
					return false
				}
			}
		case []any:
			depth = max(depth, level+1)
			for _, e := range v {
				if !walk(e, level+1, counted) {
					return false
				}
			}
		}
		return true
	}
	switch {
	case !walk(doc, 0, true):
		return &BoundError{Bound: "JSON values", Max: b.maxValues}
	case b.maxDepth > 0 && depth > b.maxDepth:
		return &BoundError{Bound: "levels of JSON nesting", Max: b.maxDepth}
	case b.maxObjects > 0 && objects > b.maxObjects:
		return &BoundError{Bound: "JSON objects (outside @context and the proof)", Max: b.maxObjects}
	}
	return nil
}
