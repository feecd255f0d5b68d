package issuance

import (
	"context"
	"crypto/rand"
	"errors"
	"time"

	"github.com/certhub/credentiald/internal/store"
)

// crockford is Crockford's base32 alphabet: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// codeLength characters of base32 carry 65 random bits.
const codeLength = 13

// DrawVerificationCode draws a random verification code for any credential: 13 characters of
// Crockford's base32 (65 random bits), upper case. Reserve it in verification_codes before use
// (ReserveCodes).
func DrawVerificationCode() (string, error) {
	var b [codeLength]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = crockford[b[i]&31]
	}
	return string(b[:]), nil
}

// ReserveCodes draws n verification codes with draw (DrawVerificationCode, or a test's) and
// reserves them for credentials of kind in one statement, drawing again for any that was taken
// (unlikely at 65 bits), up to 5 rounds. It runs before an issuance takes the account's hot
// rows: a taken code is redrawn before any row names it.
func ReserveCodes(ctx context.Context, tx *store.Tx, draw func() (string, error), n int, kind string, now time.Time) ([]string, error) {
	var out []string
	if n == 0 {
		return nil, nil
	}
	for range 5 {
		batch := make([]string, n-len(out))
		for i := range batch {
			c, err := draw()
			if err != nil {
				return nil, err
			}
			batch[i] = c
		}
		got, err := tx.RegisterVerificationCodes(ctx, batch, kind, now)
		if err != nil {
			return nil, err
		}
		for _, c := range batch {
			if got[c] {
				out = append(out, c)
			}
		}
		if len(out) == n {
			return out, nil
		}
	}
	return nil, errors.New("issuance: no free verification codes after 5 draws")
}
