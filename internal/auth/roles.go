package auth

import "slices"

// The roles of an account's members, each allowed everything the one before it is.
const (
	RoleViewer = "viewer"
	RoleIssuer = "issuer"
	RoleAdmin  = "admin"
	RoleOwner  = "owner"
)

// Roles lists the roles from the least to the most allowed.
var Roles = []string{RoleViewer, RoleIssuer, RoleAdmin, RoleOwner}

// roleScopes is what each role adds to the one before it: the scopes a member's session acts
// with, and the most a key they create may hold.
var roleScopes = map[string][]string{
	RoleViewer: {"events:read", "attendees:read", "templates:read", "certificates:read", "badges:read", "analytics:read"},
	RoleIssuer: {"events:write", "attendees:write", "templates:write", "certificates:generate", "certificates:write", "badges:write"},
	RoleAdmin:  {"webhooks:manage", "audit:read", "privacy:manage"},
}

// RoleAtLeast reports whether role is least or above it; an unknown role is neither.
func RoleAtLeast(role, least string) bool {
	r, l := slices.Index(Roles, role), slices.Index(Roles, least)
	return r >= 0 && l >= 0 && r >= l
}

// ScopesOf returns every scope role holds, its lower roles' included.
func ScopesOf(role string) []string {
	var out []string
	for _, r := range Roles {
		if !RoleAtLeast(role, r) {
			break
		}
		out = append(out, roleScopes[r]...)
	}
	return out
}

// LeastRoleFor returns the least role that holds any one of scopes ("" when none does).
func LeastRoleFor(scopes []string) string {
	for _, r := range Roles {
		for _, sc := range scopes {
			if slices.Contains(ScopesOf(r), sc) {
				return r
			}
		}
	}
	return ""
}
