package wallet

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// ProofJWTType is the typ of an OpenID4VCI key proof (OpenID4VCI 1.0, appendix F.1).
const ProofJWTType = "openid4vci-proof+jwt"

// proofClockSkew is how far a proof's iat may be from our clock: wallets' clocks drift, and a
// proof is spent with its nonce anyway.
const proofClockSkew = 5 * time.Minute

// MaxProofJWTBytes bounds a proof JWT before it is parsed: a header naming one key and three
// claims take a few hundred bytes, and the request body's own bound (a megabyte) would let a
// did:key of hundreds of kilobytes reach base58 decoding, whose cost is quadratic.
const MaxProofJWTBytes = 8 << 10

// ErrInvalidProof says that a key proof is not one this issuer accepts (OAuth invalid_proof);
// the error says why.
var ErrInvalidProof = errors.New("wallet: invalid proof")

// KeyProof is what a verified proof JWT says: the holder's DID (the key's did:key or did:jwk)
// and the c_nonce it was made for, which the caller spends.
type KeyProof struct {
	Holder string
	Nonce  string
}

// VerifyProofJWT checks an OpenID4VCI proof of possession of the holder's key: a compact JWS of
// typ openid4vci-proof+jwt, signed EdDSA (Ed25519) or ES256 (P-256) by the key its kid names
// (a did:key or did:jwk verification method) or its jwk header carries, for the audience (the
// credential issuer's identifier), issued within a few minutes of now, carrying a nonce.
func VerifyProofJWT(token string, audience string, now time.Time) (KeyProof, error) {
	if len(token) > MaxProofJWTBytes {
		return KeyProof{}, fmt.Errorf("%w: larger than %d bytes", ErrInvalidProof, MaxProofJWTBytes)
	}
	msg, err := jws.ParseString(token)
	if err != nil {
		return KeyProof{}, fmt.Errorf("%w: not a compact JWS", ErrInvalidProof)
	}
	sigs := msg.Signatures()
	if len(sigs) != 1 {
		return KeyProof{}, fmt.Errorf("%w: one signature expected", ErrInvalidProof)
	}
	h := sigs[0].ProtectedHeaders()
	if typ, _ := h.Type(); typ != ProofJWTType {
		return KeyProof{}, fmt.Errorf("%w: typ must be %s", ErrInvalidProof, ProofJWTType)
	}
	alg, _ := h.Algorithm()
	holder, key, err := proofKey(h)
	if err != nil {
		return KeyProof{}, err
	}
	switch key.(type) {
	case ed25519.PublicKey:
		if alg != jwa.EdDSA() {
			return KeyProof{}, fmt.Errorf("%w: an Ed25519 key signs EdDSA, not %s", ErrInvalidProof, alg)
		}
	case *ecdsa.PublicKey:
		if alg != jwa.ES256() {
			return KeyProof{}, fmt.Errorf("%w: a P-256 key signs ES256, not %s", ErrInvalidProof, alg)
		}
	}
	payload, err := jws.Verify([]byte(token), jws.WithKey(alg, key))
	if err != nil {
		return KeyProof{}, fmt.Errorf("%w: the signature does not verify with the holder's key", ErrInvalidProof)
	}
	var claims struct {
		Aud   any     `json:"aud"`
		Iat   float64 `json:"iat"`
		Nonce string  `json:"nonce"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return KeyProof{}, fmt.Errorf("%w: the payload is not a JSON object of claims", ErrInvalidProof)
	}
	if !audienceIs(claims.Aud, audience) {
		return KeyProof{}, fmt.Errorf("%w: aud must be the credential issuer %s", ErrInvalidProof, audience)
	}
	if claims.Iat == 0 {
		return KeyProof{}, fmt.Errorf("%w: iat is required", ErrInvalidProof)
	}
	if iat := time.Unix(int64(claims.Iat), 0); iat.Before(now.Add(-proofClockSkew)) || iat.After(now.Add(proofClockSkew)) {
		return KeyProof{}, fmt.Errorf("%w: iat is more than %s from the issuer's clock", ErrInvalidProof, proofClockSkew)
	}
	return KeyProof{Holder: holder, Nonce: claims.Nonce}, nil
}

// proofKey is the key a proof names: through kid, a did:key or did:jwk verification method;
// through jwk, the key itself, which binds the credential to its did:jwk. Not both (F.1).
func proofKey(h jws.Headers) (string, HolderKey, error) {
	kid, hasKid := h.KeyID()
	k, hasJWK := h.JWK()
	switch {
	case hasKid && hasJWK:
		return "", nil, fmt.Errorf("%w: kid and jwk must not both be present", ErrInvalidProof)
	case hasKid:
		did, key, err := ResolveKey(kid)
		if err != nil {
			return "", nil, fmt.Errorf("%w: %w", ErrInvalidProof, err)
		}
		return did, key, nil
	case hasJWK:
		did, err := DIDJWK(k)
		if err != nil {
			return "", nil, fmt.Errorf("%w: jwk: %w", ErrInvalidProof, err)
		}
		_, key, err := ResolveKey(did)
		if err != nil {
			return "", nil, fmt.Errorf("%w: %w", ErrInvalidProof, err)
		}
		return did, key, nil
	}
	return "", nil, fmt.Errorf("%w: the header must name the holder's key (kid or jwk)", ErrInvalidProof)
}

func audienceIs(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		return slices.Contains(a, any(want))
	}
	return false
}

// jsonOf is a public JWK as did:jwk encodes it: its JSON, without a kid or other optional
// members that would make two DIDs of one key.
func jsonOf(k jwk.Key) ([]byte, error) {
	c, err := k.Clone()
	if err != nil {
		return nil, err
	}
	for _, name := range []string{jwk.KeyIDKey, jwk.KeyUsageKey, jwk.KeyOpsKey, jwk.AlgorithmKey} {
		_ = c.Remove(name)
	}
	return json.Marshal(c)
}
