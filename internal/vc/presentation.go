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
// a few hundred bytes. It is the first of presentationBounds (bounds.go): bytes alone do not
// bound canonicalization's work (an @list of 800 equal items is 3 KB and makes 800 blank nodes
// alike, whose canonicalization without a work limit does not end in any useful time), so the
// JSON values, the quads and blank nodes, and the canonicalizer's work are bounded too.
const MaxPresentationBytes = 16 << 10

// maxPresentationObjects bounds the JSON objects in a presentation besides its proof and
// @context: each object without an id is a blank node. A DID authentication has one.
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
//
// A presentation over one of presentationBounds is refused with a *BoundError naming the bound
// (errors.Is ErrOverBound), before its signature is checked and in a few milliseconds at most.
func VerifyDIDAuthentication(vp []byte, c AuthenticationCheck) (DIDAuthentication, error) {
	return verifyDIDAuthentication(vp, c, presentationBounds)
}

func verifyDIDAuthentication(vp []byte, c AuthenticationCheck, b bounds) (DIDAuthentication, error) {
	if err := b.checkSize(vp); err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: %w", ErrInvalidPresentation, err)
	}
	var m map[string]any
	if err := json.Unmarshal(vp, &m); err != nil || m == nil {
		return DIDAuthentication{}, fmt.Errorf("%w: not a JSON object", ErrInvalidPresentation)
	}
	if err := b.checkShape(m); err != nil {
		return DIDAuthentication{}, fmt.Errorf("%w: %w", ErrInvalidPresentation, err)
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
	data, err := presentationLoader.hashData(m, proof, b)
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
