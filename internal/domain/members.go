package domain

import (
	"time"

	"github.com/google/uuid"
)

// Member is a user of an account as its colleagues see them.
type Member struct {
	ID               uuid.UUID
	Email            string
	Name             string
	Role             string
	TwoFactorEnabled bool
	LastSignInAt     *time.Time
	CreatedAt        time.Time
}

// Invitation is an invitation into an account.
type Invitation struct {
	ID         uuid.UUID
	AccountID  uuid.UUID
	Email      string
	Role       string
	InvitedBy  *uuid.UUID
	ExpiresAt  time.Time
	AcceptedAt *time.Time
	RevokedAt  *time.Time
	CreatedAt  time.Time
}

// Pending reports whether the invitation may still be accepted at now.
func (i Invitation) Pending(now time.Time) bool {
	return i.AcceptedAt == nil && i.RevokedAt == nil && now.Before(i.ExpiresAt)
}

// AuditFilter narrows a list of the audit log; nil fields do not.
type AuditFilter struct {
	Action, ResourceType, ResourceID *string
	ActorID                          *uuid.UUID
	From, To                         *time.Time
}
