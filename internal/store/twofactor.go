package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
)

// SetPendingTOTPSecret stores a new secret for a user whose two-step sign-in is not on; false
// when it is on.
func (d queries) SetPendingTOTPSecret(ctx context.Context, userID uuid.UUID, secret string, now time.Time) (bool, error) {
	n, err := d.q.SetPendingTOTPSecret(ctx, db.SetPendingTOTPSecretParams{ID: userID, Secret: &secret, Now: now})
	return n == 1, mapError(err)
}

// AcceptTOTPStep records step as used; false when it (or a later step) was used before.
func (d queries) AcceptTOTPStep(ctx context.Context, userID uuid.UUID, step int64) (bool, error) {
	n, err := d.q.AcceptTOTPStep(ctx, db.AcceptTOTPStepParams{ID: userID, Step: step})
	return n == 1, mapError(err)
}

// EnableTOTP switches two-step sign-in on for a user who set up a secret; false when it is on
// already or no secret was set up.
func (d queries) EnableTOTP(ctx context.Context, userID uuid.UUID, now time.Time) (bool, error) {
	n, err := d.q.EnableTOTP(ctx, db.EnableTOTPParams{ID: userID, Now: now})
	return n == 1, mapError(err)
}

// DisableTOTP switches two-step sign-in off and drops the secret; false when it was not on.
func (d queries) DisableTOTP(ctx context.Context, userID uuid.UUID, now time.Time) (bool, error) {
	n, err := d.q.DisableTOTP(ctx, db.DisableTOTPParams{ID: userID, Now: now})
	return n == 1, mapError(err)
}

// ReplaceRecoveryCodes drops a user's recovery codes and stores codeHashes instead (none: the
// user has none). Run it in a transaction.
func (t *Tx) ReplaceRecoveryCodes(ctx context.Context, userID uuid.UUID, codeHashes [][]byte) error {
	if err := t.q.DeleteRecoveryCodes(ctx, userID); err != nil {
		return mapError(err)
	}
	if len(codeHashes) == 0 {
		return nil
	}
	rows := make([]db.InsertRecoveryCodesParams, len(codeHashes))
	for i, h := range codeHashes {
		rows[i] = db.InsertRecoveryCodesParams{ID: newID(), UserID: userID, CodeHash: h}
	}
	_, err := t.q.InsertRecoveryCodes(ctx, rows)
	return mapError(err)
}

// UseRecoveryCode spends an unused recovery code at now; false when there is none with this hash.
func (d queries) UseRecoveryCode(ctx context.Context, userID uuid.UUID, hash []byte, now time.Time) (bool, error) {
	n, err := d.q.UseRecoveryCode(ctx, db.UseRecoveryCodeParams{UserID: userID, CodeHash: hash, Now: now})
	return n == 1, mapError(err)
}
