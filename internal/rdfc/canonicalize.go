// Package rdfc is RDF Dataset Canonicalization, RDFC-1.0 (W3C Recommendation, 21 May 2024,
// https://www.w3.org/TR/rdf-canon/), with the limits its §4.4.3 asks for: "Implementations MUST
// defend against potential denial-of-service attacks by raising suitable exceptions and
// terminating early." A dataset shaped to make blank nodes alike (a JSON-LD @list of equal
// items, a clique) makes Hash N-Degree Quads explore a number of paths that grows as a power or
// a factorial of its blank nodes. Canonicalize counts that work, in calls of Hash N-Degree
// Quads and in steps (a related blank node hashed, a blank node placed on a path, an issuer
// copied: each a bounded piece of CPU), and stops with a *LimitError at a limit, as it does for
// a dataset with too many quads or blank nodes; it also stops when its context ends.
//
// It passes the whole W3C test suite (testdata/rdf-canon) under the default limits: the
// canonical N-Quads of every evaluation test, the issued identifiers of every map test,
// SHA-384 for test075, and the refusal of test074's poison clique.
package rdfc

import (
	"bytes"
	"context"
	"crypto"
	_ "crypto/sha256" // registers SHA-256, the default
	_ "crypto/sha512" // registers SHA-384 and SHA-512
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strings"
)

// Result is a canonicalized dataset.
type Result struct {
	// NQuads is the serialized canonical form: one quad a line, sorted, each ending in LF.
	NQuads string
	// IssuedIdentifiers maps each input blank node identifier to its canonical one (c14nN).
	IssuedIdentifiers map[string]string
	Stats             Stats
}

// Canonicalize runs the RDFC-1.0 Canonicalization Algorithm (§4.4) on the quads (duplicates
// count once). The identifiers of the input's blank nodes matter only where two are
// automorphic, and then only to IssuedIdentifiers, never to NQuads.
func Canonicalize(ctx context.Context, quads []Quad, opts Options) (Result, error) {
	opts = opts.withDefaults()
	switch opts.Hash {
	case crypto.SHA256, crypto.SHA384, crypto.SHA512:
	default:
		return Result{}, fmt.Errorf("rdfc: hash algorithm %v is not SHA-256, SHA-384 or SHA-512", opts.Hash)
	}
	if len(quads) > opts.MaxQuads {
		return Result{}, &LimitError{Limit: LimitQuads, Max: opts.MaxQuads}
	}
	c, err := newCanonicalization(ctx, quads, opts)
	if err != nil {
		return Result{}, err
	}
	// Step 3: first-degree hashes, in the order the blank nodes first appear.
	byHash := map[string][]int32{}
	for _, n := range c.appearance {
		h := c.hashFirstDegree(n)
		byHash[h] = append(byHash[h], n)
	}
	hashes := slices.Sorted(maps.Keys(byHash))
	// Step 4: a unique first-degree hash gives its blank node a canonical identifier.
	for _, h := range hashes {
		if nodes := byHash[h]; len(nodes) == 1 {
			c.canonical.issue(nodes[0])
		}
	}
	// Step 5: the blank nodes that share one get theirs in the order of their N-degree hashes.
	for _, h := range hashes {
		nodes := byHash[h]
		if len(nodes) == 1 {
			continue
		}
		type result struct {
			hash   digest
			issuer *issuer
		}
		var results []result
		for _, n := range nodes {
			if c.canonical.has(n) {
				continue
			}
			if err := c.step(1 + 8*len(c.ids)/stepBytes); err != nil { // the new issuer's slices
				return Result{}, err
			}
			temporary := newIssuer("b", len(c.ids))
			temporary.issue(n)
			hash, iss, err := c.hashNDegree(n, temporary)
			if err != nil {
				return Result{}, err
			}
			results = append(results, result{hash, iss})
		}
		slices.SortStableFunc(results, func(a, b result) int { return bytes.Compare(a.hash.bytes(), b.hash.bytes()) })
		for _, r := range results {
			for _, n := range r.issuer.order {
				c.canonical.issue(n)
			}
		}
	}
	// Steps 6 and 7: the canonical form and the issued identifiers.
	lines := make([]string, len(c.quads))
	for i, q := range c.quads {
		lines[i] = string(appendQuad(nil, q.Quad, func(id string) string { return c.canonical.id(c.index[id]) }))
	}
	slices.Sort(lines)
	issued := make(map[string]string, len(c.ids))
	for n, id := range c.ids {
		issued[id] = c.canonical.id(int32(n))
	}
	return Result{NQuads: strings.Join(lines, ""), IssuedIdentifiers: issued, Stats: c.stats}, nil
}

