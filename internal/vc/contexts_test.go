package vc

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// The contexts decide what every signature covers: a changed byte may change canonical forms
// and break every credential already issued. A deliberate update changes the pin here, in the
// same commit, with contexts/SOURCES.md.
func TestShippedContextsArePinned(t *testing.T) {
	t.Parallel()
	pins := map[string]string{
		ContextCredentialsV2: "8a9f494a89ecc51db093e90e84713e07e84d6d9204364a9b3c7868b21751236f",
		ContextOpenBadgesV3:  "ef2fa9c7846dce233cc166b43639027278be4ee44f00bb1d45c75de2dd0cd761",
		ContextDIDv1:         "62c1054bf404d6dd3a4b26b64f830fd72095f6a26edc4469908c94351352ce5f",
		ContextMultikeyV1:    "c5f3806f8286920573221938917988a18a4cc5a09e968d29649613c7a1c2b1f6",
	}
	checkPins(t, Contexts(), pins)
}

func TestDocumentLoaderRefusesEveryOtherURL(t *testing.T) {
	t.Parallel()
	l := NewDocumentLoader()
	for _, url := range []string{
		"https://www.w3.org/ns/credentials/examples/v2",
		"https://www.w3.org/2018/credentials/v1",
		"https://w3id.org/security/data-integrity/v2",
		"http://www.w3.org/ns/credentials/v2", // not the https URL
		"",
	} {
		if _, err := l.LoadDocument(url); err == nil || !strings.Contains(err.Error(), "not shipped") {
			t.Errorf("LoadDocument(%q) = %v, want a refusal", url, err)
		}
	}
	for _, url := range ContextURLs() {
		if rd, err := l.LoadDocument(url); err != nil || rd.DocumentURL != url {
			t.Errorf("LoadDocument(%q): %v", url, err)
		}
	}
	// A document naming an unknown context fails to canonicalize instead of going online.
	_, err := Canonicalize(map[string]any{"@context": "https://example.org/ctx", "name": "x"})
	if err == nil || !strings.Contains(err.Error(), "not shipped") {
		t.Fatalf("unknown context: %v", err)
	}
}

func TestPresentationContextsArePinned(t *testing.T) {
	t.Parallel()
	pins := map[string]string{
		ContextCredentialsV1:        "00d7dd6d3ad8b920e3e550dd3a3d9090bffcac84cdbf943da6924b3e0a5c8bb8",
		ContextEd25519Signature2020: "b9e1ab971fd8bf2c7553e0c4a9438e0b9450afde1ea1ca5b2492368b9f549588",
		ContextCredentialsV2:        "8a9f494a89ecc51db093e90e84713e07e84d6d9204364a9b3c7868b21751236f",
	}
	checkPins(t, PresentationContexts(), pins)
}

// checkPins fails unless got holds exactly the pinned contexts, each with its SHA-256.
func checkPins(t *testing.T, got map[string][]byte, pins map[string]string) {
	t.Helper()
	if len(got) != len(pins) {
		t.Fatalf("%d contexts shipped, %d pinned", len(got), len(pins))
	}
	for url, want := range pins {
		sum := sha256.Sum256(got[url])
		if h := hex.EncodeToString(sum[:]); h != want {
			t.Errorf("%s: sha256 %s, pinned %s", url, h, want)
		}
	}
}
