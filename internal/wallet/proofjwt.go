package wallet

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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
// credential issuer's identifier), issued within a few minutes of now, carrying a nonce. It
// refuses a JWS JSON serialization, a header that names critical extensions, and a jwk header
// that carries private key material.
func VerifyProofJWT(token string, audience string, now time.Time) (KeyProof, error) {
	if len(token) > MaxProofJWTBytes {
		return KeyProof{}, fmt.Errorf("%w: larger than %d bytes", ErrInvalidProof, MaxProofJWTBytes)
	}
	// A jwt proof is a JWT (OpenID4VCI 1.0, appendix F.1), and a JWT is always in the compact
	// serialization (RFC 7519, section 1): the JSON serializations, which jws.Parse would take
	// too, are refused by name, and nothing but the compact form is parsed.
	if strings.HasPrefix(strings.TrimLeft(token, " \t\r\n"), "{") {
		return KeyProof{}, fmt.Errorf("%w: a JWS JSON serialization (general or flattened) is not a jwt proof: send the compact serialization (header.payload.signature)", ErrInvalidProof)
	}
	msg, err := jws.ParseString(token, jws.WithCompact())
	if err != nil {
		return KeyProof{}, fmt.Errorf("%w: not a compact JWS", ErrInvalidProof)
	}
	sigs := msg.Signatures()
	if len(sigs) != 1 {
		return KeyProof{}, fmt.Errorf("%w: one signature expected", ErrInvalidProof)
	}
	if err := checkProofHeader(token); err != nil {
		return KeyProof{}, err
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
	// Crit validation again, as the library does it, behind checkProofHeader's refusal of any
	// crit: no extension is declared, so none can pass.
	payload, err := jws.Verify([]byte(token), jws.WithCompact(), jws.WithCritValidation(true), jws.WithKey(alg, key))
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

// privateJWKMembers are the members of a JWK that hold private or secret key material: d (EC,
// OKP and RSA private keys), the RSA private key's other members, and k (a symmetric key)
// (RFC 7518, sections 6.2.2, 6.3.2 and 6.4.1; RFC 8037, section 2).
var privateJWKMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// checkProofHeader refuses, from the protected header as sent, what the parsed headers would
// hide or the library would accept:
//
//   - crit: RFC 7515, section 4.1.11, makes a JWS whose crit lists an extension the recipient
//     does not understand invalid. This issuer understands none (b64, RFC 7797, included: a
//     proof's payload is its claims, base64url-encoded), so any crit refuses the proof, an
//     empty list too (which producers must not send).
//   - a jwk with private key material: the issuer must check that "the header parameter does
//     not contain a private key" (OpenID4VCI 1.0, appendix F.4), and RFC 7515, section 4.1.3,
//     makes jwk the public key. The library would take the public half and go on; but a wallet
//     that sends its private key has leaked it, and a credential bound to that key would prove
//     nothing about who holds it.
func checkProofHeader(token string) error {
	protected, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(protected)
	if err != nil {
		return fmt.Errorf("%w: the protected header is not base64url", ErrInvalidProof)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw, &header); err != nil {
		return fmt.Errorf("%w: the protected header is not a JSON object", ErrInvalidProof)
	}
	if _, ok := header[jws.CriticalKey]; ok {
		return fmt.Errorf("%w: the header lists critical extensions (crit), and this issuer understands none: send the proof without crit", ErrInvalidProof)
	}
	if k, ok := header[jws.JWKKey]; ok {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(k, &members); err != nil {
			return fmt.Errorf("%w: the jwk header is not a JSON object", ErrInvalidProof)
		}
		for _, name := range privateJWKMembers {
			if _, ok := members[name]; ok {
				return fmt.Errorf("%w: the jwk header carries private key material (%s): a proof names the public key only; this key was disclosed and must no longer be used", ErrInvalidProof, name)
			}
		}
	}
	return nil
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
