package auth

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Principal is who a request acts as: a signed-in session, or an API key with scopes.
type Principal struct {
	AccountID uuid.UUID
	// UserID and SessionID are set for a session; KeyID and Scopes for an API key.
	UserID    uuid.UUID
	SessionID uuid.UUID
	// AuthenticatedAt is when the session's password (and code) sign-in happened.
	AuthenticatedAt time.Time
	KeyID           uuid.UUID
	Scopes          []string
}

// IsSession reports whether the principal is a signed-in session (which may do everything its
// account allows) rather than an API key.
func (p Principal) IsSession() bool { return p.SessionID != uuid.Nil }

// Allows reports whether the principal may call an operation that any one of scopes grants.
func (p Principal) Allows(scopes []string) bool {
	if p.IsSession() {
		return true
	}
	for _, s := range scopes {
		if slices.Contains(p.Scopes, s) {
			return true
		}
	}
	return false
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal of an authenticated request.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
