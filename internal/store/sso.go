package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// The constraints of single sign-on whose conflicts the service answers.
const (
	// UniqueVerifiedDomain: a domain is verified by one account at most.
	UniqueVerifiedDomain = "sso_domains_verified_key"
	// UniqueAccountDomain: an account claims a domain once.
	UniqueAccountDomain = "sso_domains_pkey"
	// UniqueSSOLink: a provider's subject is linked to one user.
	UniqueSSOLink = "sso_links_pkey"
	// UniqueSSOLinkOfUser: a user is linked to one subject.
	UniqueSSOLinkOfUser = "sso_links_user_key"
)

// SSOConfig is an account's provider with its sealed client secret.
type SSOConfig struct {
	domain.SSOConfig
	ClientSecretSealed []byte
}

func ssoConfigFrom(r db.SsoConfig) SSOConfig {
	return SSOConfig{SSOConfig: domain.SSOConfig{AccountID: r.AccountID, Issuer: r.Issuer, ClientID: r.ClientID,
		DefaultRole: r.DefaultRole, Enforced: r.Enforced, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt},
		ClientSecretSealed: r.ClientSecretSealed}
}

// GetSSOConfig returns the account's provider. ErrNotFound: none is set up.
func (d queries) GetSSOConfig(ctx context.Context, accountID uuid.UUID) (SSOConfig, error) {
	r, err := d.q.GetSSOConfig(ctx, accountID)
	if err != nil {
		return SSOConfig{}, mapError(err)
	}
	return ssoConfigFrom(r), nil
}

// PutSSOConfig creates or replaces the account's provider, at now.
func (d queries) PutSSOConfig(ctx context.Context, c SSOConfig, now time.Time) (SSOConfig, error) {
	r, err := d.q.UpsertSSOConfig(ctx, db.UpsertSSOConfigParams{AccountID: c.AccountID, Issuer: c.Issuer, ClientID: c.ClientID,
		ClientSecretSealed: c.ClientSecretSealed, DefaultRole: c.DefaultRole, Enforced: c.Enforced, Now: now})
	if err != nil {
		return SSOConfig{}, mapError(err)
	}
	return ssoConfigFrom(r), nil
}

// DeleteSSOConfig removes the account's provider. ErrNotFound: none was set up.
func (d queries) DeleteSSOConfig(ctx context.Context, accountID uuid.UUID) error {
	n, err := d.q.DeleteSSOConfig(ctx, accountID)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return mapError(err)
}

// SSOEnforced reports whether the account's members other than the owner sign in only by
// single sign-on.
func (d queries) SSOEnforced(ctx context.Context, accountID uuid.UUID) (bool, error) {
	on, err := d.q.SSOEnforced(ctx, accountID)
	return on, mapError(err)
}

// EndPasswordSessions ends, at now, the password sessions of every member of the account but
// the owner, and says how many ended.
func (d queries) EndPasswordSessions(ctx context.Context, accountID uuid.UUID, reason string, now time.Time) (int, error) {
	n, err := d.q.EndPasswordSessions(ctx, db.EndPasswordSessionsParams{AccountID: accountID, Reason: &reason, Now: now})
	return int(n), mapError(err)
}

func ssoDomainFrom(r db.SsoDomain) domain.SSODomain {
	return domain.SSODomain{Domain: r.Domain, Token: r.Token, VerifiedAt: r.VerifiedAt, CreatedAt: r.CreatedAt}
}

// ListSSODomains returns the account's domains, by name.
func (d queries) ListSSODomains(ctx context.Context, accountID uuid.UUID) ([]domain.SSODomain, error) {
	rows, err := d.q.ListSSODomains(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]domain.SSODomain, len(rows))
	for i, r := range rows {
		out[i] = ssoDomainFrom(r)
	}
	return out, nil
}

// CountSSODomains says how many domains the account claimed.
func (d queries) CountSSODomains(ctx context.Context, accountID uuid.UUID) (int, error) {
	n, err := d.q.CountSSODomains(ctx, accountID)
	return int(n), mapError(err)
}

// InsertSSODomain claims a domain for the account, verified at verifiedAt when that is set.
// A ConflictError names UniqueAccountDomain (claimed already) or UniqueVerifiedDomain
// (verified by another account).
func (d queries) InsertSSODomain(ctx context.Context, accountID uuid.UUID, dom domain.SSODomain, now time.Time) (domain.SSODomain, error) {
	r, err := d.q.InsertSSODomain(ctx, db.InsertSSODomainParams{AccountID: accountID, Domain: dom.Domain, Token: dom.Token,
		VerifiedAt: dom.VerifiedAt, Now: now})
	if err != nil {
		return domain.SSODomain{}, mapError(err)
	}
	return ssoDomainFrom(r), nil
}

