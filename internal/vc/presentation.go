package vc

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// The proofs a holder may authenticate with (the VC API exchange's DIDAuthentication query
// accepts both): the Learner Credential Wallet signs Ed25519Signature2020 (W3C CCG), newer
// wallets the Data Integrity eddsa-rdfc-2022 cryptosuite. Both canonicalize with RDFC-1.0 and
// sign SHA-256(proof options) || SHA-256(document) with Ed25519 (jsonld-signatures'
// LinkedDataSignature.createVerifyData, and the cryptosuite's 3.3), so one check serves both.
const (
	ProofTypeEd25519Signature2020 = "Ed25519Signature2020"
	ProofPurposeAuthentication    = "authentication"
)

// MaxPresentationBytes bounds a DID authentication presentation: it holds a holder and a proof,
// a few hundred bytes; the bound keeps canonicalization's work small whatever arrives.
const MaxPresentationBytes = 16 << 10

// maxPresentationObjects bounds the JSON objects in a presentation besides its proof: each
// object without an id is a blank node, and RDFC-1.0's work grows quickly with blank nodes
// shaped to be alike (json-gold sets no limit). A DID authentication has one.
const maxPresentationObjects = 4

var presentationLoader = newDocumentLoader(PresentationContexts())

// AuthenticationCheck is what a holder's DID authentication must prove besides possession of a
// key of its holder DID: that it was made for this domain (our host).
type AuthenticationCheck struct {
	Domain string
	// Resolve finds the public key of the proof's verification method (a did:key is resolved
	// locally, never over the network).
	Resolve KeyResolver
}

// ErrInvalidPresentation says that a presentation is not a DID authentication this service
// accepts; the error says why, in words for the holder's developer.
var ErrInvalidPresentation = errors.New("vc: invalid DID authentication")

// DIDAuthentication is what a verified DID authentication says: the holder's DID, and the
// challenge its proof signed, which the caller must check is one it issued (an exchange has
// several live ones, and spends the one presented).
type DIDAuthentication struct {
	Holder, Challenge string
}

// VerifyDIDAuthentication checks a holder's DID authentication presentation (a
// VerifiablePresentation naming its holder, with one proof of purpose authentication made by
// a key of that holder over a challenge and the domain asked for).
func VerifyDIDAuthentication(vp []byte, c AuthenticationCheck) (DIDAuthentication, error) {
	if len(vp) > MaxPresentationBytes {
		return DIDAuthentication{}, fmt.Errorf("%w: larger than %d bytes", ErrInvalidPresentation, MaxPresentationBytes)
	}
	var m map[string]any
	if err := json.Unmarshal(vp, &m); err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: not a JSON object", ErrInvalidPresentation)
	}
	if !hasType(m["type"], "VerifiablePresentation") {
		return DIDAuthentication{}, fmt.Errorf("%w: type must include VerifiablePresentation", ErrInvalidPresentation)
	}
	holder, _ := m["holder"].(string)
	if !strings.HasPrefix(holder, "did:") {
		return DIDAuthentication{}, fmt.Errorf("%w: holder must be a DID", ErrInvalidPresentation)
	}
	if creds, ok := m["verifiableCredential"]; ok && !isEmptyList(creds) {
		return DIDAuthentication{}, fmt.Errorf("%w: a DID authentication carries no credentials", ErrInvalidPresentation)
	}
	rawProof, ok := m["proof"].(map[string]any)
	if !ok {
		return DIDAuthentication{}, fmt.Errorf("%w: it needs exactly one proof object", ErrInvalidPresentation)
	}
	delete(m, "proof")
	if n := countObjects(m); n > maxPresentationObjects {
		return DIDAuthentication{}, fmt.Errorf("%w: %d JSON objects, at most %d", ErrInvalidPresentation, n, maxPresentationObjects)
	}
	var proof Proof
	pb, _ := json.Marshal(rawProof)
	if err := json.Unmarshal(pb, &proof); err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: proof: %v", ErrInvalidPresentation, err)
	}
	switch {
	case proof.Type == ProofTypeEd25519Signature2020 && proof.Cryptosuite == "":
	case proof.Type == ProofType && proof.Cryptosuite == Cryptosuite:
	default:
		return DIDAuthentication{}, fmt.Errorf("%w: proof %s %s is neither Ed25519Signature2020 nor DataIntegrityProof eddsa-rdfc-2022",
			ErrInvalidPresentation, proof.Type, proof.Cryptosuite)
	}
	if len(rawProof) != len(fieldsOf(proof)) {
		// A member this struct does not know would be signed by the holder but dropped here.
		return DIDAuthentication{}, fmt.Errorf("%w: the proof has members this service does not know", ErrInvalidPresentation)
	}
	if proof.ProofPurpose != ProofPurposeAuthentication {
		return DIDAuthentication{}, fmt.Errorf("%w: proofPurpose must be authentication", ErrInvalidPresentation)
	}
	if proof.Challenge == "" {
		return DIDAuthentication{}, fmt.Errorf("%w: the proof must carry the challenge asked for", ErrInvalidPresentation)
	}
	if proof.Domain != c.Domain {
		return DIDAuthentication{}, fmt.Errorf("%w: the proof's domain must be %q", ErrInvalidPresentation, c.Domain)
	}
	if !strings.HasPrefix(proof.VerificationMethod, holder+"#") {
		return DIDAuthentication{}, fmt.Errorf("%w: the proof's key must be one of the holder's (%s#...)", ErrInvalidPresentation, holder)
	}
	if proof.Context != nil && !reflect.DeepEqual(proof.Context, m["@context"]) {
		return DIDAuthentication{}, fmt.Errorf("%w: the proof's @context differs from the presentation's", ErrInvalidPresentation)
	}
	sig, err := decodeProofValue(proof.ProofValue)
	if err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: %w", ErrInvalidPresentation, err)
	}
	pub, err := c.Resolve(proof.VerificationMethod)
	if err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: %w", ErrInvalidPresentation, err)
	}
	data, err := presentationLoader.hashData(m, proof)
	if err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: %w", ErrInvalidPresentation, err)
	}
	if !ed25519.Verify(pub, data, sig) {
		return DIDAuthentication{}, fmt.Errorf("%w: the signature does not match", ErrInvalidPresentation)
	}
	return DIDAuthentication{Holder: holder, Challenge: proof.Challenge}, nil
}

func hasType(v any, want string) bool {
	switch v := v.(type) {
	case string:
		return v == want
	case []any:
		return slices.Contains(v, any(want))
	}
	return false
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}

// countObjects counts the JSON objects in v, v included when it is one.
func countObjects(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n++
		for k, e := range v {
			if k != "@context" {
				n += countObjects(e)
			}
		}
	case []any:
		for _, e := range v {
			n += countObjects(e)
		}
	}
	return n
}
