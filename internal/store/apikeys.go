package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// NewAPIKey is a key to create.
type NewAPIKey struct {
	AccountID uuid.UUID
	CreatedBy uuid.UUID
	// CreatorName is the creator's name when the key is made, kept when they are gone.
	CreatorName string
	Name        string
	Scopes      []string
	Prefix      string
	Hash        []byte
	ExpiresAt   *time.Time
}

// CreateAPIKey stores a key, created at now.
func (d queries) CreateAPIKey(ctx context.Context, k NewAPIKey, now time.Time) (domain.APIKey, error) {
	row, err := d.q.CreateAPIKey(ctx, db.CreateAPIKeyParams{ID: newID(), AccountID: k.AccountID, CreatedBy: &k.CreatedBy,
		CreatedByName: k.CreatorName, Name: k.Name, Scopes: k.Scopes, Prefix: k.Prefix, KeyHash: k.Hash, ExpiresAt: k.ExpiresAt, Now: now})
	if err != nil {
		return domain.APIKey{}, mapError(err)
	}
	return apiKeyFrom(row), nil
}

// ListActiveAPIKeys returns the account's keys that are neither deleted nor expired at now,
// newest first; with creator set, only those that member created.
func (d queries) ListActiveAPIKeys(ctx context.Context, accountID uuid.UUID, creator *uuid.UUID, now time.Time) ([]domain.APIKey, error) {
	rows, err := d.q.ListActiveAPIKeys(ctx, db.ListActiveAPIKeysParams{AccountID: accountID, CreatedBy: creator, Now: now})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, apiKeyFrom), nil
}

// DeleteAPIKey deletes a key of the account at now; with creator set, only one that member
// created. ErrNotFound: no such key (or deleted, or another member's).
func (d queries) DeleteAPIKey(ctx context.Context, accountID, id uuid.UUID, creator *uuid.UUID, now time.Time) error {
	n, err := d.q.DeleteAPIKey(ctx, db.DeleteAPIKeyParams{AccountID: accountID, ID: id, CreatedBy: creator, Now: now})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// ActiveKey is what authenticating with a key yields.
type ActiveKey struct {
	ID         uuid.UUID
	AccountID  uuid.UUID
	Name       string
	Scopes     []string
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
}

// FindActiveAPIKey returns the key with hash that is neither deleted nor expired at now.
// ErrNotFound: there is none.
func (d queries) FindActiveAPIKey(ctx context.Context, hash []byte, now time.Time) (ActiveKey, error) {
	r, err := d.q.FindActiveAPIKeyByHash(ctx, db.FindActiveAPIKeyByHashParams{KeyHash: hash, Now: now})
	if err != nil {
		return ActiveKey{}, mapError(err)
	}
	return ActiveKey{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Scopes: r.Scopes, LastUsedAt: r.LastUsedAt, ExpiresAt: r.ExpiresAt}, nil
}

// TouchAPIKey records that a key was used at now (at most once a minute).
func (d queries) TouchAPIKey(ctx context.Context, id uuid.UUID, now time.Time) error {
	return mapError(d.q.TouchAPIKey(ctx, db.TouchAPIKeyParams{ID: id, Now: now}))
}

func apiKeyFrom(r db.ApiKey) domain.APIKey {
	return domain.APIKey{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Scopes: r.Scopes, Prefix: r.Prefix,
		CreatedBy: r.CreatedBy, CreatorName: r.CreatedByName,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, LastUsedAt: r.LastUsedAt}
}
