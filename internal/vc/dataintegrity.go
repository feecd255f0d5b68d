package vc

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/mr-tron/base58"
)

// The proof this package writes and accepts.
const (
	ProofType    = "DataIntegrityProof"
	Cryptosuite  = "eddsa-rdfc-2022"
	ProofPurpose = "assertionMethod"
)

// Proof is an embedded Data Integrity proof, its members in the order of the specification's
// examples.
type Proof struct {
	Context            any    `json:"@context,omitempty"`
	Type               string `json:"type"`
	Cryptosuite        string `json:"cryptosuite,omitempty"` // none in an Ed25519Signature2020 proof
	Created            string `json:"created,omitempty"`
	VerificationMethod string `json:"verificationMethod"`
	ProofPurpose       string `json:"proofPurpose"`
	// Challenge and Domain bind a holder's authentication proof to one request of one site.
	Challenge  string `json:"challenge,omitempty"`
	Domain     string `json:"domain,omitempty"`
	ProofValue string `json:"proofValue,omitempty"`
}

// Signer signs with one issuer key. VerificationMethod (the DID, "#" and the key's multibase)
// is what proofs and JWT headers name, and what the issuer's DID document and JWK Set list.
type Signer struct {
	key                ed25519.PrivateKey
	did                string
	loader             *DocumentLoader // nil: the shipped contexts
	VerificationMethod string
}

// NewSigner signs as did with key.
func NewSigner(did string, key ed25519.PrivateKey) Signer {
	return Signer{key: key, did: did, VerificationMethod: VerificationMethodID(did, key.Public().(ed25519.PublicKey))}
}

// DID is the issuer the signer signs as.
func (s Signer) DID() string { return s.did }

// PublicKey is the signer's public key, to list in the DID document and the JWK Set.
func (s Signer) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// SignDataIntegrity returns the document (a struct, a map, or JSON bytes, holding a JSON object
// with an @context and no proof) with an eddsa-rdfc-2022 DataIntegrityProof added as its last
// member. The document's own bytes and member order are kept (compacted). created is written to
// the second, in UTC.
//
// The algorithm (W3C VC Data Integrity EdDSA Cryptosuites v1.0, 3.3): canonicalize with
// RDFC-1.0 the proof configuration (the proof without proofValue, under the document's
// @context) and the document; sign SHA-256(proof configuration) || SHA-256(document) with
// Ed25519; proofValue is "z" and the signature in base58btc.
func (s Signer) SignDataIntegrity(doc any, created time.Time) ([]byte, error) {
	raw, m, err := documentJSON(doc)
	if err != nil {
		return nil, err
	}
	if _, has := m["proof"]; has {
		return nil, errors.New("vc: document already has a proof")
	}
	proof := Proof{
		Type:               ProofType,
		Cryptosuite:        Cryptosuite,
		Created:            formatTime(created),
		VerificationMethod: s.VerificationMethod,
		ProofPurpose:       ProofPurpose,
	}
	data, err := s.loader.hashData(m, proof, ownBounds)
	if err != nil {
		return nil, err
	}
	proof.ProofValue = "z" + base58.Encode(ed25519.Sign(s.key, data))
	pb, err := json.Marshal(proof)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(raw)+len(pb)+10)
	out = append(out, raw[:len(raw)-1]...) // documentJSON compacted it: the last byte is '}'
	out = append(out, `,"proof":`...)
	out = append(out, pb...)
	return append(out, '}'), nil
}

// hashData is SHA-256 of the canonical proof configuration followed by SHA-256 of the
// canonical document, each canonicalized under b's limits.
func (l *DocumentLoader) hashData(doc map[string]any, proof Proof, b bounds) ([]byte, error) {
	if l == nil {
		l = defaultLoader
	}
	proof.ProofValue = ""
	proof.Context = doc["@context"]
	pb, err := json.Marshal(proof)
	if err != nil {
		return nil, err
	}
	var config map[string]any
	if err := json.Unmarshal(pb, &config); err != nil {
		return nil, err
	}
	canonConfig, err := l.canonicalize(config, b)
	if err != nil {
		return nil, fmt.Errorf("vc: proof configuration: %w", err)
	}
	canonDoc, err := l.canonicalize(doc, b)
	if err != nil {
		return nil, err
	}
	h1, h2 := sha256.Sum256([]byte(canonConfig)), sha256.Sum256([]byte(canonDoc))
	return append(h1[:], h2[:]...), nil
}

