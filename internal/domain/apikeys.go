package domain

import (
	"time"

	"github.com/google/uuid"
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
