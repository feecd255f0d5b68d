package auth

import (
	"context"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/store"
)

// TOTPSetup is a new secret waiting to be confirmed by EnableTOTP.
type TOTPSetup struct {
	Secret     string
	OtpauthURL string
}

// SetupTOTP makes a new secret for the principal's user; two-step sign-in stays off until a
// code from it is confirmed.
func (s *Service) SetupTOTP(ctx context.Context, p Principal) (TOTPSetup, error) {
	creds, err := s.credentials(ctx, p)
	if err != nil {
		return TOTPSetup{}, err
	}
	if creds.TOTPEnabled {
		return TOTPSetup{}, apperr.New(apperr.Conflict, "Two-step sign-in is already on; disable it first.")
	}
	secret, err := NewTOTPSecret()
	if err != nil {
		return TOTPSetup{}, err
	}
	sealed, err := s.secrets.Seal([]byte(secret), totpAssociated(p.UserID))
	if err != nil {
		return TOTPSetup{}, err
	}
	ok, err := store.InTx(ctx, s.store, func(tx *store.Tx) (bool, error) {
		return tx.SetPendingTOTPSecret(ctx, p.UserID, sealed, s.now())
	})
	if err != nil {
		return TOTPSetup{}, err
	} else if !ok {
		return TOTPSetup{}, apperr.New(apperr.Conflict, "Two-step sign-in is already on.")
	}
	return TOTPSetup{Secret: secret, OtpauthURL: TOTPURL(s.issuer, creds.User.Email, secret)}, nil
}

// EnableTOTP confirms the set-up secret with a code and switches two-step sign-in on. It
// returns the ten recovery codes, which are shown this once.
func (s *Service) EnableTOTP(ctx context.Context, p Principal, code string) ([]string, error) {
	creds, err := s.credentials(ctx, p)
	if err != nil {
		return nil, err
	}
	if creds.TOTPEnabled {
		return nil, apperr.New(apperr.Conflict, "Two-step sign-in is already on.")
	}
	if creds.TOTPSecretSealed == nil && creds.TOTPSecretPlain == "" {
		return nil, apperr.New(apperr.Conflict, "Set up two-step sign-in first (POST /auth/two-factor/setup).")
	}
	if ok, err := s.acceptTOTP(ctx, creds, code); err != nil {
		return nil, err
	} else if !ok {
		return nil, apperr.Invalid("code", "is not the current code of the authenticator, or was used already")
	}
	codes, hashes, err := newRecoveryCodes()
	if err != nil {
		return nil, err
	}
	now := s.now()
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		if ok, err := tx.EnableTOTP(ctx, p.UserID, now); err != nil {
			return struct{}{}, err
		} else if !ok {
			return struct{}{}, apperr.New(apperr.Conflict, "Two-step sign-in is already on, or was not set up.")
		}
		return struct{}{}, tx.ReplaceRecoveryCodes(ctx, p.UserID, hashes)
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP switches two-step sign-in off, given the password and a current code.
func (s *Service) DisableTOTP(ctx context.Context, p Principal, password, code string) error {
	creds, err := s.credentials(ctx, p)
	if err != nil {
		return err
	}
	if !creds.TOTPEnabled {
		return apperr.New(apperr.Conflict, "Two-step sign-in is not on.")
	}
	if ok, err := VerifyPassword(ctx, password, creds.PasswordHash); err != nil {
		return err
	} else if !ok {
		return apperr.Invalid("currentPassword", "is not correct")
	}
	if ok, err := s.acceptTOTP(ctx, creds, code); err != nil {
		return err
	} else if !ok {
		return apperr.Invalid("code", "is not the current code of the authenticator, or was used already")
	}
	now := s.now()
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		if ok, err := tx.DisableTOTP(ctx, p.UserID, now); err != nil {
			return struct{}{}, err
		} else if !ok {
			return struct{}{}, apperr.New(apperr.Conflict, "Two-step sign-in is not on.")
		}
		return struct{}{}, tx.ReplaceRecoveryCodes(ctx, p.UserID, nil)
	})
	return err
}

// acceptTOTP checks a code and records its time step as used, so that the code (and any
// earlier one) works once only, however many requests race with it.
func (s *Service) acceptTOTP(ctx context.Context, creds store.Credentials, code string) (bool, error) {
	secret, err := s.totpSecret(creds)
	if err != nil {
		return false, err
	}
	step, ok := matchTOTP(secret, code, s.now())
	if !ok {
		return false, nil
	}
	return s.store.AcceptTOTPStep(ctx, creds.User.ID, step)
}
