package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// APIKeyPrefix starts every API key.
const APIKeyPrefix = "cis_live_"

// RecentSignIn is how long after the password sign-in a session may create keys without
// giving the password (or a code) again.
const RecentSignIn = 5 * time.Minute

// Scopes are the API key scopes of the contract.
var Scopes = []string{
	"events:read", "events:write", "attendees:read", "attendees:write", "templates:read", "templates:write",
	"certificates:generate", "certificates:read", "certificates:write", "badges:read", "badges:write",
	"analytics:read", "webhooks:manage", "audit:read", "privacy:manage",
}

// NewAPIKeyParams describe a key to create.
type NewAPIKeyParams struct {
	Name            string
	Scopes          []string
	ExpiresInDays   *int
	CurrentPassword string
	TwoFactorCode   string
}

// CreateAPIKey creates a key for the principal's account and returns it with the full key,
// which is never available again. The session must have signed in recently, or the request
// must prove it again with the password or a code. The owner is emailed about the new key.
func (s *Service) CreateAPIKey(ctx context.Context, p Principal, n NewAPIKeyParams) (domain.APIKey, string, error) {
	if err := validateNewKey(n, p.Role); err != nil {
		return domain.APIKey{}, "", err
	}
	if err := s.confirmRecentSignIn(ctx, p, n.CurrentPassword, n.TwoFactorCode); err != nil {
		return domain.APIKey{}, "", err
	}
	creator, err := s.profile(ctx, p)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	full := APIKeyPrefix + randomToken(32)
	var expires *time.Time
	if n.ExpiresInDays != nil {
		t := s.now().Add(time.Duration(*n.ExpiresInDays) * 24 * time.Hour).UTC()
		expires = &t
	}
	now := s.now()
	// The key and the email that tells the account's owner about it commit together.
	key, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.APIKey, error) {
		key, err := tx.CreateAPIKey(ctx, store.NewAPIKey{
			AccountID: p.AccountID, CreatedBy: p.UserID, CreatorName: creator.User.Name, Name: strings.TrimSpace(n.Name), Scopes: n.Scopes,
			Prefix: full[:12], Hash: hashToken(full), ExpiresAt: expires,
		}, now)
		if err != nil {
			return key, err
		}
		audit.Describe(ctx, "apiKey", key.ID.String(), "scopes: "+strings.Join(key.Scopes, " "))
		owner, err := tx.FindAccountOwner(ctx, p.AccountID)
		if err != nil {
			return key, err
		}
		_, err = tx.EnqueueEmail(ctx, newKeyNotice(owner, creator, key), now)
		return key, err
	})
	if err != nil {
		return domain.APIKey{}, "", err
	}
	return key, full, nil
}

// validateNewKey checks a key to create by a member of role: its scopes must be ones the role
// holds.
func validateNewKey(n NewAPIKeyParams, role string) error {
	var details []apperr.Detail
	if l := len([]rune(strings.TrimSpace(n.Name))); l < 1 || l > 100 {
		details = append(details, apperr.Detail{Field: "name", Message: "must be 1 to 100 characters"})
	}
	if len(n.Scopes) == 0 {
		details = append(details, apperr.Detail{Field: "scopes", Message: "must name at least one scope"})
	}
	for i, sc := range n.Scopes {
		if !slices.Contains(Scopes, sc) {
			details = append(details, apperr.Detail{Field: fmt.Sprintf("scopes[%d]", i), Message: "is not a known scope"})
		} else if !slices.Contains(ScopesOf(role), sc) {
			details = append(details, apperr.Detail{Field: fmt.Sprintf("scopes[%d]", i),
				Message: fmt.Sprintf("is beyond what your role (%s) allows: %s needs the role %s", role, sc, LeastRoleFor([]string{sc}))})
		} else if slices.Index(n.Scopes, sc) != i {
			details = append(details, apperr.Detail{Field: fmt.Sprintf("scopes[%d]", i), Message: "is named twice"})
		}
	}
	if d := n.ExpiresInDays; d != nil && (*d < 1 || *d > 365) {
		details = append(details, apperr.Detail{Field: "expiresInDays", Message: "must be 1 to 365"})
	}
	if len(details) > 0 {
		return &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}
	}
	return nil
}

