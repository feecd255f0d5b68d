package vc

import (
	"encoding/json"
	"testing"
	"time"
)

// fuzzTimeBound is far above what the bounds let through (a refusal takes microseconds to a
// few milliseconds; a credential of 10,000 JSON values, the largest credentialBounds reads,
// some tens of milliseconds) and far below what an unbounded canonicalization of the seeds
// takes (minutes): a check that the work is bounded, not a benchmark, loose enough for a
// loaded machine.
const fuzzTimeBound = 2 * time.Second

// FuzzBoundedCanonicalize feeds JSON documents to every path that canonicalizes one from
// outside: VerifyDIDAuthentication and VerifyDataIntegrity, and the bounded canonicalization
// under presentationBounds and credentialBounds. None may panic or take longer than
// fuzzTimeBound. The seeds are the probe's shapes: @lists of equal items, the clique, deep
// nesting, and a DID authentication that verifies.
func FuzzBoundedCanonicalize(f *testing.F) {
	for _, shape := range []func(m map[string]any){
		nil, listOf(800, "a"), listOf(7000, 0), listOf(20, "a"), cliqueOf(10), cliqueOf(4), bipartite(3, 12), nestedLists(20), nestedLists(7),
	} {
		f.Add(presentation(f, false, shape))
	}
	f.Add(presentation(f, true, nil))
	f.Add([]byte(`{"@context":["https://www.w3.org/ns/credentials/v2",{"@vocab":"urn:x#"}],"a":[[[[[[[[[[[[{"b":{"@list":[1,1,1,1]}}]]]]]]]]]]]]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		start := time.Now()
		_, _ = VerifyDIDAuthentication(doc, authentication)
		_, _ = VerifyDataIntegrity(doc, resolveDIDKey)
		for _, c := range []struct {
			loader *DocumentLoader
			bounds bounds
		}{{presentationLoader, presentationBounds}, {defaultLoader, credentialBounds}} {
			if c.bounds.checkSize(doc) != nil {
				continue
			}
			var m map[string]any
			if json.Unmarshal(doc, &m) != nil || m == nil || c.bounds.checkShape(m) != nil {
				continue
			}
			_, _ = c.loader.canonicalize(m, c.bounds)
		}
		if elapsed := time.Since(start); elapsed > fuzzTimeBound {
			t.Fatalf("%d bytes took %v", len(doc), elapsed)
		}
	})
}
