package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// TOTP per RFC 6238 with the parameters every authenticator app supports: HMAC-SHA1, 30-second
// steps, 6 digits; one step of clock skew either way is accepted.
const (
	totpPeriod = 30
	totpDigits = 6
	totpSkew   = 1
)

var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewTOTPSecret returns a new 160-bit secret in base32, as authenticator apps take it.
func NewTOTPSecret() (string, error) {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base32NoPad.EncodeToString(b), nil
}

// TOTPURL is the otpauth:// URL an authenticator app reads from a QR code.
func TOTPURL(issuer, account, secret string) string {
	q := url.Values{}
	q.Set("secret", secret)
	q.Set("issuer", issuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", fmt.Sprint(totpDigits))
	q.Set("period", fmt.Sprint(totpPeriod))
	return "otpauth://totp/" + url.PathEscape(issuer+":"+account) + "?" + q.Encode()
}

// TOTPStep is the RFC 6238 time step of t.
func TOTPStep(t time.Time) int64 { return t.Unix() / totpPeriod }

// TOTPCode is the code of secret for a time step (RFC 4226 dynamic truncation).
func TOTPCode(secret string, step int64) (string, error) {
	key, err := base32NoPad.DecodeString(strings.ToUpper(secret))
	if err != nil {
		return "", fmt.Errorf("TOTP secret: %w", err)
	}
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(step))
	mac := hmac.New(sha1.New, key)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%0*d", totpDigits, v%1_000_000), nil
}

// matchTOTP returns the time step whose code is code, within the allowed skew around now. The
// caller must still record the step as used (AcceptTOTPStep) so that it works once only.
func matchTOTP(secret, code string, now time.Time) (int64, bool) {
	cur := TOTPStep(now)
	found, match := int64(0), 0
	for step := cur - totpSkew; step <= cur+totpSkew; step++ {
		want, err := TOTPCode(secret, step)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found, match = step, 1
		}
	}
	return found, match == 1
}

// Recovery codes: ten single-use codes of 50 random bits, shown as xxxxx-xxxxx.
const recoveryCodeCount = 10

var recoveryAlphabet = base32.NewEncoding("abcdefghijkmnpqrstuvwxyz23456789").WithPadding(base32.NoPadding)

func newRecoveryCodes() (codes []string, hashes [][]byte, err error) {
	for range recoveryCodeCount {
		b := make([]byte, 7)
		if _, err := rand.Read(b); err != nil {
			return nil, nil, err
		}
		s := recoveryAlphabet.EncodeToString(b)[:10]
		codes = append(codes, s[:5]+"-"+s[5:])
		hashes = append(hashes, hashRecoveryCode(s))
	}
	return codes, hashes, nil
}

// hashRecoveryCode hashes a code as typed: case, spaces and dashes do not matter. The codes
// carry 50 random bits and are single-use, so a fast hash is enough.
func hashRecoveryCode(code string) []byte {
	norm := strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
	sum := sha256.Sum256([]byte("recovery:" + norm))
	return sum[:]
}
