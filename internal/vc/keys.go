package vc

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mr-tron/base58"
)

// ed25519PubCodec is the multicodec prefix of an Ed25519 public key (0xed, as an unsigned
// varint: 0xed 0x01). With base58btc ("z") the result always starts "z6Mk".
var ed25519PubCodec = []byte{0xed, 0x01}

// Multibase encodes an Ed25519 public key as a Multikey publicKeyMultibase: "z", then base58btc
// of the multicodec prefix and the 32 key bytes.
func Multibase(pub ed25519.PublicKey) string {
	b := make([]byte, 0, len(ed25519PubCodec)+len(pub))
	b = append(append(b, ed25519PubCodec...), pub...)
	return "z" + base58.Encode(b)
}

// ParseMultibase reads a publicKeyMultibase written by Multibase.
func ParseMultibase(s string) (ed25519.PublicKey, error) {
	if !strings.HasPrefix(s, "z") {
		return nil, fmt.Errorf("vc: publicKeyMultibase %q is not base58btc", s)
	}
	b, err := base58.Decode(s[1:])
	if err != nil {
		return nil, fmt.Errorf("vc: publicKeyMultibase: %w", err)
	}
	if len(b) != len(ed25519PubCodec)+ed25519.PublicKeySize || b[0] != ed25519PubCodec[0] || b[1] != ed25519PubCodec[1] {
		return nil, fmt.Errorf("vc: publicKeyMultibase %q is not an Ed25519 public key", s)
	}
	return ed25519.PublicKey(b[2:]), nil
}

// DIDWeb is the issuer DID of an account: did:web:<host>:issuers:<accountID>, which resolves
// to <siteURL>/issuers/<accountID>/did.json. A port is written %3A as did:web requires, and a
// path under which the site is served becomes colon-separated segments.
func DIDWeb(siteURL, accountID string) (string, error) {
	u, err := url.Parse(siteURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("vc: site URL %q has no host", siteURL)
	}
	if accountID == "" || strings.ContainsAny(accountID, ":/%#?") {
		return "", fmt.Errorf("vc: account id %q cannot be a did:web path segment", accountID)
	}
	did := "did:web:" + strings.ReplaceAll(strings.ToLower(u.Host), ":", "%3A")
	for _, seg := range strings.Split(strings.Trim(u.EscapedPath(), "/"), "/") {
		if seg != "" {
			did += ":" + seg
		}
	}
	return did + ":issuers:" + accountID, nil
}

// VerificationMethodID names a key in its controller's DID document. The fragment is the key's
// own multibase, as did:key does: it is unique per key, needs no numbering that could collide
// after a rotation, and lets a reader see which key signed without a lookup.
func VerificationMethodID(did string, pub ed25519.PublicKey) string {
	return did + "#" + Multibase(pub)
}

// DIDDocument is the did:web document of an issuer: every key it ever signed with, as a
// Multikey, authorized for assertions. The DID context comes first, which lets verifiers
// (jsonld-signatures among them) read assertionMethod without JSON-LD framing.
type DIDDocument struct {
	Context            []string             `json:"@context"`
	ID                 string               `json:"id"`
	VerificationMethod []VerificationMethod `json:"verificationMethod"`
	AssertionMethod    []string             `json:"assertionMethod"`
}

// VerificationMethod is one key of a DID document.
type VerificationMethod struct {
	ID                 string `json:"id"`
	Type               string `json:"type"`
	Controller         string `json:"controller"`
	PublicKeyMultibase string `json:"publicKeyMultibase"`
}

// NewDIDDocument lists keys (retired ones included, so what they signed keeps verifying) in
// the order given.
func NewDIDDocument(did string, keys []ed25519.PublicKey) DIDDocument {
	d := DIDDocument{
		Context:            []string{ContextDIDv1, ContextMultikeyV1},
		ID:                 did,
		VerificationMethod: make([]VerificationMethod, 0, len(keys)),
		AssertionMethod:    make([]string, 0, len(keys)),
	}
	for _, k := range keys {
		id := VerificationMethodID(did, k)
		d.VerificationMethod = append(d.VerificationMethod, VerificationMethod{
			ID: id, Type: "Multikey", Controller: did, PublicKeyMultibase: Multibase(k),
		})
		d.AssertionMethod = append(d.AssertionMethod, id)
	}
	return d
}

// ErrUnknownKey says that a verification method is not an assertion key of the document.
var ErrUnknownKey = errors.New("vc: verification method not listed for assertions")

// PublicKey resolves a verification method id to its key, if the document authorizes it for
// assertions. It is a KeyResolver.
func (d DIDDocument) PublicKey(verificationMethod string) (ed25519.PublicKey, error) {
	authorized := false
	for _, id := range d.AssertionMethod {
		authorized = authorized || id == verificationMethod
	}
	if !authorized {
		return nil, fmt.Errorf("%w: %s", ErrUnknownKey, verificationMethod)
	}
	for _, vm := range d.VerificationMethod {
		if vm.ID == verificationMethod && vm.Controller == d.ID && vm.Type == "Multikey" {
			return ParseMultibase(vm.PublicKeyMultibase)
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownKey, verificationMethod)
}