// confirmRecentSignIn passes a session that signed in within RecentSignIn; otherwise the
// password or a two-step code must be given again. Whatever is given must be right.
func (s *Service) confirmRecentSignIn(ctx context.Context, p Principal, password, code string) error {
	if password == "" && code == "" {
		if s.now().Sub(p.AuthenticatedAt) <= RecentSignIn {
			return nil
		}
		return apperr.Invalid("currentPassword",
			"is required: the session signed in more than 5 minutes ago (or send twoFactorCode)")
	}
	creds, err := s.credentials(ctx, p)
	if err != nil {
		return err
	}
	if password != "" {
		if ok, err := VerifyPassword(ctx, password, creds.PasswordHash); err != nil {
			return err
		} else if !ok {
			return apperr.Invalid("currentPassword", "is not correct")
		}
	}
	if code != "" {
		if !creds.TOTPEnabled {
			return apperr.Invalid("twoFactorCode", "two-step sign-in is not on for this user: send currentPassword")
		}
		if ok, err := s.acceptTOTP(ctx, creds, code); err != nil {
			return err
		} else if !ok {
			return apperr.Invalid("twoFactorCode", "is not the current code of the authenticator, or was used already")
		}
	}
	return nil
}

func newKeyNotice(owner domain.User, creator store.Profile, k domain.APIKey) domain.OutboundEmail {
	expiry := "never"
	if k.ExpiresAt != nil {
		expiry = k.ExpiresAt.UTC().Format("2 January 2006, 15:04 UTC")
	}
	// One "Label: value" a line: the branded HTML shows the block as rows (email.FromText).
	body := fmt.Sprintf(`Hello %s,

%s created a new API key for %s. A key lets a program issue and read
credentials in the account's name, within its scopes.

  Key name:   %s
  Starts with: %s
  Scopes:     %s
  Created by: %s
  Created:    %s
  Expires:    %s

If you expected this, there is nothing to do. If you did not, delete the key named "%s" at
once (anyone who can sign in to the account can), then change your password. Until it is
deleted, whoever holds it can act for the account.
`, owner.Name, creator.User.Email, creator.Account.Name, k.Name, k.Prefix, strings.Join(k.Scopes, ", "), creator.User.Email,
		k.CreatedAt.UTC().Format("2 January 2006, 15:04 UTC"), expiry, k.Name)
	return domain.OutboundEmail{
		AccountID: k.AccountID, Kind: "api_key_created", ToAddress: owner.Email, ToName: owner.Name,
		Subject: "A new API key was created for " + creator.Account.Name, BodyText: body,
	}
}

// keysOf is whose keys the principal may see and delete: every key of the account for an admin
// or the owner (nil), their own for other members.
func keysOf(p Principal) *uuid.UUID {
	if RoleAtLeast(p.Role, RoleAdmin) {
		return nil
	}
	return &p.UserID
}

// ListAPIKeys returns the active keys the principal may see, newest first: an admin's or the
// owner's, every key of the account; another member's, their own.
func (s *Service) ListAPIKeys(ctx context.Context, p Principal) ([]domain.APIKey, error) {
	return s.store.ListActiveAPIKeys(ctx, p.AccountID, keysOf(p), s.now())
}

// DeleteAPIKey deletes a key of the principal's account (an admin or the owner any key,
// another member their own: another's is NOT_FOUND); it answers 401 from then on (on this
// instance at once; on other instances within APIKeyCacheTTL, see keycache.go).
func (s *Service) DeleteAPIKey(ctx context.Context, p Principal, id uuid.UUID) error {
	audit.Describe(ctx, "apiKey", id.String(), "")
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.DeleteAPIKey(ctx, p.AccountID, id, keysOf(p), s.now())
	})
	// Forgotten whatever the outcome: a key that may have been deleted is never served from
	// memory again.
	s.apiKeys.forget(id)
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("API key"))
}

// ForgetAPIKeys forgets keys revoked by another service (a member removed, or their role
// lowered), so that this instance refuses them at once; other instances do within
// APIKeyCacheTTL.
func (s *Service) ForgetAPIKeys(ids []uuid.UUID) {
	for _, id := range ids {
		s.apiKeys.forget(id)
	}
}

// lastUsedPrecision: a key's lastUsedAt is written at most this often.
const lastUsedPrecision = time.Minute

// authenticateKey finds the active key by its hash: from the cache of recently verified keys
// when it holds it, otherwise from the database (and then remembers it).
func (s *Service) authenticateKey(ctx context.Context, key string) (Principal, error) {
	now := s.now()
	hash := hashToken(key)
	k, gen, cached := s.apiKeys.get(hash, now)
	if !cached {
		var err error
		k, err = s.store.FindActiveAPIKey(ctx, hash, now)
		if errors.Is(err, store.ErrNotFound) {
			return Principal{}, unauthenticated(err)
		} else if err != nil {
			return Principal{}, err
		}
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= lastUsedPrecision {
		if err := s.store.TouchAPIKey(ctx, k.ID, now); err != nil {
			return Principal{}, err
		}
		k.LastUsedAt = &now
		if cached {
			s.apiKeys.touched(hash, now)
		}
	}
	if !cached {
		s.apiKeys.put(hash, k, gen, now)
	}
	return Principal{AccountID: k.AccountID, KeyID: k.ID, Scopes: k.Scopes, Name: k.Name}, nil
}
