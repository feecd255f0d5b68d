package vc

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
	"github.com/piprate/json-gold/ld"

	"github.com/certhub/credentiald/internal/rdfc"
)

const (
	testChallenge = "challenge-1"
	testDomain    = "certs.example.org:8443"
)

// holderKey is a holder's did:key and its key.
func holderKey() (did string, key ed25519.PrivateKey) {
	key = testKey(99)
	return "did:key:" + Multibase(key.Public().(ed25519.PublicKey)), key
}

// resolveDIDKey resolves a did:key verification method locally, as the wallet does.
func resolveDIDKey(vm string) (ed25519.PublicKey, error) {
	_, fragment, _ := strings.Cut(vm, "#")
	return ParseMultibase(fragment)
}

var authentication = AuthenticationCheck{Domain: testDomain, Resolve: resolveDIDKey}

// presentation is a DID authentication with an eddsa-rdfc-2022 proof for testChallenge and
// testDomain, whose document shape adds to; signed, its proof is a real signature, otherwise a
// well-formed one of no key (a hostile presentation need not be signed: the signature is
// checked after canonicalization, which is what the bounds protect).
func presentation(t testing.TB, signed bool, shape func(m map[string]any)) []byte {
	t.Helper()
	did, key := holderKey()
	m := map[string]any{"@context": []any{ContextCredentialsV2}, "type": []any{"VerifiablePresentation"}, "holder": did}
	if shape != nil {
		shape(m)
	}
	proof := Proof{Type: ProofType, Cryptosuite: Cryptosuite, Created: "2026-12-07T10:00:00Z",
		VerificationMethod: did + "#" + strings.TrimPrefix(did, "did:key:"), ProofPurpose: ProofPurposeAuthentication,
		Challenge: testChallenge, Domain: testDomain, ProofValue: "z" + base58.Encode(make([]byte, ed25519.SignatureSize))}
	if signed {
		data, err := presentationLoader.hashData(toMap(t, m), proof, presentationBounds)
		if err != nil {
			t.Fatal(err)
		}
		proof.ProofValue = "z" + base58.Encode(ed25519.Sign(key, data))
	}
	m["proof"] = proof
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withContext adds an inline context to a presentation's @context.
func withContext(m map[string]any, inline map[string]any) {
	m["@context"] = append(m["@context"].([]any), inline)
}

// listOf is the probe's shape: an @list of n equal items, each a blank node of RDF's list, all
// alike to RDFC-1.0 (an item of 1 byte: 800 of them are 3 KB).
func listOf(n int, item any) func(m map[string]any) {
	return func(m map[string]any) {
		withContext(m, map[string]any{"items": map[string]any{"@id": "urn:example:items", "@container": "@list"}})
		items := make([]any, n)
		for i := range items {
			items[i] = item
		}
		m["items"] = items
	}
}

// cliqueOf is rdf-canon's test074 as JSON-LD: n blank nodes, each related to every one.
func cliqueOf(n int) func(m map[string]any) {
	return func(m map[string]any) {
		withContext(m, map[string]any{"p": map[string]any{"@id": "urn:example:p", "@type": "@id"}})
		nodes := make([]any, n)
		for i := range nodes {
			related := make([]any, n)
			for j := range related {
				related[j] = fmt.Sprint("_:n", j)
			}
			nodes[i] = map[string]any{"id": fmt.Sprint("_:n", i), "p": related}
		}
		m["@included"] = nodes
	}
}

// bipartite relates each of hubs blank nodes to each of leaves others: within every bound on
// the JSON and the dataset (3 hubs and 12 leaves are 45 JSON values, 4 objects, 36 quads and 16
// blank nodes), yet the leaves are alike, and so are the hubs, so that a hub's leaves have 12!
// orders to try: only the canonicalizer's work counter stops it.
func bipartite(hubs, leaves int) func(m map[string]any) {
	return func(m map[string]any) {
		withContext(m, map[string]any{"p": map[string]any{"@id": "urn:example:p", "@type": "@id"}})
		nodes := make([]any, hubs)
		for i := range nodes {
			related := make([]any, leaves)
			for j := range related {
				related[j] = fmt.Sprint("_:leaf", j)
			}
			nodes[i] = map[string]any{"id": fmt.Sprint("_:hub", i), "p": related}
		}
		m["@included"] = nodes
	}
}

// nestedLists is a list of lists n deep.
func nestedLists(n int) func(m map[string]any) {
	return func(m map[string]any) {
		withContext(m, map[string]any{"items": map[string]any{"@id": "urn:example:items", "@container": "@list"}})
		var v any = "a"
		for range n {
			v = []any{v}
		}
		m["items"] = v
	}
}

// The presentation the tests shape is one this package accepts when signed: what the bounds
// refuse below would reach canonicalization, and then the signature check, without them.
func TestAGoMadeDIDAuthenticationVerifies(t *testing.T) {
	t.Parallel()
	did, _ := holderKey()
	auth, err := VerifyDIDAuthentication(presentation(t, true, nil), authentication)
	if err != nil || auth.Holder != did || auth.Challenge != testChallenge {
		t.Fatalf("%+v %v", auth, err)
	}
	// A short list passes every bound, and the wrong signature is what fails.
	if _, err := VerifyDIDAuthentication(presentation(t, false, listOf(3, "a")), authentication); err == nil ||
		!strings.Contains(err.Error(), "signature does not match") {
		t.Fatalf("a short list, unsigned: %v", err)
	}
}

// Hostile presentations are refused before their signature, each by the first bound it passes,
// named in the error: the probe's @list of 800 equal items (3 KB), 7,000 items (14 KB), the
// 10-node clique, deep nesting, a list short enough for the JSON bounds whose blank nodes are
// not, and a graph within every bound but the canonicalizer's work. A context that is not shipped is never fetched.
func TestHostilePresentationsAreRefusedByTheirBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		shape func(m map[string]any)
		bound string
	}{
		{"@list of 800 equal items", listOf(800, "a"), "JSON values"},
		{"@list of 7,000 items", listOf(7000, 0), "JSON values"},
		{"clique of 10 blank nodes", cliqueOf(10), "JSON values"},
		{"lists nested 20 deep", nestedLists(20), "levels of JSON nesting"},
		{"@list of 20 items", listOf(20, "a"), "blank nodes"},
		{"3 blank nodes related alike to 12", bipartite(3, 12), "Hash N-Degree Quads calls"},
		{"5 JSON objects", func(m map[string]any) {
			withContext(m, map[string]any{"p": map[string]any{"@id": "urn:example:p"}})
			m["p"] = []any{map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}}
		}, "JSON objects (outside @context and the proof)"},
		{"16 KiB and more", func(m map[string]any) { m["holder"] = strings.Repeat("x", MaxPresentationBytes) }, "bytes"},
	} {
		_, err := VerifyDIDAuthentication(presentation(t, false, c.shape), authentication)
		var bound *BoundError
		if !errors.Is(err, ErrInvalidPresentation) || !errors.As(err, &bound) || bound.Bound != c.bound {
			t.Errorf("%s: %v, want over the bound of %s", c.name, err, c.bound)
		}
	}
	remote := func(m map[string]any) {
		m["@context"] = append(m["@context"].([]any), "https://example.org/context.jsonld")
	}
	_, err := VerifyDIDAuthentication(presentation(t, false, remote), authentication)
	if !errors.Is(err, ErrInvalidPresentation) || !strings.Contains(err.Error(), "is not shipped with this service") {
		t.Errorf("a remote context: %v", err)
	}
}

