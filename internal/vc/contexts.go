package vc

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/piprate/json-gold/ld"
)

// The JSON-LD contexts this package writes into documents. Their bytes ship in contexts/ (see
// contexts/SOURCES.md for where each came from); TestShippedContextsArePinned pins them by hash.
const (
	ContextCredentialsV2 = "https://www.w3.org/ns/credentials/v2"
	ContextOpenBadgesV3  = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
	ContextDIDv1         = "https://www.w3.org/ns/did/v1"
	ContextMultikeyV1    = "https://w3id.org/security/multikey/v1"
)

// The contexts a holder's DID authentication may use besides those above: the VC Data Model
// 1.1 context and the Ed25519Signature2020 suite's, which the Learner Credential Wallet writes
// (see presentation.go). They load only where presentations are verified, never where this
// service signs.
const (
	ContextCredentialsV1        = "https://www.w3.org/2018/credentials/v1"
	ContextEd25519Signature2020 = "https://w3id.org/security/suites/ed25519-2020/v1"
)

//go:embed contexts/*.json contexts/*.jsonld
var contextFiles embed.FS

// contextFileNames maps each context URL to its file in contexts/.
var contextFileNames = map[string]string{
	ContextCredentialsV2: "contexts/credentials-v2.jsonld",
	ContextOpenBadgesV3:  "contexts/ob-v3p0-context-3.0.3.json",
	ContextDIDv1:         "contexts/did-v1.jsonld",
	ContextMultikeyV1:    "contexts/multikey-v1.jsonld",
}

// presentationContextFileNames are the contexts a DID authentication presentation may use.
var presentationContextFileNames = map[string]string{
	ContextCredentialsV1:        "contexts/credentials-v1.jsonld",
	ContextEd25519Signature2020: "contexts/ed25519-signature-2020-v1.jsonld",
	ContextCredentialsV2:        "contexts/credentials-v2.jsonld",
}

// Contexts returns the shipped bytes of every context, by URL: what a verifier (or the HTTP
// layer, if it ever serves them) needs to process our documents offline.
func Contexts() map[string][]byte { return readContexts(contextFileNames) }

// PresentationContexts returns the bytes of the contexts a DID authentication may use, by URL.
func PresentationContexts() map[string][]byte { return readContexts(presentationContextFileNames) }

func readContexts(names map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(names))
	for url, name := range names {
		b, err := contextFiles.ReadFile(name)
		if err != nil {
			panic(err) // embedded at build time: cannot happen
		}
		out[url] = b
	}
	return out
}

// ContextURLs lists the URLs the document loader serves, sorted.
func ContextURLs() []string {
	urls := make([]string, 0, len(contextFileNames))
	for u := range contextFileNames {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	return urls
}

// DocumentLoader is a json-gold document loader that serves the shipped contexts and refuses
// every other URL: canonicalizing what we sign must never reach the network, and a document
// naming an unknown context is a bug to surface, not something to fetch. It is read-only after
// construction, so one loader is safe for concurrent use (json-gold's CachingDocumentLoader
// writes an unlocked map and panics on a miss without a next loader).
type DocumentLoader struct {
	docs map[string]*ld.RemoteDocument
}

var _ ld.DocumentLoader = (*DocumentLoader)(nil)

// NewDocumentLoader parses the shipped contexts once.
func NewDocumentLoader() *DocumentLoader { return newDocumentLoader(Contexts()) }

func newDocumentLoader(contexts map[string][]byte) *DocumentLoader {
	l := &DocumentLoader{docs: make(map[string]*ld.RemoteDocument, len(contexts))}
	for url, b := range contexts {
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			panic(fmt.Sprintf("vc: shipped context %s is not JSON: %v", url, err))
		}
		l.docs[url] = &ld.RemoteDocument{DocumentURL: url, Document: doc}
	}
	return l
}

// LoadDocument answers a shipped context, or an error for any other URL.
func (l *DocumentLoader) LoadDocument(url string) (*ld.RemoteDocument, error) {
	if d, ok := l.docs[url]; ok {
		// A copy of the envelope; the parsed document is shared and json-gold only reads it
		// (TestCanonicalizeIsSafeForConcurrentUse runs under -race to keep that true).
		rd := *d
		return &rd, nil
	}
	return nil, fmt.Errorf("vc: context %q is not shipped with this service (offline loader)", url)
}
