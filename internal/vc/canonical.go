package vc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"unicode/utf8"

	"github.com/piprate/json-gold/ld"

	"github.com/certhub/credentiald/internal/rdfc"
)

// ErrNotCanonicalizable says that a document holds something that some verifiers would
// canonicalize differently from others: a control character other than tab, line feed and
// carriage return, or a number that is not a safe integer; or something the canonical form
// would silently leave out: an id or type that no context makes an absolute IRI, or nothing at
// all. Callers refuse such text on input; this is the last guard before a signature.
var ErrNotCanonicalizable = errors.New("vc: document cannot be canonicalized reliably")

var defaultLoader = NewDocumentLoader()

// Canonicalize returns the RDFC-1.0 canonical N-Quads of a JSON-LD document (as decoded by
// encoding/json into maps, slices, strings, float64 and bools). Only the shipped contexts load.
// Expansion runs in safe mode: a property that no context defines is an error, not silently
// left out of what gets signed. It is for the documents this service makes: the canonicalizer
// runs under its default limits only, where VerifyDIDAuthentication and VerifyDataIntegrity
// hold documents from outside to tighter bounds.
func Canonicalize(doc any) (string, error) { return defaultLoader.canonicalize(doc, ownBounds) }

// canonicalize is the one path to canonical N-Quads, for what this service signs and for what
// it verifies from outside: json-gold expands the document and makes its RDF dataset; our own
// RDFC-1.0 (internal/rdfc) canonicalizes it under b's limits. The JSON shape bounds of b are the
// callers' to check first (checkShape), before any signature work.
func (l *DocumentLoader) canonicalize(doc any, b bounds) (string, error) {
	if _, ok := doc.(map[string]any); !ok {
		return "", fmt.Errorf("vc: canonicalize a %T, not a JSON object", doc)
	}
	if err := checkCanonicalizable(doc, "$"); err != nil {
		return "", err
	}
	opts := ld.NewJsonLdOptions("")
	opts.ProcessingMode = ld.JsonLd_1_1 // json-gold defaults to 1.0, which refuses @protected
	opts.DocumentLoader = l
	opts.SafeMode = true
	// The steps run one by one: expansion in safe mode, a check for the relative IRIs that RDF
	// conversion would silently drop (jsonld.js's safe mode refuses them too), RDF, then
	// RDFC-1.0 on the dataset. (json-gold's Normalize would not pass SafeMode on to its own
	// ToRDF step, and its URDNA2015 sets no limit on its work.)
	var expanded []any
	err := jsonGold("expansion", func() (err error) {
		expanded, err = ld.NewJsonLdProcessor().Expand(doc, opts)
		return err
	})
	if err != nil {
		return "", err
	}
	if err := checkAbsoluteIRIs(expanded); err != nil {
		return "", err
	}
	var dataset *ld.RDFDataset
	err = jsonGold("to RDF", func() (err error) {
		dataset, err = ld.NewJsonLdApi().ToRDF(expanded, opts)
		return err
	})
	if err != nil {
		return "", err
	}
	if n := datasetSize(dataset); b.canon.MaxQuads > 0 && n > b.canon.MaxQuads {
		// Refused before the dataset is converted: Canonicalize would refuse it first thing.
		limit := &rdfc.LimitError{Limit: rdfc.LimitQuads, Max: b.canon.MaxQuads}
		return "", &BoundError{Bound: string(limit.Limit), Max: limit.Max, Limit: limit}
	}
	quads, err := rdfc.FromRDFDataset(dataset)
	if err != nil {
		return "", fmt.Errorf("vc: JSON-LD to RDF: %w", err)
	}
	out, err := rdfc.Canonicalize(context.Background(), quads, b.canon)
	var limit *rdfc.LimitError
	if errors.As(err, &limit) {
		return "", &BoundError{Bound: string(limit.Limit), Max: limit.Max, Limit: limit}
	}
	if err != nil {
		return "", fmt.Errorf("vc: RDFC-1.0: %w", err)
	}
	if out.NQuads == "" {
		return "", fmt.Errorf("%w: it states nothing (no terms defined by its @context)", ErrNotCanonicalizable)
	}
	return out.NQuads, nil
}

