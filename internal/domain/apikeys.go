package domain

import (
	"time"

	"github.com/google/uuid"
)

// APIKey is a key's summary; the key itself is never stored, only its hash.
type APIKey struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	Name      string
	Scopes    []string
	Prefix    string
	// CreatedBy is the member who created the key, nil once they are removed; CreatorName
	// their name when they did.
	CreatedBy   *uuid.UUID
	CreatorName string
	CreatedAt   time.Time
	ExpiresAt   *time.Time
	LastUsedAt  *time.Time
}
