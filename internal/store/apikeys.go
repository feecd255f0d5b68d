package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
)

// APIKey is a key's summary; the key itself is never stored, only its hash.
type APIKey struct {
	ID         uuid.UUID
	AccountID  uuid.UUID
	Name       string
	Scopes     []string
	Prefix     string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
}

// NewAPIKey is a key to create.
type NewAPIKey struct {
	AccountID uuid.UUID
	CreatedBy uuid.UUID
	Name      string
	Scopes    []string
	Prefix    string
	Hash      []byte
	ExpiresAt *time.Time
}

// CreateAPIKey stores a key and, in the same transaction, the email that tells the account's
// owner about it. notice is called with the owner once the key exists.
func (s *Store) CreateAPIKey(ctx context.Context, k NewAPIKey, notice func(owner User, key APIKey) OutboundEmail) (APIKey, error) {
	var out APIKey
	err := s.WithTx(ctx, func(q *db.Queries) error {
		row, err := q.CreateAPIKey(ctx, db.CreateAPIKeyParams{ID: newID(), AccountID: k.AccountID, CreatedBy: k.CreatedBy,
			Name: k.Name, Scopes: k.Scopes, Prefix: k.Prefix, KeyHash: k.Hash, ExpiresAt: k.ExpiresAt})
		if err != nil {
			return err
		}
		out = apiKeyFrom(row)
		owner, err := q.FindAccountOwner(ctx, k.AccountID)
		if err != nil {
			return err
		}
		_, err = enqueueEmail(ctx, q, notice(userFrom(owner), out))
		return err
	})
	return out, err
}

// ListActiveAPIKeys returns the account's keys that are neither deleted nor expired, newest first.
func (s *Store) ListActiveAPIKeys(ctx context.Context, accountID uuid.UUID) ([]APIKey, error) {
	rows, err := s.q.ListActiveAPIKeys(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, apiKeyFrom), nil
}

// DeleteAPIKey deletes a key of the account; it answers 401 from then on.
func (s *Store) DeleteAPIKey(ctx context.Context, accountID, id uuid.UUID) error {
	n, err := s.q.DeleteAPIKey(ctx, db.DeleteAPIKeyParams{AccountID: accountID, ID: id})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return notFound("API key")
	}
	return nil
}

// ActiveKey is what authenticating with a key yields.
type ActiveKey struct {
	ID         uuid.UUID
	AccountID  uuid.UUID
	Scopes     []string
	LastUsedAt *time.Time
}

// ErrNoSuchKey reports a key that is unknown, deleted or expired.
var ErrNoSuchKey = errors.New("no active API key with this hash")

// FindActiveAPIKey returns the live key with hash.
func (s *Store) FindActiveAPIKey(ctx context.Context, hash []byte) (ActiveKey, error) {
	r, err := s.q.FindActiveAPIKeyByHash(ctx, hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return ActiveKey{}, ErrNoSuchKey
	} else if err != nil {
		return ActiveKey{}, mapError(err)
	}
	return ActiveKey{ID: r.ID, AccountID: r.AccountID, Scopes: r.Scopes, LastUsedAt: r.LastUsedAt}, nil
}

// TouchAPIKey records that a key was used (at most once a minute).
func (s *Store) TouchAPIKey(ctx context.Context, id uuid.UUID) error {
	return mapError(s.q.TouchAPIKey(ctx, id))
}

func apiKeyFrom(r db.ApiKey) APIKey {
	return APIKey{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Scopes: r.Scopes, Prefix: r.Prefix,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, LastUsedAt: r.LastUsedAt}
}