// jsonGold runs one step of json-gold. It panics on some input it should refuse (an object
// without a type whose member "" holds a number: it reads that member as the type); a document
// from outside gets an error for it, not a 500, and the loader it reads is never written, so
// nothing is left half done.
func jsonGold(step string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: JSON-LD %s failed (%v)", ErrNotCanonicalizable, step, r)
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("vc: JSON-LD %s: %w", step, err)
	}
	return nil
}

func datasetSize(ds *ld.RDFDataset) int {
	n := 0
	for _, quads := range ds.Graphs {
		n += len(quads)
	}
	return n
}

// checkAbsoluteIRIs walks an expanded document: every @id and @type must be an absolute IRI
// (or a blank node), or RDF conversion would leave that node or value out of what is signed.
func checkAbsoluteIRIs(v any) error {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if err := checkAbsoluteIRIs(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range v {
			if k == "@value" {
				continue
			}
			if k == "@id" || k == "@type" {
				ids, _ := e.([]any)
				if s, ok := e.(string); ok {
					ids = []any{s}
				}
				for _, id := range ids {
					if s, _ := id.(string); s != "@json" && !ld.IsAbsoluteIri(s) {
						return fmt.Errorf("%w: %s %q is not an absolute IRI (no context defines it)", ErrNotCanonicalizable, k, s)
					}
				}
				continue
			}
			if err := checkAbsoluteIRIs(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCanonicalizable walks a decoded JSON value. RDFC-1.0 escapes the C0 control characters
// other than tab, line feed and carriage return, and DEL, as \uXXXX (\b and \f as ECHAR), and
// internal/rdfc does so; but URDNA2015 implementations still in use (json-gold, which this
// package used before, among them) write them raw, so a document holding one would verify with
// some verifiers and not with others. Refusing them costs nothing that a credential needs, so
// the refusal stays, for what we sign and for what we verify. Numbers go through each
// implementation's own double formatting; integers within 2^53 are the only ones every JSON
// parser reads the same.
func checkCanonicalizable(v any, path string) error {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if i := controlIndex(k); i >= 0 {
				return fmt.Errorf("%w: control character U+%04X in the name of %s", ErrNotCanonicalizable, k[i], path+"."+k)
			}
			if err := checkCanonicalizable(e, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := checkCanonicalizable(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case string:
		if i := controlIndex(v); i >= 0 {
			return fmt.Errorf("%w: control character U+%04X in %s", ErrNotCanonicalizable, v[i], path)
		}
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return fmt.Errorf("%w: %s is %v, not a safe integer", ErrNotCanonicalizable, path, v)
		}
	case bool, nil:
	default:
		return fmt.Errorf("%w: %s has Go type %T, not a decoded JSON value", ErrNotCanonicalizable, path, v)
	}
	return nil
}

// controlIndex is the byte index of the first control character that RDFC-1.0 and URDNA2015
// implementations do not all write alike, or -1.
func controlIndex(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			return i
		}
	}
	return -1
}

// surrogateEscape finds a JSON escape of a UTF-16 surrogate: encoding/json reads a lone one as
// U+FFFD where JavaScript keeps it, so such input would not mean the same text to a verifier.
// It may also match an escaped backslash followed by "ud800"; refusing that rare text is safe.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89abAB]`)

// documentJSON marshals a document (a struct, a map, or JSON bytes) into the exact bytes that
// will be published, and decodes those same bytes for canonicalization, so what is signed and
// what is served cannot drift apart.
func documentJSON(doc any) ([]byte, map[string]any, error) {
	var b []byte
	switch d := doc.(type) {
	case []byte:
		b = d
	case json.RawMessage:
		b = d
	default:
		var err error
		if b, err = json.Marshal(doc); err != nil {
			return nil, nil, fmt.Errorf("vc: marshal document: %w", err)
		}
	}
	if !utf8.Valid(b) || surrogateEscape.Match(b) {
		return nil, nil, fmt.Errorf("%w: not valid UTF-8 JSON text", ErrNotCanonicalizable)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		return nil, nil, fmt.Errorf("vc: document is not JSON: %w", err)
	}
	b = compact.Bytes()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, nil, fmt.Errorf("vc: document is not a JSON object")
	}
	if _, ok := m["@context"]; !ok {
		return nil, nil, fmt.Errorf("vc: document has no @context")
	}
	return b, m, nil
}