// json-gold panics on an object with a member named "" holding a number and no type (found by
// FuzzBoundedCanonicalize: testdata/fuzz): the presentation is refused, not a 500.
func TestWhatMakesJSONGoldPanicIsRefused(t *testing.T) {
	t.Parallel()
	emptyKey := func(m map[string]any) {
		withContext(m, map[string]any{"p": map[string]any{"@id": "urn:example:p"}})
		m["p"] = map[string]any{"": []any{0}}
	}
	_, err := VerifyDIDAuthentication(presentation(t, false, emptyKey), authentication)
	if !errors.Is(err, ErrInvalidPresentation) || !errors.Is(err, ErrNotCanonicalizable) {
		t.Fatalf("an empty member name: %v", err)
	}
	if _, err := Canonicalize(map[string]any{"": []any{0.0}}); !errors.Is(err, ErrNotCanonicalizable) {
		t.Fatalf(`{"": [0]}: %v`, err)
	}
}

// Past the JSON bounds and the quads and blank nodes (lifted here), the canonicalizer's work
// counter stops each poison shape by itself: the probe's lists and the clique.
func TestTheWorkCounterStopsEachPoisonShape(t *testing.T) {
	t.Parallel()
	workOnly := bounds{}
	for name, shape := range map[string]func(m map[string]any){
		"@list of 800 equal items": listOf(800, "a"),
		"@list of 7,000 items":     listOf(7000, 0),
		"clique of 10 blank nodes": cliqueOf(10),
	} {
		_, err := verifyDIDAuthentication(presentation(t, false, shape), authentication, workOnly)
		var limit *rdfc.LimitError
		if !errors.Is(err, ErrInvalidPresentation) || !errors.As(err, &limit) || !limit.Work() {
			t.Errorf("%s: %v, want the work limit", name, err)
		}
	}
}