// KeyResolver finds the public key of a verification method id. DIDDocument.PublicKey is one.
type KeyResolver func(verificationMethod string) (ed25519.PublicKey, error)

// ErrInvalidProof says that a document's proof does not verify.
var ErrInvalidProof = errors.New("vc: invalid proof")

// VerifyDataIntegrity checks the eddsa-rdfc-2022 proof embedded in a signed document and
// returns it. When the document names an issuer, the verification method must belong to it
// (its DID before the "#"). Expiry and status are the caller's to check. The document may come
// from outside: it is held to credentialBounds (MaxCredentialBytes, its JSON's depth and
// values, its quads and blank nodes, the canonicalizer's work) before its signature is checked,
// and one over a bound is refused with a *BoundError naming it (errors.Is ErrOverBound).
func VerifyDataIntegrity(signed []byte, resolve KeyResolver) (Proof, error) {
	return defaultLoader.verifyDataIntegrity(signed, resolve, credentialBounds)
}

func (l *DocumentLoader) verifyDataIntegrity(signed []byte, resolve KeyResolver, b bounds) (Proof, error) {
	if err := b.checkSize(signed); err != nil {
		return Proof{}, fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	var m map[string]any
	if err := json.Unmarshal(signed, &m); err != nil {
		return Proof{}, fmt.Errorf("%w: not a JSON object: %v", ErrInvalidProof, err)
	}
	if err := b.checkShape(m); err != nil {
		return Proof{}, fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	rawProof, ok := m["proof"].(map[string]any)
	if !ok {
		return Proof{}, fmt.Errorf("%w: no single proof object", ErrInvalidProof)
	}
	delete(m, "proof")
	var proof Proof
	pb, _ := json.Marshal(rawProof)
	if err := json.Unmarshal(pb, &proof); err != nil {
		return Proof{}, fmt.Errorf("%w: %v", ErrInvalidProof, err)
	}
	if proof.Type != ProofType || proof.Cryptosuite != Cryptosuite {
		return proof, fmt.Errorf("%w: %s/%s is not %s/%s", ErrInvalidProof, proof.Type, proof.Cryptosuite, ProofType, Cryptosuite)
	}
	if proof.ProofPurpose != ProofPurpose {
		return proof, fmt.Errorf("%w: proof purpose %q", ErrInvalidProof, proof.ProofPurpose)
	}
	if len(rawProof) != len(fieldsOf(proof)) {
		// A member this struct does not know would be signed by the signer but dropped here.
		return proof, fmt.Errorf("%w: unexpected proof members", ErrInvalidProof)
	}
	if proof.Context != nil && !reflect.DeepEqual(proof.Context, m["@context"]) {
		return proof, fmt.Errorf("%w: the proof's @context differs from the document's", ErrInvalidProof)
	}
	if issuer := issuerID(m["issuer"]); issuer != "" && !strings.HasPrefix(proof.VerificationMethod, issuer+"#") {
		return proof, fmt.Errorf("%w: key %s is not the issuer's (%s)", ErrInvalidProof, proof.VerificationMethod, issuer)
	}
	sig, err := decodeProofValue(proof.ProofValue)
	if err != nil {
		return proof, err
	}
	pub, err := resolve(proof.VerificationMethod)
	if err != nil {
		return proof, fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	data, err := l.hashData(m, proof, b)
	if err != nil {
		return proof, fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	if !ed25519.Verify(pub, data, sig) {
		return proof, fmt.Errorf("%w: signature does not match", ErrInvalidProof)
	}
	return proof, nil
}

func decodeProofValue(v string) ([]byte, error) {
	if !strings.HasPrefix(v, "z") {
		return nil, fmt.Errorf("%w: proofValue is not base58btc multibase", ErrInvalidProof)
	}
	sig, err := base58.Decode(v[1:])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: proofValue is not an Ed25519 signature", ErrInvalidProof)
	}
	return sig, nil
}

// fieldsOf lists the members a proof marshals to.
func fieldsOf(p Proof) map[string]any {
	b, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func issuerID(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		id, _ := v["id"].(string)
		return id
	}
	return ""
}
