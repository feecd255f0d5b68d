package auth

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/domain"
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
	// Role is the session's user's role (see roles.go); empty for a key.
	Role string
	// Name is the user's name, or the key's: who the audit log says acted.
	Name string
	// EmailVerified: the session's user has shown that their address reaches them.
	EmailVerified bool
}

// IsSession reports whether the principal is a signed-in session (which may do everything its
// user's role allows) rather than an API key.
func (p Principal) IsSession() bool { return p.SessionID != uuid.Nil }

// Allows reports whether the principal may call an operation that any one of scopes grants:
// a key holding one of them; a session always (its role is checked apart, see HasRole).
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

// HasRole reports whether the principal may call an operation whose least role is least: a
// session whose user's role is least or above; a key always (its scopes are checked apart).
func (p Principal) HasRole(least string) bool {
	return !p.IsSession() || least == "" || RoleAtLeast(p.Role, least)
}

type principalKey struct{}

type clientKey struct{}

// WithClient returns ctx carrying where its request comes from: the client's address and
// User-Agent, which a session begun by the request records.
func WithClient(ctx context.Context, c domain.Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFrom returns where ctx's request comes from (empty when unknown).
func ClientFrom(ctx context.Context) domain.Client {
	c, _ := ctx.Value(clientKey{}).(domain.Client)
	return c
}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal of an authenticated request.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
