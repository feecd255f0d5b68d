package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// Session is a signed-in session of a user.
type Session struct {
	ID              uuid.UUID
	AccountID       uuid.UUID
	UserID          uuid.UUID
	AuthenticatedAt time.Time // the password (and code) sign-in that began it; refreshes keep it
	ExpiresAt       time.Time
	// Role, UserName and EmailVerified are the user's now, LastUsedAt the session's
	// (FindActiveSession only).
	Role          string
	UserName      string
	EmailVerified bool
	LastUsedAt    *time.Time
}

// RefreshGrant is a refresh token to store: only its hash is kept.
type RefreshGrant struct {
	Hash      []byte
	ExpiresAt time.Time
}

// How a session began (its method).
const (
	SessionByPassword = "password"
	SessionBySSO      = "sso"
)

// CreateSession starts a session for a user, created at now, begun by method
// (SessionByPassword or SessionBySSO). Run it in a transaction with the session's first
// refresh token (CreateRefreshToken).
func (d queries) CreateSession(ctx context.Context, accountID, userID uuid.UUID, client domain.Client, method string, authenticatedAt, expiresAt, now time.Time) (Session, error) {
	row, err := d.q.CreateSession(ctx, db.CreateSessionParams{ID: newID(), AccountID: accountID, UserID: userID,
		AuthenticatedAt: authenticatedAt, ExpiresAt: expiresAt, Ip: stringOrNil(client.IP), UserAgent: stringOrNil(client.UserAgent),
		Method: method, Now: now})
	if err != nil {
		return Session{}, mapError(err)
	}
	return Session{ID: row.ID, AccountID: row.AccountID, UserID: row.UserID, AuthenticatedAt: row.AuthenticatedAt,
		ExpiresAt: row.ExpiresAt}, nil
}

// CreateRefreshToken stores a refresh token of a session, created at now.
func (d queries) CreateRefreshToken(ctx context.Context, sessionID uuid.UUID, grant RefreshGrant, now time.Time) error {
	return mapError(d.q.CreateRefreshToken(ctx, db.CreateRefreshTokenParams{ID: newID(), SessionID: sessionID,
		TokenHash: grant.Hash, ExpiresAt: grant.ExpiresAt, Now: now}))
}

// RefreshToken is a stored refresh token with the state of its session.
type RefreshToken struct {
	ID, SessionID     uuid.UUID
	AccountID, UserID uuid.UUID
	ExpiresAt         time.Time
	RotatedAt         *time.Time // set once exchanged for a new one
	SessionRevokedAt  *time.Time
	SessionExpiresAt  time.Time
}

// LockRefreshToken returns the refresh token with hash and its session, holding the token until
// the transaction ends: of two refreshes with one token, the second sees the first's rotation.
// ErrNotFound: no such token.
func (d queries) LockRefreshToken(ctx context.Context, hash []byte) (RefreshToken, error) {
	r, err := d.q.LockRefreshToken(ctx, hash)
	if err != nil {
		return RefreshToken{}, mapError(err)
	}
	return RefreshToken{ID: r.ID, SessionID: r.SessionID, AccountID: r.AccountID, UserID: r.UserID, ExpiresAt: r.ExpiresAt,
		RotatedAt: r.RotatedAt, SessionRevokedAt: r.SessionRevokedAt, SessionExpiresAt: r.SessionExpiresAt}, nil
}

// RotateRefreshToken marks a refresh token exchanged at now.
func (d queries) RotateRefreshToken(ctx context.Context, id uuid.UUID, now time.Time) error {
	return mapError(d.q.RotateRefreshToken(ctx, db.RotateRefreshTokenParams{ID: id, Now: now}))
}

// ExtendSession moves a live session's expiry.
func (d queries) ExtendSession(ctx context.Context, id uuid.UUID, expiresAt time.Time) error {
	return mapError(d.q.ExtendSession(ctx, db.ExtendSessionParams{ID: id, ExpiresAt: expiresAt}))
}

// RevokeSession ends a session at now, for reason; a session already ended stays as it was.
func (d queries) RevokeSession(ctx context.Context, id uuid.UUID, reason string, now time.Time) error {
	_, err := d.q.RevokeSession(ctx, db.RevokeSessionParams{ID: id, Reason: &reason, Now: now})
	return mapError(err)
}

// FindActiveSession returns the session behind an access token if it is live at now.
// ErrNotFound: it ended, expired or never was.
func (d queries) FindActiveSession(ctx context.Context, id, accountID, userID uuid.UUID, now time.Time) (Session, error) {
	r, err := d.q.ActiveSession(ctx, db.ActiveSessionParams{ID: id, AccountID: accountID, UserID: userID, Now: now})
	if err != nil {
		return Session{}, mapError(err)
	}
	return Session{ID: r.ID, AccountID: r.AccountID, UserID: r.UserID, AuthenticatedAt: r.AuthenticatedAt, Role: r.Role, UserName: r.Name,
		EmailVerified: r.EmailVerified, LastUsedAt: r.LastUsedAt}, nil
}

// SigningKey is an Ed25519 private key (its 32-byte seed) that signs access tokens.
type SigningKey struct {
	KID       string
	Seed      []byte
	CreatedAt time.Time
	RetiredAt *time.Time
}

// RetireSigningKeys retires, at now, every active signing key but keep.
func (d queries) RetireSigningKeys(ctx context.Context, keep string, now time.Time) error {
	return mapError(d.q.RetireSigningKeys(ctx, db.RetireSigningKeysParams{KeepKid: keep, Now: now}))
}

// InsertSigningKey stores a key as the active one, created at now, unless a key is active
// already (the database allows one) or the key is stored already: then nothing changes.
func (d queries) InsertSigningKey(ctx context.Context, k SigningKey, now time.Time) error {
	_, err := d.q.InsertSigningKey(ctx, db.InsertSigningKeyParams{Kid: k.KID, PrivateKey: k.Seed, Now: now})
	return mapError(err)
}

// ActivateSigningKey makes a stored key the active one; retire the others first.
func (d queries) ActivateSigningKey(ctx context.Context, kid string) error {
	return mapError(d.q.ActivateSigningKey(ctx, kid))
}

// VerifyingSigningKeys returns the active key and the keys retired after retiredAfter.
func (d queries) VerifyingSigningKeys(ctx context.Context, retiredAfter time.Time) ([]SigningKey, error) {
	rows, err := d.q.VerifyingSigningKeys(ctx, retiredAfter)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, signingKeyFrom), nil
}

func signingKeyFrom(k db.SigningKey) SigningKey {
	return SigningKey{KID: k.Kid, Seed: k.PrivateKey, CreatedAt: k.CreatedAt, RetiredAt: k.RetiredAt}
}

// convert turns generated rows into domain values.
func convert[R, V any](rows []R, f func(R) V) []V {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}