// canonicalization is the canonicalization state (§4.2) and the work counted. Blank nodes are
// numbered in the code point order of their input identifiers, so that the numbers compare as
// the identifiers do.
type canonicalization struct {
	ctx         context.Context
	opts        Options
	quads       []indexedQuad
	ids         []string         // blank node -> its input identifier
	index       map[string]int32 // input identifier -> blank node
	mentions    [][]int32        // blank node -> indexes in quads of the quads it is in
	appearance  []int32          // blank nodes, in the order they first appear
	firstDegree []string
	canonical   *issuer
	hasher      hash.Hash
	sum         []byte
	stats       Stats
}

// indexedQuad is a quad with the numbers of its subject, object and graph, or -1 for those
// that are not blank nodes.
type indexedQuad struct {
	Quad
	s, o, g int32
}

// newCanonicalization makes steps 1 and 2: the blank node to quads map. A dataset is a set: a
// quad given twice is one.
func newCanonicalization(ctx context.Context, quads []Quad, opts Options) (*canonicalization, error) {
	c := &canonicalization{ctx: ctx, opts: opts, index: map[string]int32{}, hasher: opts.Hash.New(),
		quads: make([]indexedQuad, 0, len(quads))}
	seen := make(map[string]struct{}, len(quads))
	var appearance []string
	for _, q := range quads {
		if err := q.validate(); err != nil {
			return nil, err
		}
		key := string(appendQuad(nil, q, func(id string) string { return id }))
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		c.quads = append(c.quads, indexedQuad{Quad: q})
		for _, t := range []Term{q.Subject, q.Object, q.Graph} {
			if _, ok := c.index[t.Value]; t.Kind == KindBlankNode && !ok {
				c.index[t.Value] = -1
				appearance = append(appearance, t.Value)
				if len(appearance) > opts.MaxBlankNodes {
					return nil, &LimitError{Limit: LimitBlankNodes, Max: opts.MaxBlankNodes}
				}
			}
		}
	}
	c.ids = slices.Sorted(slices.Values(appearance))
	for n, id := range c.ids {
		c.index[id] = int32(n)
	}
	c.appearance = make([]int32, len(appearance))
	for i, id := range appearance {
		c.appearance[i] = c.index[id]
	}
	c.mentions = make([][]int32, len(c.ids))
	c.firstDegree = make([]string, len(c.ids))
	for i := range c.quads {
		q := &c.quads[i]
		q.s, q.o, q.g = c.node(q.Subject), c.node(q.Object), c.node(q.Graph)
		for _, n := range []int32{q.s, q.o, q.g} {
			if n < 0 {
				continue
			}
			// A blank node twice in one quad is one mention of it.
			if m := c.mentions[n]; len(m) == 0 || m[len(m)-1] != int32(i) {
				c.mentions[n] = append(m, int32(i))
			}
		}
	}
	c.canonical = newIssuer("c14n", len(c.ids))
	return c, nil
}

func (c *canonicalization) node(t Term) int32 {
	if t.Kind != KindBlankNode {
		return -1
	}
	return c.index[t.Value]
}

// digest is a hash in lowercase hex, kept in an array so that the many hashes Hash N-Degree
// Quads makes cost no allocation (SHA-512's 64 bytes are 128 hex digits).
type digest struct {
	n   uint8
	hex [128]byte
}

func (d *digest) bytes() []byte { return d.hex[:d.n] }

// hash is the digest of parts.
func (c *canonicalization) hash(parts ...[]byte) digest {
	c.hasher.Reset()
	for _, p := range parts {
		c.hasher.Write(p)
	}
	c.sum = c.hasher.Sum(c.sum[:0])
	var d digest
	d.n = uint8(hex.Encode(d.hex[:], c.sum))
	return d
}

// hashFirstDegree is Hash First Degree Quads (§4.6): the node's quads with itself as _:a and
// every other blank node as _:z, sorted. Each node's hash is made once and remembered.
func (c *canonicalization) hashFirstDegree(n int32) string {
	if h := c.firstDegree[n]; h != "" {
		return h
	}
	self := c.ids[n]
	label := func(id string) string {
		if id == self {
			return "a"
		}
		return "z"
	}
	lines := make([][]byte, 0, len(c.mentions[n]))
	for _, i := range c.mentions[n] {
		lines = append(lines, appendQuad(nil, c.quads[i].Quad, label))
	}
	slices.SortFunc(lines, bytes.Compare)
	d := c.hash(lines...)
	h := string(d.bytes())
	c.firstDegree[n] = h
	return h
}

// hashRelated is Hash Related Blank Node (§4.7); buf is scratch space.
func (c *canonicalization) hashRelated(buf []byte, related int32, q Quad, iss *issuer, position byte) (digest, []byte) {
	buf = append(buf[:0], position)
	if position != 'g' {
		buf = append(buf, '<')
		buf = append(buf, q.Predicate.Value...)
		buf = append(buf, '>')
	}
	switch {
	case c.canonical.has(related):
		buf = c.canonical.appendID(buf, related)
	case iss.has(related):
		buf = iss.appendID(buf, related)
	default:
		buf = append(buf, c.hashFirstDegree(related)...)
	}
	return c.hash(buf), buf
}

