package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// SetPendingTOTPSecret stores a new secret for a user whose two-step sign-in is not on yet.
func (s *Store) SetPendingTOTPSecret(ctx context.Context, userID uuid.UUID, secret string) error {
	n, err := s.q.SetPendingTOTPSecret(ctx, db.SetPendingTOTPSecretParams{ID: userID, Secret: &secret})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return apperr.New(apperr.Conflict, "Two-step sign-in is already on.")
	}
	return nil
}

// AcceptTOTPStep records step as used; false when it (or a later step) was used before.
func (s *Store) AcceptTOTPStep(ctx context.Context, userID uuid.UUID, step int64) (bool, error) {
	n, err := s.q.AcceptTOTPStep(ctx, db.AcceptTOTPStepParams{ID: userID, Step: step})
	return n == 1, mapError(err)
}

// EnableTOTP switches two-step sign-in on and replaces the recovery codes with codeHashes.
func (s *Store) EnableTOTP(ctx context.Context, userID uuid.UUID, codeHashes [][]byte) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		n, err := q.EnableTOTP(ctx, userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.New(apperr.Conflict, "Two-step sign-in is already on, or was not set up.")
		}
		if err := q.DeleteRecoveryCodes(ctx, userID); err != nil {
			return err
		}
		rows := make([]db.InsertRecoveryCodesParams, len(codeHashes))
		for i, h := range codeHashes {
			rows[i] = db.InsertRecoveryCodesParams{ID: newID(), UserID: userID, CodeHash: h}
		}
		_, err = q.InsertRecoveryCodes(ctx, rows)
		return err
	})
}

// DisableTOTP switches two-step sign-in off and drops the secret and the recovery codes.
func (s *Store) DisableTOTP(ctx context.Context, userID uuid.UUID) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		n, err := q.DisableTOTP(ctx, userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.New(apperr.Conflict, "Two-step sign-in is not on.")
		}
		return q.DeleteRecoveryCodes(ctx, userID)
	})
}

// UseRecoveryCode spends an unused recovery code; false when there is none with this hash.
func (s *Store) UseRecoveryCode(ctx context.Context, userID uuid.UUID, hash []byte) (bool, error) {
	n, err := s.q.UseRecoveryCode(ctx, db.UseRecoveryCodeParams{UserID: userID, CodeHash: hash})
	return n == 1, mapError(err)
}
