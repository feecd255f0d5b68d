package auth_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// verifyEdDSA checks a compact JWS by hand, independently of the library that made it.
func verifyEdDSA(tok string, pub ed25519.PublicKey) error {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return errors.New("not a compact JWS")
	}
	head, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return err
	}
	var h struct{ Alg, Kid string }
	if err := json.Unmarshal(head, &h); err != nil {
		return err
	}
	if h.Alg != "EdDSA" || h.Kid == "" {
		return errors.New("header " + string(head) + ": want alg EdDSA and a kid")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return errors.New("signature does not verify with the configured key")
	}
	return nil
}