// stepBytes is about as much work as the smallest step: a step hashes or copies up to this
// many bytes more, or counts as more than one.
const stepBytes = 256

// step counts work done inside Hash N-Degree Quads.
func (c *canonicalization) step(n int) error {
	return c.count(&c.stats.Steps, n, c.opts.MaxSteps, LimitSteps)
}

// count adds work to a counter and stops at its limit, or when the context has ended.
func (c *canonicalization) count(n *int, work, max int, limit Limit) error {
	*n += work
	if *n > max {
		return &LimitError{Limit: limit, Max: max}
	}
	if err := c.ctx.Err(); err != nil {
		return fmt.Errorf("rdfc: %w", err)
	}
	return nil
}

// hashNDegree is Hash N-Degree Quads (§4.8): the hash of the smallest path that reaches every
// blank node connected to n, with the issuer that labelled them along it.
func (c *canonicalization) hashNDegree(n int32, iss *issuer) (digest, *issuer, error) {
	if err := c.count(&c.stats.HashNDegreeCalls, 1, c.opts.MaxHashNDegreeCalls, LimitHashNDegreeCalls); err != nil {
		return digest{}, nil, err
	}
	// Steps 1 to 3: the related hashes, each with the blank nodes it relates n to; sorted by
	// hash, they come in groups, one a related hash.
	type relatedNode struct {
		hash digest
		node int32
	}
	related := make([]relatedNode, 0, 2*len(c.mentions[n]))
	var buf []byte
	for _, i := range c.mentions[n] {
		q := &c.quads[i]
		for _, comp := range [3]struct {
			node     int32
			position byte
		}{{q.s, 's'}, {q.o, 'o'}, {q.g, 'g'}} {
			if comp.node < 0 || comp.node == n {
				continue
			}
			// Its input is the predicate and an identifier or a hash: a long predicate is more work.
			if err := c.step(1 + len(q.Predicate.Value)/stepBytes); err != nil {
				return digest{}, nil, err
			}
			var h digest
			h, buf = c.hashRelated(buf, comp.node, q.Quad, iss, comp.position)
			related = append(related, relatedNode{h, comp.node})
		}
	}
	slices.SortFunc(related, func(a, b relatedNode) int {
		if d := bytes.Compare(a.hash.bytes(), b.hash.bytes()); d != 0 {
			return d
		}
		return int(a.node - b.node)
	})
	// Steps 4 and 5.
	var data []byte
	for i := 0; i < len(related); {
		h := related[i].hash
		var p []int32 // the group's blank nodes, sorted: the first permutation
		for ; i < len(related) && related[i].hash == h; i++ {
			p = append(p, related[i].node)
		}
		data = append(data, h.bytes()...)
		var chosenPath []byte
		var chosenIssuer *issuer
		for {
			c.stats.Permutations++
			path, pathIssuer, err := c.permutationPath(p, iss, chosenPath, chosenIssuer != nil)
			if err != nil {
				return digest{}, nil, err
			}
			if path != nil && (chosenIssuer == nil || bytes.Compare(path, chosenPath) < 0) {
				chosenPath, chosenIssuer = path, pathIssuer
			}
			if !nextPermutation(p) {
				break
			}
		}
		data = append(data, chosenPath...)
		iss = chosenIssuer
	}
	return c.hash(data), iss, nil
}

// permutationPath is §4.8.3 step 5.4 for one permutation p of related blank nodes: the path
// and the issuer that made it, or a nil path when it cannot be smaller than the chosen one.
// Copying the issuer (8 bytes a blank node of the dataset) and placing each blank node on the
// path are steps.
func (c *canonicalization) permutationPath(p []int32, iss *issuer, chosen []byte, hasChosen bool) ([]byte, *issuer, error) {
	worse := func(path []byte) bool {
		return hasChosen && len(path) >= len(chosen) && bytes.Compare(path, chosen) > 0
	}
	if err := c.step(1 + 8*len(iss.issued)/stepBytes); err != nil { // two int32s a blank node
		return nil, nil, err
	}
	copied := iss.clone()
	var path []byte
	var recursion []int32
	for _, related := range p {
		if err := c.step(1); err != nil {
			return nil, nil, err
		}
		if c.canonical.has(related) {
			path = c.canonical.appendID(path, related)
		} else {
			if !copied.has(related) {
				recursion = append(recursion, related)
				copied.issue(related)
			}
			path = copied.appendID(path, related)
		}
		if worse(path) {
			return nil, nil, nil
		}
	}
	for _, related := range recursion {
		hash, result, err := c.hashNDegree(related, copied)
		if err != nil {
			return nil, nil, err
		}
		path = copied.appendID(path, related)
		path = append(append(append(path, '<'), hash.bytes()...), '>')
		copied = result
		if worse(path) {
			return nil, nil, nil
		}
	}
	return path, copied, nil
}