// GetSSODomain returns a domain the account claimed. ErrNotFound: it did not.
func (d queries) GetSSODomain(ctx context.Context, accountID uuid.UUID, name string) (domain.SSODomain, error) {
	r, err := d.q.GetSSODomain(ctx, db.GetSSODomainParams{AccountID: accountID, Domain: name})
	if err != nil {
		return domain.SSODomain{}, mapError(err)
	}
	return ssoDomainFrom(r), nil
}

// VerifySSODomain marks a claimed domain verified at now (a verified one keeps its time).
// ErrNotFound: not claimed; a ConflictError naming UniqueVerifiedDomain: another account
// verified it.
func (d queries) VerifySSODomain(ctx context.Context, accountID uuid.UUID, name string, now time.Time) (domain.SSODomain, error) {
	r, err := d.q.VerifySSODomain(ctx, db.VerifySSODomainParams{AccountID: accountID, Domain: name, Now: now})
	if err != nil {
		return domain.SSODomain{}, mapError(err)
	}
	return ssoDomainFrom(r), nil
}

// DeleteSSODomain removes a domain the account claimed. ErrNotFound: it did not.
func (d queries) DeleteSSODomain(ctx context.Context, accountID uuid.UUID, name string) error {
	n, err := d.q.DeleteSSODomain(ctx, db.DeleteSSODomainParams{AccountID: accountID, Domain: name})
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return mapError(err)
}

// DomainOwner returns the account that verified the domain. ErrNotFound: none did.
func (d queries) DomainOwner(ctx context.Context, name string) (uuid.UUID, error) {
	id, err := d.q.DomainOwner(ctx, name)
	return id, mapError(err)
}

// SSOFlow is a single sign-on in progress, from its start to the exchange of its code.
type SSOFlow struct {
	StateHash    []byte
	AccountID    uuid.UUID
	Nonce        string
	CodeVerifier string
	Reauth       bool // the provider was asked to sign the person in again
	ExpiresAt    time.Time
	// Set by the callback.
	Identity      SSOIdentity
	UserID        *uuid.UUID // the user it is; nil when the exchange makes a member
	CodeExpiresAt *time.Time
	UsedAt        *time.Time
}

// SSOIdentity is whom a provider vouched for.
type SSOIdentity struct {
	Issuer, Subject string
	Email, Name     string
}

func ssoFlowFrom(r db.SsoFlow) SSOFlow {
	return SSOFlow{StateHash: r.StateHash, AccountID: r.AccountID, Nonce: r.Nonce, CodeVerifier: r.CodeVerifier, Reauth: r.Reauth,
		ExpiresAt: r.ExpiresAt, UserID: r.UserID, CodeExpiresAt: r.CodeExpiresAt, UsedAt: r.UsedAt,
		Identity: SSOIdentity{Issuer: Deref(r.Issuer), Subject: Deref(r.Subject), Email: Deref(r.Email), Name: Deref(r.Name)}}
}

// CreateSSOFlow stores a flow as it starts, at now.
func (d queries) CreateSSOFlow(ctx context.Context, f SSOFlow, now time.Time) error {
	return mapError(d.q.CreateSSOFlow(ctx, db.CreateSSOFlowParams{StateHash: f.StateHash, AccountID: f.AccountID, Nonce: f.Nonce,
		CodeVerifier: f.CodeVerifier, Reauth: f.Reauth, ExpiresAt: f.ExpiresAt, Now: now}))
}

// ConsumeSSOState spends, at now, the state of a live flow that was not called back yet and
// returns the flow. ErrNotFound: no such flow, or it expired or was called back already.
func (d queries) ConsumeSSOState(ctx context.Context, stateHash []byte, now time.Time) (SSOFlow, error) {
	r, err := d.q.ConsumeSSOState(ctx, db.ConsumeSSOStateParams{StateHash: stateHash, Now: now})
	if err != nil {
		return SSOFlow{}, mapError(err)
	}
	return ssoFlowFrom(r), nil
}

// LockSSOFlowByCode holds the flow of a one-time code's hash until the transaction ends.
// ErrNotFound: none.
func (d queries) LockSSOFlowByCode(ctx context.Context, codeHash []byte) (SSOFlow, error) {
	r, err := d.q.LockSSOFlowByCode(ctx, codeHash)
	if err != nil {
		return SSOFlow{}, mapError(err)
	}
	return ssoFlowFrom(r), nil
}