// Credentials verified from outside are bounded too (credentialBounds): the clique in a
// credential stops at the work limit, and a document over MaxCredentialBytes before it is read.
func TestHostileCredentialsAreRefusedByTheirBound(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	doc := NewDIDDocument(s.DID(), []ed25519.PublicKey{s.PublicKey()})
	m := toMap(t, testCredential(t, s, "Ana"))
	cliqueOf(10)(m)
	m["proof"] = toMap(t, Proof{Type: ProofType, Cryptosuite: Cryptosuite, Created: "2026-12-07T10:00:00Z",
		VerificationMethod: s.VerificationMethod, ProofPurpose: ProofPurpose, ProofValue: "z" + base58.Encode(make([]byte, 64))})
	hostile, _ := json.Marshal(m)
	_, err := VerifyDataIntegrity(hostile, doc.PublicKey)
	var limit *rdfc.LimitError
	if !errors.Is(err, ErrInvalidProof) || !errors.Is(err, ErrOverBound) || !errors.As(err, &limit) || !limit.Work() {
		t.Fatalf("a clique in a credential: %v, want the work limit", err)
	}
	m["description"] = strings.Repeat("x", MaxCredentialBytes)
	large, _ := json.Marshal(m)
	var bound *BoundError
	if _, err := VerifyDataIntegrity(large, doc.PublicKey); !errors.As(err, &bound) || bound.Bound != "bytes" {
		t.Fatalf("a large credential: %v", err)
	}
}

// The canonical form of every document of ours is what json-gold's URDNA2015 made of it before
// internal/rdfc replaced it (none holds the control characters the two would write apart), so
// every credential signed before still verifies, byte for byte the same hash.
func TestOurDocumentsCanonicalizeAsBefore(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	docs := map[string]any{
		"credential":          toMap(t, testCredential(t, s, "Ana")),
		"status list":         toMap(t, NewStatusListCredential(testStatusURL(1), s.DID(), NewStatusList(), testTime)),
		"DID document":        toMap(t, NewDIDDocument(s.DID(), []ed25519.PublicKey{s.PublicKey(), testKey(2).Public().(ed25519.PublicKey)})),
		"signed credential":   nil,
		"proof configuration": nil,
	}
	var signed map[string]any
	if err := json.Unmarshal(signCredential(t, s, "Ana"), &signed); err != nil {
		t.Fatal(err)
	}
	docs["proof configuration"] = signed["proof"].(map[string]any)
	docs["proof configuration"].(map[string]any)["@context"] = signed["@context"]
	delete(docs["proof configuration"].(map[string]any), "proofValue")
	delete(signed, "proof")
	docs["signed credential"] = signed
	for _, name := range []string{"certificate", "plain-badge", "escapes", "unicode", "status-list", "proof-config", "did-document"} {
		docs["input.json "+name] = canonicalInput(t, name)
	}
	for name, doc := range docs {
		got, err := Canonicalize(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := jsonGoldNormalize(t, doc); got != want {
			t.Errorf("%s: internal/rdfc\n%s\njson-gold\n%s", name, got, want)
		}
	}
}

// jsonGoldNormalize is the canonical form as this package made it before internal/rdfc.
func jsonGoldNormalize(t *testing.T, doc any) string {
	t.Helper()
	opts := ld.NewJsonLdOptions("")
	opts.ProcessingMode = ld.JsonLd_1_1
	opts.DocumentLoader = defaultLoader
	opts.SafeMode = true
	expanded, err := ld.NewJsonLdProcessor().Expand(doc, opts)
	if err != nil {
		t.Fatal(err)
	}
	dataset, err := ld.NewJsonLdApi().ToRDF(expanded, opts)
	if err != nil {
		t.Fatal(err)
	}
	nopts := ld.NewJsonLdOptions("")
	nopts.Algorithm = ld.AlgorithmURDNA2015
	nopts.Format = "application/n-quads"
	out, err := ld.NewJsonLdApi().Normalize(dataset, nopts)
	if err != nil {
		t.Fatal(err)
	}
	return out.(string)
}
