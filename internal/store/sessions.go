package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// Session is a signed-in session of a user.
type Session struct {
	ID              uuid.UUID
	AccountID       uuid.UUID
	UserID          uuid.UUID
	AuthenticatedAt time.Time // the password (and code) sign-in that began it; refreshes keep it
	ExpiresAt       time.Time
}

// RefreshGrant is a refresh token to store: only its hash is kept.
type RefreshGrant struct {
	Hash      []byte
	ExpiresAt time.Time
}

// ErrRefreshReused reports a rotated refresh token presented again: its session is now revoked.
var ErrRefreshReused = errors.New("refresh token reused; session revoked")

// ErrRefreshInvalid reports an unknown or expired refresh token, or one of a revoked session.
var ErrRefreshInvalid = errors.New("refresh token unknown, expired or revoked")

// CreateSession starts a session for a user with its first refresh token.
func (s *Store) CreateSession(ctx context.Context, accountID, userID uuid.UUID, authenticatedAt time.Time, grant RefreshGrant) (Session, error) {
	var out db.Session
	err := s.WithTx(ctx, func(q *db.Queries) error {
		var err error
		out, err = q.CreateSession(ctx, db.CreateSessionParams{ID: newID(), AccountID: accountID, UserID: userID,
			AuthenticatedAt: authenticatedAt, ExpiresAt: grant.ExpiresAt})
		if err != nil {
			return err
		}
		return q.CreateRefreshToken(ctx, db.CreateRefreshTokenParams{ID: newID(), SessionID: out.ID,
			TokenHash: grant.Hash, ExpiresAt: grant.ExpiresAt})
	})
	if err != nil {
		return Session{}, err
	}
	return Session{ID: out.ID, AccountID: out.AccountID, UserID: out.UserID, AuthenticatedAt: out.AuthenticatedAt,
		ExpiresAt: out.ExpiresAt}, nil
}

// RotateRefreshToken exchanges the refresh token with hash presented for next, in one
// transaction that holds the presented token's row: of two concurrent refreshes with one token,
// exactly one succeeds. A token that was already rotated revokes its whole session (reuse
// detection) and answers ErrRefreshReused; that revocation is committed.
func (s *Store) RotateRefreshToken(ctx context.Context, presented []byte, next RefreshGrant) (Session, error) {
	var sess Session
	reused := false
	err := s.WithTx(ctx, func(q *db.Queries) error {
		rt, err := q.LockRefreshToken(ctx, presented)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrRefreshInvalid
		} else if err != nil {
			return err
		}
		now := time.Now()
		switch {
		case rt.SessionRevokedAt != nil, !rt.SessionExpiresAt.After(now), !rt.ExpiresAt.After(now):
			return ErrRefreshInvalid
		case rt.RotatedAt != nil:
			reused = true
			_, err := q.RevokeSession(ctx, db.RevokeSessionParams{ID: rt.SessionID, Reason: ptr("refresh token reused")})
			return err
		}
		if err := q.RotateRefreshToken(ctx, rt.ID); err != nil {
			return err
		}
		if err := q.CreateRefreshToken(ctx, db.CreateRefreshTokenParams{ID: newID(), SessionID: rt.SessionID,
			TokenHash: next.Hash, ExpiresAt: next.ExpiresAt}); err != nil {
			return err
		}
		if err := q.ExtendSession(ctx, db.ExtendSessionParams{ID: rt.SessionID, ExpiresAt: next.ExpiresAt}); err != nil {
			return err
		}
		sess = Session{ID: rt.SessionID, AccountID: rt.AccountID, UserID: rt.UserID, ExpiresAt: next.ExpiresAt}
		return nil
	})
	if err != nil {
		return Session{}, err
	}
	if reused {
		return Session{}, ErrRefreshReused
	}
	return sess, nil
}

// RevokeSessionWithToken ends a session, given the hash of one of its refresh tokens (current or
// rotated). It reports ErrRefreshInvalid when the token is not one of that session's, and
// succeeds without change when the session already ended.
func (s *Store) RevokeSessionWithToken(ctx context.Context, sessionID uuid.UUID, refreshHash []byte) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		rt, err := q.LockRefreshToken(ctx, refreshHash)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && rt.SessionID != sessionID) {
			return ErrRefreshInvalid
		} else if err != nil {
			return err
		}
		_, err = q.RevokeSession(ctx, db.RevokeSessionParams{ID: sessionID, Reason: ptr("signed out")})
		return err
	})
}

// FindActiveSession returns the session behind an access token, if it is still live.
func (s *Store) FindActiveSession(ctx context.Context, id, accountID, userID uuid.UUID) (Session, error) {
	r, err := s.q.ActiveSession(ctx, db.ActiveSessionParams{ID: id, AccountID: accountID, UserID: userID})
	if err != nil {
		return Session{}, mapError(err)
	}
	return Session{ID: r.ID, AccountID: r.AccountID, UserID: r.UserID, AuthenticatedAt: r.AuthenticatedAt}, nil
}

// SigningKey is an Ed25519 private key (its 32-byte seed) that signs access tokens.
type SigningKey struct {
	KID       string
	Seed      []byte
	CreatedAt time.Time
	RetiredAt *time.Time
}

// EnsureSigningKey makes candidate the active signing key when force is set (a key from the
// configuration), or when no key is active yet; otherwise the active key stays. It returns the
// active key. Several instances starting at once agree on one key: the database allows one.
func (s *Store) EnsureSigningKey(ctx context.Context, candidate SigningKey, force bool) (SigningKey, error) {
	var active db.SigningKey
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if force {
			if err := q.RetireSigningKeys(ctx, candidate.KID); err != nil {
				return err
			}
		}
		if _, err := q.InsertSigningKey(ctx, db.InsertSigningKeyParams{Kid: candidate.KID, PrivateKey: candidate.Seed}); err != nil {
			return err
		}
		if force {
			if err := q.ActivateSigningKey(ctx, candidate.KID); err != nil {
				return err
			}
		}
		var err error
		active, err = q.ActiveSigningKey(ctx)
		return err
	})
	if err != nil {
		return SigningKey{}, err
	}
	return signingKeyFrom(active), nil
}

// RotateSigningKey retires the active key and makes next the active one.
func (s *Store) RotateSigningKey(ctx context.Context, next SigningKey) error {
	_, err := s.EnsureSigningKey(ctx, next, true)
	return err
}

// VerifyingSigningKeys returns the active key and the keys retired after retiredAfter.
func (s *Store) VerifyingSigningKeys(ctx context.Context, retiredAfter time.Time) ([]SigningKey, error) {
	rows, err := s.q.VerifyingSigningKeys(ctx, retiredAfter)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, signingKeyFrom), nil
}

func signingKeyFrom(k db.SigningKey) SigningKey {
	return SigningKey{KID: k.Kid, Seed: k.PrivateKey, CreatedAt: k.CreatedAt, RetiredAt: k.RetiredAt}
}

func ptr[T any](v T) *T { return &v }

// convert turns generated rows into domain values.
func convert[R, V any](rows []R, f func(R) V) []V {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

// notFound is the answer for a resource that is not in the caller's account.
func notFound(what string) *apperr.Error { return apperr.New(apperr.NotFound, "No such %s.", what) }
