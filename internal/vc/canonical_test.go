package vc

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

// testdata/canonical/rdf-canonize.json holds what jsonld.js 9.0.0 with rdf-canonize 5.0.0
// (RDFC-1.0, safe mode, the npm copies of the contexts) produced for each document of input.json:
// `node test/vc-verify/canonize.mjs internal/vc/testdata/canonical/input.json`. The documents
// are our shapes (credential, status list, proof configuration, DID document) and text that
// tends to break N-Quads writers: quotes, backslashes, line breaks, tabs, non-BMP characters,
// right-to-left text, combining marks, NBSP, U+2028/2029, NEL, joiners.
func TestCanonicalFormMatchesRdfCanonize(t *testing.T) {
	t.Parallel()
	var inputs map[string]map[string]any
	var want map[string]string
	for name, v := range map[string]any{"input.json": &inputs, "rdf-canonize.json": &want} {
		b, err := os.ReadFile("testdata/canonical/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	if len(inputs) != len(want) || len(inputs) < 7 {
		t.Fatalf("%d inputs, %d expected forms", len(inputs), len(want))
	}
	for name, doc := range inputs {
		got, err := Canonicalize(doc)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got != want[name] {
			t.Errorf("%s: json-gold\n%s\nrdf-canonize\n%s", name, got, want[name])
		}
	}
}

// canonicalInput is one document of testdata/canonical/input.json, decoded afresh.
func canonicalInput(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/canonical/input.json")
	if err != nil {
		t.Fatal(err)
	}
	var inputs map[string]map[string]any
	if err := json.Unmarshal(b, &inputs); err != nil {
		t.Fatal(err)
	}
	return inputs[name]
}

// Control characters that RDFC-1.0 escapes as \uXXXX (or \b, \f) and json-gold writes raw are
// refused wherever they are, values and names. Tab, line feed and carriage return are escaped
// alike by both and pass (the fixtures above hold them).
func TestCanonicalizeRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"\x00", "\x01", "\b", "\x0b", "\f", "\x1b", "\x1f", "\x7f"} {
		for _, where := range []string{"name", "narrative", "key"} {
			doc := canonicalInput(t, "certificate")
			achievement := doc["credentialSubject"].(map[string]any)["achievement"].(map[string]any)
			switch where {
			case "name":
				doc["name"] = "Cert" + c + "ificate"
			case "narrative":
				achievement["criteria"].(map[string]any)["narrative"] = "x" + c
			case "key":
				achievement["na"+c+"me"] = "x"
			}
			if _, err := Canonicalize(doc); !errors.Is(err, ErrNotCanonicalizable) {
				t.Errorf("%q in %s: %v, want ErrNotCanonicalizable", c, where, err)
			}
		}
	}
}

// What the JSON-LD processor would drop without a word is refused instead: a property, a
// type or an id that no context makes an absolute IRI.
func TestCanonicalizeRefusesWhatWouldBeDropped(t *testing.T) {
	t.Parallel()
	for name, raw := range map[string]string{
		"undefined term":   `{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential"],"issuer":"did:example:1","credentialSubject":{"favouriteColour":"red"}}`,
		"relative id":      `{"@context":["https://www.w3.org/ns/credentials/v2"],"id":"relative","name":"x","description":"y"}`,
		"undefined type":   `{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential","Unknown"],"name":"x"}`,
		"nothing to state": `{"@context":["https://www.w3.org/ns/credentials/v2"]}`,
		"fractional":       `{"@context":["https://www.w3.org/ns/credentials/v2"],"name":1.5}`,
	} {
		var doc map[string]any
		if err := json.Unmarshal([]byte(raw), &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := Canonicalize(doc); err == nil {
			t.Errorf("%s: canonicalized", name)
		}
	}
	if _, err := Canonicalize("https://www.w3.org/ns/credentials/v2"); err == nil {
		t.Error("a string canonicalized (json-gold would load it as a URL)")
	}
}

// One loader serves every goroutine: json-gold only reads the shared parsed contexts (run
// with -race to see it).
func TestCanonicalizeIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	want, err := Canonicalize(canonicalInput(t, "unicode"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if got, err := Canonicalize(canonicalInput(t, "unicode")); err != nil || got != want {
					errs <- strings.TrimSpace(got) + " " + errString(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
