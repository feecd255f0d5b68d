package auth

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// TOTP secrets are kept sealed (AES-256-GCM under SECRETS_KEY), bound to their user by the
// associated data "totp:<user id>", so that a sealed secret copied to another user's row does
// not open there. Secrets stored plain before sealing existed are still read, and sealed by
// SealTOTPSecrets, which the service runs at every start.

func totpAssociated(userID uuid.UUID) []byte { return []byte("totp:" + userID.String()) }

// totpSecret returns the user's TOTP secret in clear; empty when none is set up.
func (s *Service) totpSecret(c store.Credentials) (string, error) {
	if c.TOTPSecretSealed == nil {
		return c.TOTPSecretPlain, nil
	}
	b, err := s.secrets.Open(c.TOTPSecretSealed, totpAssociated(c.User.ID))
	if err != nil {
		return "", fmt.Errorf("the TOTP secret of user %s: %w", c.User.ID, err)
	}
	return string(b), nil
}

// SealTOTPSecrets seals under the box's current key every TOTP secret stored plain and, when
// rotate is set, every sealed one under another key the box holds. It returns how many it
// sealed. A secret changed meanwhile (set up again, switched off) is left as it is now.
func SealTOTPSecrets(ctx context.Context, st *store.Store, box *secretbox.Box, rotate bool) (int, error) {
	n := 0
	after := uuid.Nil
	for {
		batch, err := st.TOTPSecrets(ctx, after, 500)
		if err != nil || len(batch) == 0 {
			return n, err
		}
		for _, sec := range batch {
			after = sec.UserID
			var plain []byte
			switch {
			case sec.Sealed == nil && sec.Plain != nil:
				plain = []byte(*sec.Plain)
			case sec.Sealed != nil && rotate && !box.Current(sec.Sealed):
				if plain, err = box.Open(sec.Sealed, totpAssociated(sec.UserID)); err != nil {
					return n, fmt.Errorf("the TOTP secret of user %s: %w (is its key in SECRETS_KEY_PREVIOUS?)", sec.UserID, err)
				}
			default:
				continue
			}
			sealed, err := box.Seal(plain, totpAssociated(sec.UserID))
			if err != nil {
				return n, err
			}
			if ok, err := st.ReplaceTOTPSecret(ctx, sec, sealed); err != nil {
				return n, err
			} else if ok {
				n++
			}
		}
	}
}
