package vc

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// The JOSE header values of a credential.jwt (VC-JOSE-COSE, 3.1.1: application/vc+jwt).
const (
	JWTType        = "vc+jwt"
	JWTContentType = "vc"
)

// SignJWT secures a credential (without an embedded proof) as VC-JOSE: a compact JWS whose
// payload is the credential JSON itself, header alg EdDSA, kid the verification method, typ
// vc+jwt, cty vc. The payload also carries the registered claims Open Badges 3.0 requires a
// verifier to find in a JWT credential (section 8.2.4.1), each read from the credential so that
// the two never disagree: iss (the issuer's id), jti (the credential's id), nbf (validFrom),
// exp (validUntil, when set), sub (credentialSubject.id, once bound to a holder), and iat, the
// time it was signed.
func (s Signer) SignJWT(credential any, signedAt time.Time) (string, error) {
	payload, m, err := documentJSON(credential)
	if err != nil {
		return "", err
	}
	if _, has := m["proof"]; has {
		return "", fmt.Errorf("vc: a credential.jwt payload carries no embedded proof")
	}
	// A JWS would sign any text, but credential.jwt and credential.json are one credential:
	// what the Data Integrity form refuses, this one refuses too.
	if err := checkCanonicalizable(m, "$"); err != nil {
		return "", err
	}
	claims, err := registeredClaims(m, signedAt)
	if err != nil {
		return "", err
	}
	// The claims follow the credential's members in the same object: documentJSON compacted
	// the payload, so it ends with the object's closing brace.
	payload = append(append(payload[:len(payload)-1:len(payload)-1], ','), claims[1:]...)
	hdr := jws.NewHeaders()
	for name, v := range map[string]any{
		jws.KeyIDKey:       s.VerificationMethod,
		jws.TypeKey:        JWTType,
		jws.ContentTypeKey: JWTContentType,
	} {
		if err := hdr.Set(name, v); err != nil {
			return "", fmt.Errorf("vc: JWS header %s: %w", name, err)
		}
	}
	// The raw key, not a jwk.Key: a jwk.Key's own kid would silently replace the header's.
	token, err := jws.Sign(payload, jws.WithKey(jwa.EdDSA(), s.key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		return "", fmt.Errorf("vc: sign JWT: %w", err)
	}
	return string(token), nil
}

// jwtClaims are the registered JWT claims of a credential.jwt (RFC 7519, section 4.1).
type jwtClaims struct {
	Iss string `json:"iss"`
	Jti string `json:"jti"`
	Sub string `json:"sub,omitempty"`
	Nbf int64  `json:"nbf"`
	Iat int64  `json:"iat"`
	Exp int64  `json:"exp,omitempty"`
}

// registeredClaims reads the claims of credential m (a JSON object) as a JSON object.
func registeredClaims(m map[string]any, signedAt time.Time) ([]byte, error) {
	for _, name := range []string{"iss", "jti", "sub", "nbf", "iat", "exp"} {
		if _, has := m[name]; has {
			return nil, fmt.Errorf("vc: the credential has a member %q, which its JWT claims would replace", name)
		}
	}
	c := jwtClaims{Iat: signedAt.Unix()}
	c.Jti, _ = m["id"].(string)
	switch iss := m["issuer"].(type) {
	case string:
		c.Iss = iss
	case map[string]any:
		c.Iss, _ = iss["id"].(string)
	}
	if subject, ok := m["credentialSubject"].(map[string]any); ok {
		c.Sub, _ = subject["id"].(string)
	}
	if c.Iss == "" || c.Jti == "" {
		return nil, fmt.Errorf("vc: a credential.jwt needs the credential's id and issuer id (for jti and iss)")
	}
	for _, t := range []struct {
		member string
		to     *int64
	}{{"validFrom", &c.Nbf}, {"validUntil", &c.Exp}} {
		v, ok := m[t.member].(string)
		if !ok {
			continue
		}
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, fmt.Errorf("vc: %s %q is not an RFC 3339 time: %w", t.member, v, err)
		}
		*t.to = at.Unix()
	}
	if c.Nbf == 0 {
		return nil, fmt.Errorf("vc: a credential.jwt needs the credential's validFrom (for nbf)")
	}
	return json.Marshal(c)
}

// VerifyJWT checks a credential.jwt against a JWK Set (the key named by its kid, alg EdDSA)
// and its typ, and returns the credential JSON.
func VerifyJWT(token string, keys jwk.Set) ([]byte, error) {
	msg, err := jws.Parse([]byte(token))
	if err != nil {
		return nil, fmt.Errorf("vc: parse JWT: %w", err)
	}
	if len(msg.Signatures()) != 1 {
		return nil, fmt.Errorf("vc: JWT must carry one signature")
	}
	hdr := msg.Signatures()[0].ProtectedHeaders()
	if typ, _ := hdr.Type(); typ != JWTType {
		return nil, fmt.Errorf("vc: JWT typ %q, want %q", typ, JWTType)
	}
	kid, _ := hdr.KeyID()
	key, ok := keys.LookupKeyID(kid)
	if !ok {
		return nil, fmt.Errorf("vc: JWT kid %q is not in the key set", kid)
	}
	var pub ed25519.PublicKey
	if err := jwk.Export(key, &pub); err != nil {
		return nil, fmt.Errorf("vc: JWT key %q is not Ed25519: %w", kid, err)
	}
	payload, err := jws.Verify([]byte(token), jws.WithKey(jwa.EdDSA(), pub))
	if err != nil {
		return nil, fmt.Errorf("vc: JWT signature: %w", err)
	}
	return payload, nil
}

// NewJWKSet lists the same keys as the DID document as a JWK Set: OKP/Ed25519, alg EdDSA, use
// sig, and kid the full verification method id (the kid a credential.jwt carries).
func NewJWKSet(did string, keys []ed25519.PublicKey) (jwk.Set, error) {
	set := jwk.NewSet()
	for _, k := range keys {
		key, err := jwk.Import(k)
		if err != nil {
			return nil, fmt.Errorf("vc: JWK of %s: %w", Multibase(k), err)
		}
		for name, v := range map[string]any{
			jwk.KeyIDKey:     VerificationMethodID(did, k),
			jwk.AlgorithmKey: jwa.EdDSA(),
			jwk.KeyUsageKey:  jwk.ForSignature,
		} {
			if err := key.Set(name, v); err != nil {
				return nil, fmt.Errorf("vc: JWK %s: %w", name, err)
			}
		}
		if err := set.AddKey(key); err != nil {
			return nil, err
		}
	}
	return set, nil
}
