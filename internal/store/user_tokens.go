package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
)

// Purposes of a user's single-use tokens.
const (
	TokenPasswordReset     = "password_reset"
	TokenEmailVerification = "email_verification"
)

// UserToken is a single-use token of a user's link; only its hash is kept.
type UserToken struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Purpose   string
	ExpiresAt time.Time
}

// CreateUserToken stores a token of purpose for a user by its hash, valid until expiresAt.
func (d queries) CreateUserToken(ctx context.Context, userID uuid.UUID, purpose string, hash []byte, expiresAt, now time.Time) (UserToken, error) {
	r, err := d.q.CreateUserToken(ctx, db.CreateUserTokenParams{ID: newID(), UserID: userID, Purpose: purpose, TokenHash: hash,
		ExpiresAt: expiresAt, Now: now})
	if err != nil {
		return UserToken{}, mapError(err)
	}
	return UserToken{ID: r.ID, UserID: r.UserID, Purpose: r.Purpose, ExpiresAt: r.ExpiresAt}, nil
}

// CountRecentUserTokens counts a user's tokens of purpose made since since.
func (d queries) CountRecentUserTokens(ctx context.Context, userID uuid.UUID, purpose string, since time.Time) (int, error) {
	n, err := d.q.CountRecentUserTokens(ctx, db.CountRecentUserTokensParams{UserID: userID, Purpose: purpose, Since: since})
	return int(n), mapError(err)
}

// SetUserToken gives an unused, unexpired token of the user of the account at address the
// hash of a new token. ErrNotFound: there is no such token.
func (d queries) SetUserToken(ctx context.Context, accountID, id uuid.UUID, address string, hash []byte, now time.Time) (UserToken, error) {
	r, err := d.q.SetUserToken(ctx, db.SetUserTokenParams{ID: id, AccountID: accountID, Email: address, TokenHash: hash, Now: now})
	if err != nil {
		return UserToken{}, mapError(err)
	}
	return UserToken{ID: r.ID, UserID: r.UserID, Purpose: r.Purpose, ExpiresAt: r.ExpiresAt}, nil
}

// SpentToken is the user a spent token was for.
type SpentToken struct {
	ID, UserID, AccountID uuid.UUID
}

// SpendUserToken marks the unused, unexpired token of purpose whose hash is hash used at now.
// ErrNotFound: there is none (unknown, used or expired).
func (d queries) SpendUserToken(ctx context.Context, purpose string, hash []byte, now time.Time) (SpentToken, error) {
	r, err := d.q.SpendUserToken(ctx, db.SpendUserTokenParams{Purpose: purpose, TokenHash: hash, Now: now})
	if err != nil {
		return SpentToken{}, mapError(err)
	}
	return SpentToken{ID: r.ID, UserID: r.UserID, AccountID: r.AccountID}, nil
}

// ExpireUserTokens marks a user's unused tokens of purpose used at now.
func (d queries) ExpireUserTokens(ctx context.Context, userID uuid.UUID, purpose string, now time.Time) error {
	return mapError(d.q.ExpireUserTokens(ctx, db.ExpireUserTokensParams{UserID: userID, Purpose: purpose, Now: now}))
}

// SetUserPassword stores a user's new password hash.
func (d queries) SetUserPassword(ctx context.Context, userID uuid.UUID, hash string, now time.Time) error {
	return mapError(d.q.SetUserPassword(ctx, db.SetUserPasswordParams{ID: userID, PasswordHash: hash, Now: now}))
}

// MarkEmailVerified records that a user's address reached them (the first time counts).
func (d queries) MarkEmailVerified(ctx context.Context, userID uuid.UUID, now time.Time) error {
	return mapError(d.q.MarkEmailVerified(ctx, db.MarkEmailVerifiedParams{ID: userID, Now: now}))
}

// LiveSession is a session as its user sees it.
type LiveSession struct {
	ID            uuid.UUID
	CreatedAt     time.Time
	LastUsedAt    *time.Time
	IP, UserAgent string
}

// ListLiveSessions returns a user's live sessions at now (at most 100), the most recently used
// first.
func (d queries) ListLiveSessions(ctx context.Context, accountID, userID uuid.UUID, now time.Time) ([]LiveSession, error) {
	rows, err := d.q.ListLiveSessions(ctx, db.ListLiveSessionsParams{AccountID: accountID, UserID: userID, Now: now})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.ListLiveSessionsRow) LiveSession {
		return LiveSession{ID: r.ID, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, IP: deref(r.Ip), UserAgent: deref(r.UserAgent)}
	}), nil
}

// EndSession ends one live session of a user at now. ErrNotFound: none is live by that id.
func (d queries) EndSession(ctx context.Context, accountID, userID, id uuid.UUID, reason string, now time.Time) error {
	n, err := d.q.EndSession(ctx, db.EndSessionParams{AccountID: accountID, UserID: userID, ID: id, Reason: &reason, Now: now})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// TouchSession records that a session was used at now (at most once a minute).
func (d queries) TouchSession(ctx context.Context, id uuid.UUID, now time.Time) error {
	return mapError(d.q.TouchSession(ctx, db.TouchSessionParams{ID: id, Now: now}))
}