// SSOFlowCalledBack records what the callback of a flow found: the identity the provider
// vouched for, the user it is (nil when the exchange makes a member) and the one-time code's
// hash, valid until codeExpiresAt.
func (d queries) SSOFlowCalledBack(ctx context.Context, stateHash []byte, id SSOIdentity, userID *uuid.UUID, codeHash []byte, codeExpiresAt time.Time) error {
	return mapError(d.q.SSOFlowCalledBack(ctx, db.SSOFlowCalledBackParams{StateHash: stateHash, UserID: userID, Issuer: &id.Issuer,
		Subject: &id.Subject, Email: &id.Email, Name: &id.Name, CodeHash: codeHash, CodeExpiresAt: &codeExpiresAt}))
}

// SSOFlowUsed marks a flow's code spent at now.
func (d queries) SSOFlowUsed(ctx context.Context, stateHash []byte, now time.Time) error {
	return mapError(d.q.SSOFlowUsed(ctx, db.SSOFlowUsedParams{StateHash: stateHash, Now: now}))
}

// DeleteExpiredSSOFlows deletes the flows that expired before before.
func (d queries) DeleteExpiredSSOFlows(ctx context.Context, before time.Time) (int, error) {
	n, err := d.q.DeleteExpiredSSOFlows(ctx, before)
	return int(n), mapError(err)
}

// FindSSOLink returns the user linked to a provider's subject, with their account.
// ErrNotFound: none is.
func (d queries) FindSSOLink(ctx context.Context, issuer, subject string) (accountID, userID uuid.UUID, err error) {
	r, err := d.q.FindSSOLink(ctx, db.FindSSOLinkParams{Issuer: issuer, Subject: subject})
	if err != nil {
		return uuid.Nil, uuid.Nil, mapError(err)
	}
	return r.AccountID, r.UserID, nil
}

// CreateSSOLink links a user to a provider's subject, at now. A ConflictError names
// UniqueSSOLink or sso_links_user_key when either is linked already.
func (d queries) CreateSSOLink(ctx context.Context, issuer, subject string, accountID, userID uuid.UUID, now time.Time) error {
	return mapError(d.q.CreateSSOLink(ctx, db.CreateSSOLinkParams{Issuer: issuer, Subject: subject, AccountID: accountID,
		UserID: userID, Now: now}))
}

// LockPendingInvitationByEmail holds the newest invitation of address into the account that
// is pending at now. ErrNotFound: none is.
func (d queries) LockPendingInvitationByEmail(ctx context.Context, accountID uuid.UUID, address string, now time.Time) (domain.Invitation, error) {
	r, err := d.q.LockPendingInvitationByEmail(ctx, db.LockPendingInvitationByEmailParams{AccountID: accountID, Email: address, Now: now})
	if err != nil {
		return domain.Invitation{}, mapError(err)
	}
	return invitationFrom(r), nil
}

// SSOSecret is an account's sealed client secret.
type SSOSecret struct {
	AccountID uuid.UUID
	Sealed    []byte
}

// SSOSecrets returns every account's sealed client secret.
func (d queries) SSOSecrets(ctx context.Context) ([]SSOSecret, error) {
	rows, err := d.q.SSOSecrets(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]SSOSecret, len(rows))
	for i, r := range rows {
		out[i] = SSOSecret{AccountID: r.AccountID, Sealed: r.ClientSecretSealed}
	}
	return out, nil
}

// ReplaceSSOSecret reseals an account's client secret, unless it changed since it was read.
func (d queries) ReplaceSSOSecret(ctx context.Context, s SSOSecret, sealed []byte) (bool, error) {
	n, err := d.q.ReplaceSSOSecret(ctx, db.ReplaceSSOSecretParams{AccountID: s.AccountID, Previous: s.Sealed, Sealed: sealed})
	return n == 1, mapError(err)
}

// SSOLinkOfUser returns the provider's (issuer, subject) a user is linked to. ErrNotFound:
// none.
func (d queries) SSOLinkOfUser(ctx context.Context, userID uuid.UUID) (issuer, subject string, err error) {
	r, err := d.q.SSOLinkOfUser(ctx, userID)
	if err != nil {
		return "", "", mapError(err)
	}
	return r.Issuer, r.Subject, nil
}

// DeleteSSOLinksOfOtherIssuers unlinks the account's members from every provider but issuer,
// and says how many links it deleted.
func (d queries) DeleteSSOLinksOfOtherIssuers(ctx context.Context, accountID uuid.UUID, issuer string) (int, error) {
	n, err := d.q.DeleteSSOLinksOfOtherIssuers(ctx, db.DeleteSSOLinksOfOtherIssuersParams{AccountID: accountID, Issuer: issuer})
	return int(n), mapError(err)
}

// SSOEnforcedShared reports whether the account enforces single sign-on, holding its
// provider's row until the transaction ends (see the query).
func (d queries) SSOEnforcedShared(ctx context.Context, accountID uuid.UUID) (bool, error) {
	rows, err := d.q.SSOEnforcedShared(ctx, accountID)
	return len(rows) == 1 && rows[0], mapError(err)
}
