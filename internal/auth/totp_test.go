package auth

import (
	"strings"
	"testing"
	"time"
)

// RFC 6238 appendix B (SHA-1 secret "12345678901234567890"), last six of the eight digits.
func TestTOTPCodesMatchRFC6238(t *testing.T) {
	secret := base32NoPad.EncodeToString([]byte("12345678901234567890"))
	for unix, want := range map[int64]string{59: "287082", 1111111109: "081804", 1111111111: "050471",
		1234567890: "005924", 2000000000: "279037", 20000000000: "353130"} {
		got, err := TOTPCode(secret, TOTPStep(time.Unix(unix, 0)))
		if err != nil || got != want {
			t.Errorf("T=%d: %q %v, want %q", unix, got, err, want)
		}
	}
}

func TestTOTPAcceptsOneStepOfSkewOnly(t *testing.T) {
	secret, err := NewTOTPSecret()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	for offset, ok := range map[int64]bool{-2: false, -1: true, 0: true, 1: true, 2: false} {
		code, _ := TOTPCode(secret, TOTPStep(now)+offset)
		step, matched := matchTOTP(secret, code, now)
		if matched != ok || (ok && step != TOTPStep(now)+offset) {
			t.Errorf("offset %d: matched %v step %d", offset, matched, step)
		}
	}
}

func TestRecoveryCodesAreTenDistinctAndForgiveTyping(t *testing.T) {
	codes, hashes, err := newRecoveryCodes()
	if err != nil || len(codes) != 10 || len(hashes) != 10 {
		t.Fatalf("%v %v", codes, err)
	}
	seen := map[string]bool{}
	for i, c := range codes {
		if seen[c] || len(c) != 11 || c[5] != '-' {
			t.Fatalf("code %q", c)
		}
		seen[c] = true
		typed := " " + strings.ToUpper(strings.ReplaceAll(c, "-", " ")) + " "
		if string(hashRecoveryCode(typed)) != string(hashes[i]) {
			t.Fatalf("%q typed as %q does not match", c, typed)
		}
	}
}
