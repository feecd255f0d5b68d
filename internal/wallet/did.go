// Package wallet holds the rules of wallet delivery: a recipient's offer, the holder's proof of
// the DID its credential is bound to (a DID authentication over the VC API exchange, or an
// OpenID4VCI proof JWT), and the bound copy of the credential. It knows nothing of HTTP.
package wallet

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/mr-tron/base58"

	"github.com/certhub/credentiald/internal/vc"
)

// ErrUnsupportedDID says that a holder's DID is of a method this service does not resolve.
// Holders bind with did:key (Ed25519 or P-256) or did:jwk, both resolved here from the DID
// itself: nothing is fetched from the network.
var ErrUnsupportedDID = errors.New("wallet: unsupported DID")

// p256Codec is the multicodec prefix of a compressed P-256 public key (an unsigned varint);
// vc.ParseMultibase reads the Ed25519 ones.
var p256Codec = []byte{0x80, 0x24}

// maxDIDKeyMultibase bounds a did:key's multibase before it is decoded: base58 decoding costs
// the square of the length, and the keys accepted are 48 (Ed25519) or 49 (P-256) characters.
const maxDIDKeyMultibase = 64

// HolderKey is a holder's public key: an ed25519.PublicKey or an *ecdsa.PublicKey (P-256).
type HolderKey = any

// ResolveKey returns the public key that a verification method of a did:key or did:jwk names,
// and the DID it belongs to. A did:key's method is "<did>#<multibase>", a did:jwk's
// "<did>#0"; a bare DID names its one key.
func ResolveKey(verificationMethod string) (did string, key HolderKey, err error) {
	did, fragment, _ := strings.Cut(verificationMethod, "#")
	switch {
	case strings.HasPrefix(did, "did:key:"):
		mb := strings.TrimPrefix(did, "did:key:")
		if fragment != "" && fragment != mb {
			return "", nil, fmt.Errorf("%w: %s is not a key of %s", ErrUnsupportedDID, verificationMethod, did)
		}
		key, err := parseDIDKey(mb)
		return did, key, err
	case strings.HasPrefix(did, "did:jwk:"):
		if fragment != "" && fragment != "0" {
			return "", nil, fmt.Errorf("%w: a did:jwk's key is #0", ErrUnsupportedDID)
		}
		k, err := parseDIDJWK(strings.TrimPrefix(did, "did:jwk:"))
		if err != nil {
			return "", nil, err
		}
		var raw any
		if err := jwk.Export(k, &raw); err != nil {
			return "", nil, fmt.Errorf("%w: did:jwk: %v", ErrUnsupportedDID, err)
		}
		key, err := publicOf(raw)
		return did, key, err
	}
	return "", nil, fmt.Errorf("%w: %q (did:key and did:jwk are accepted)", ErrUnsupportedDID, did)
}

// Ed25519Key resolves a verification method that must name an Ed25519 key (the DID
// authentication proofs sign with Ed25519).
func Ed25519Key(verificationMethod string) (ed25519.PublicKey, error) {
	_, k, err := ResolveKey(verificationMethod)
	if err != nil {
		return nil, err
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not an Ed25519 key", ErrUnsupportedDID, verificationMethod)
	}
	return pub, nil
}

func parseDIDKey(mb string) (HolderKey, error) {
	if len(mb) > maxDIDKeyMultibase {
		return nil, fmt.Errorf("%w: did:key is longer than an Ed25519 or P-256 key's", ErrUnsupportedDID)
	}
	if pub, err := vc.ParseMultibase(mb); err == nil {
		return pub, nil
	}
	b, err := base58.Decode(strings.TrimPrefix(mb, "z"))
	if !strings.HasPrefix(mb, "z") || err != nil || len(b) != len(p256Codec)+33 || !bytes.HasPrefix(b, p256Codec) {
		return nil, fmt.Errorf("%w: did:key holds neither an Ed25519 nor a P-256 public key in base58btc (z...)", ErrUnsupportedDID)
	}
	x, y := elliptic.UnmarshalCompressed(elliptic.P256(), b[len(p256Codec):])
	if x == nil {
		return nil, fmt.Errorf("%w: did:key P-256 point is not on the curve", ErrUnsupportedDID)
	}
	// The point, uncompressed (SEC 1, 2.3.3: 0x04 || X || Y), parsed by crypto/ecdsa, which
	// checks it again; a key is never built from its coordinates by hand.
	uncompressed := make([]byte, 65)
	uncompressed[0] = 4
	x.FillBytes(uncompressed[1:33])
	y.FillBytes(uncompressed[33:])
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), uncompressed)
	if err != nil {
		return nil, fmt.Errorf("%w: did:key P-256 point: %v", ErrUnsupportedDID, err)
	}
	return pub, nil
}

func parseDIDJWK(encoded string) (jwk.Key, error) {
	b, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("%w: did:jwk is not base64url", ErrUnsupportedDID)
	}
	k, err := jwk.ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: did:jwk: %v", ErrUnsupportedDID, err)
	}
	if _, ok := k.(jwk.OKPPrivateKey); ok {
		return nil, fmt.Errorf("%w: did:jwk holds a private key", ErrUnsupportedDID)
	}
	if _, ok := k.(jwk.ECDSAPrivateKey); ok {
		return nil, fmt.Errorf("%w: did:jwk holds a private key", ErrUnsupportedDID)
	}
	return k, nil
}

// publicOf accepts the public keys holders bind with: Ed25519 and P-256.
func publicOf(raw any) (HolderKey, error) {
	switch k := raw.(type) {
	case ed25519.PublicKey:
		return k, nil
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: only Ed25519 and P-256 keys are accepted", ErrUnsupportedDID)
}

// DIDJWK is the did:jwk of a public key (a holder that proved a bare JWK is bound to it).
func DIDJWK(k jwk.Key) (string, error) {
	pub, err := k.PublicKey()
	if err != nil {
		return "", err
	}
	var raw any
	if err := jwk.Export(pub, &raw); err != nil {
		return "", err
	}
	if _, err := publicOf(raw); err != nil {
		return "", err
	}
	b, err := jsonOf(pub)
	if err != nil {
		return "", err
	}
	return "did:jwk:" + base64.RawURLEncoding.EncodeToString(b), nil
}
