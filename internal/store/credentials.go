package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
)

// IssuerKey is one of an account's Ed25519 issuer keys: the public key in clear, the private
// key sealed (the credentials service seals and opens it).
type IssuerKey struct {
	ID               uuid.UUID
	AccountID        uuid.UUID
	PublicKey        []byte
	PrivateKeySealed []byte
	CreatedAt        time.Time
	RetiredAt        *time.Time
}

func issuerKeyFrom(k db.IssuerKey) IssuerKey {
	return IssuerKey{ID: k.ID, AccountID: k.AccountID, PublicKey: k.PublicKey, PrivateKeySealed: k.PrivateKeySealed,
		CreatedAt: k.CreatedAt, RetiredAt: k.RetiredAt}
}

// InsertActiveIssuerKey stores k as the account's active key, unless the account has an active
// key already: then it stores nothing and reports false.
func (d queries) InsertActiveIssuerKey(ctx context.Context, k IssuerKey) (bool, error) {
	rows, err := d.q.InsertIssuerKey(ctx, db.InsertIssuerKeyParams{ID: k.ID, AccountID: k.AccountID, PublicKey: k.PublicKey,
		PrivateKeySealed: k.PrivateKeySealed, Now: k.CreatedAt})
	return len(rows) == 1, mapError(err)
}

// FindActiveIssuerKey returns the account's active key (ErrNotFound: none yet).
func (d queries) FindActiveIssuerKey(ctx context.Context, accountID uuid.UUID) (IssuerKey, error) {
	k, err := d.q.GetActiveIssuerKey(ctx, accountID)
	return issuerKeyFrom(k), mapError(err)
}

// RetireIssuerKey retires the account's active key at now, if it has one.
func (d queries) RetireIssuerKey(ctx context.Context, accountID uuid.UUID, now time.Time) (bool, error) {
	n, err := d.q.RetireIssuerKey(ctx, db.RetireIssuerKeyParams{AccountID: accountID, Now: now})
	return n > 0, mapError(err)
}

// IssuerKeys returns every key the account ever had, retired ones included, oldest first.
func (d queries) IssuerKeys(ctx context.Context, accountID uuid.UUID) ([]IssuerKey, error) {
	rows, err := d.q.ListIssuerKeys(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, issuerKeyFrom), nil
}

// LockAccountIssuerKeys locks the account's row, so that changes to its keys run one at a
// time (ErrNotFound: no such account).
func (d queries) LockAccountIssuerKeys(ctx context.Context, accountID uuid.UUID) error {
	_, err := d.q.LockAccountIssuerKeys(ctx, accountID)
	return mapError(err)
}

// StatusList is one of an account's revocation lists.
type StatusList struct {
	AccountID uuid.UUID
	List      int
	CreatedAt time.Time
	ChangedAt time.Time // the last revocation in the list (or its creation)
	FullAt    *time.Time
}

// EnsureStatusList creates the account's list number list at now unless it exists.
func (d queries) EnsureStatusList(ctx context.Context, accountID uuid.UUID, list int, now time.Time) error {
	return mapError(d.q.EnsureStatusList(ctx, db.EnsureStatusListParams{AccountID: accountID, List: int32(list), Now: now}))
}

// OpenStatusList returns the number of the account's lowest list that is not full
// (ErrNotFound: none).
func (d queries) OpenStatusList(ctx context.Context, accountID uuid.UUID) (int, error) {
	n, err := d.q.OpenStatusList(ctx, accountID)
	return int(n), mapError(err)
}

// MarkStatusListFull records at now that the list has no free index left.
func (d queries) MarkStatusListFull(ctx context.Context, accountID uuid.UUID, list int, now time.Time) error {
	return mapError(d.q.MarkStatusListFull(ctx, db.MarkStatusListFullParams{AccountID: accountID, List: int32(list), Now: now}))
}

// FindStatusList returns one of the account's lists.
func (d queries) FindStatusList(ctx context.Context, accountID uuid.UUID, list int) (StatusList, error) {
	r, err := d.q.GetStatusList(ctx, db.GetStatusListParams{AccountID: accountID, List: int32(list)})
	if err != nil {
		return StatusList{}, mapError(err)
	}
	return StatusList{AccountID: r.AccountID, List: int(r.List), CreatedAt: r.CreatedAt, ChangedAt: r.ChangedAt, FullAt: r.FullAt}, nil
}

// RevokedStatusIndexes returns the indexes of the list's revoked credentials.
func (d queries) RevokedStatusIndexes(ctx context.Context, accountID uuid.UUID, list int) ([]int, error) {
	rows, err := d.q.RevokedStatusIndexes(ctx, db.RevokedStatusIndexesParams{AccountID: accountID, List: int32(list)})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r int32) int { return int(r) }), nil
}

// CountStatusEntries counts the entries of one of the account's status lists.
func (d queries) CountStatusEntries(ctx context.Context, accountID uuid.UUID, list int) (int, error) {
	n, err := d.q.CountStatusEntries(ctx, db.CountStatusEntriesParams{AccountID: accountID, List: int32(list)})
	return int(n), mapError(err)
}

// FreeStatusIndexes returns a few free indexes of the list, at most lastIndex, in random
// order (none: the list is full up to lastIndex).
func (d queries) FreeStatusIndexes(ctx context.Context, accountID uuid.UUID, list, lastIndex int) ([]int, error) {
	rows, err := d.q.FreeStatusIndexes(ctx, db.FreeStatusIndexesParams{AccountID: accountID, List: int32(list), LastIndex: int32(lastIndex)})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r int32) int { return int(r) }), nil
}

// VerifiableCredential is an issued credential's entry: its place in a status list, its
// recipient salt, its frozen claims (nil when its source keeps them) and its revocation.
type VerifiableCredential struct {
	CredentialID uuid.UUID
	Kind         string // KindCertificate or KindBadgeAssertion
	AccountID    uuid.UUID
	List, Index  int
	Salt         string
	Claims       []byte
	SignedAt     time.Time
	RevokedAt    *time.Time
}

// InsertVerifiableCredential stores v at the first of the candidate indexes free in its list
// and returns that index; ok is false when every candidate was taken (or v's credential has
// an entry already).
func (d queries) InsertVerifiableCredential(ctx context.Context, v VerifiableCredential, candidates []int) (index int, ok bool, err error) {
	rows, err := d.q.InsertVerifiableCredential(ctx, db.InsertVerifiableCredentialParams{CredentialID: v.CredentialID, Kind: v.Kind,
		AccountID: v.AccountID, List: int32(v.List), Candidates: convert(candidates, func(n int) int32 { return int32(n) }),
		Salt: v.Salt, Claims: v.Claims, Now: v.SignedAt})
	if err != nil || len(rows) == 0 {
		return 0, false, mapError(err)
	}
	return int(rows[0]), true, nil
}

// InsertVerifiableCredentialInOpenList stores v at index in the account's open list (v.List
// is not read), in one statement; ok is false when there is no open list, the index is taken
// or v's credential has an entry already.
func (d queries) InsertVerifiableCredentialInOpenList(ctx context.Context, v VerifiableCredential, index int) (ok bool, err error) {
	rows, err := d.q.InsertVerifiableCredentialInOpenList(ctx, db.InsertVerifiableCredentialInOpenListParams{CredentialID: v.CredentialID,
		Kind: v.Kind, AccountID: v.AccountID, StatusIndex: int32(index), Salt: v.Salt, Claims: v.Claims, Now: v.SignedAt})
	return err == nil && len(rows) > 0, mapError(err)
}

// FindVerifiableCredential returns a credential's entry (ErrNotFound: none).
func (d queries) FindVerifiableCredential(ctx context.Context, credentialID uuid.UUID) (VerifiableCredential, error) {
	r, err := d.q.GetVerifiableCredential(ctx, credentialID)
	if err != nil {
		return VerifiableCredential{}, mapError(err)
	}
	return VerifiableCredential{CredentialID: r.CredentialID, Kind: r.Kind, AccountID: r.AccountID, List: int(r.List),
		Index: int(r.StatusIndex), Salt: r.Salt, Claims: r.Claims, SignedAt: r.SignedAt, RevokedAt: r.RevokedAt}, nil
}

// CredentialVersion is what a credential's signed form depends on besides its content, read
// in one statement (the query CredentialVersion says why each part is there): its entry, its
// source's version, the issuer's name, and the account's keys.
type CredentialVersion struct {
	Entry       VerifiableCredential
	AccountName string
	// A certificate's; nil for an assertion, or a certificate gone.
	CertificateUpdatedAt, CertificateIssuedAt *time.Time
	// An assertion's; nil for a certificate, or an assertion gone.
	AssertionIssuedAt, AssertionExpiresAt, AssertionRevokedAt *time.Time
	AssertionLocale                                           *string
	// For an assertion whose claims were not frozen (Entry.Claims nil): when its badge and the
	// account's branding last changed; nil otherwise.
	BadgeUpdatedAt, BrandingUpdatedAt *time.Time
	// Keys are the account's keys, oldest first, without their private keys.
	Keys []IssuerKeyStamp
}

// IssuerKeyStamp names one of an account's keys and when it was made.
type IssuerKeyStamp struct {
	ID        uuid.UUID
	CreatedAt time.Time
}

// FindCredentialVersion returns what the signed form of a credential depends on (ErrNotFound:
// it has no entry).
func (d queries) FindCredentialVersion(ctx context.Context, credentialID uuid.UUID) (CredentialVersion, error) {
	r, err := d.q.CredentialVersion(ctx, credentialID)
	if err != nil {
		return CredentialVersion{}, mapError(err)
	}
	if len(r.KeyIds) != len(r.KeyCreatedAt) {
		return CredentialVersion{}, fmt.Errorf("store: %d issuer key ids and %d times", len(r.KeyIds), len(r.KeyCreatedAt))
	}
	v := CredentialVersion{
		Entry: VerifiableCredential{CredentialID: r.CredentialID, Kind: r.Kind, AccountID: r.AccountID, List: int(r.List),
			Index: int(r.StatusIndex), Salt: r.Salt, Claims: r.Claims, SignedAt: r.SignedAt, RevokedAt: r.RevokedAt},
		AccountName:          r.AccountName,
		CertificateUpdatedAt: r.CertificateUpdatedAt, CertificateIssuedAt: r.CertificateIssuedAt,
		AssertionIssuedAt: r.AssertionIssuedAt, AssertionExpiresAt: r.AssertionExpiresAt,
		AssertionRevokedAt: r.AssertionRevokedAt, AssertionLocale: r.AssertionLocale,
		BadgeUpdatedAt: r.BadgeUpdatedAt, BrandingUpdatedAt: r.BrandingUpdatedAt,
		Keys: make([]IssuerKeyStamp, len(r.KeyIds)),
	}
	for i, id := range r.KeyIds {
		v.Keys[i] = IssuerKeyStamp{ID: id, CreatedAt: r.KeyCreatedAt[i]}
	}
	return v, nil
}

// AccountsWithoutIssuerKey returns the ids of the accounts that have no active issuer key.
func (d queries) AccountsWithoutIssuerKey(ctx context.Context) ([]uuid.UUID, error) {
	ids, err := d.q.AccountsWithoutIssuerKey(ctx)
	return ids, mapError(err)
}

// RevokeVerifiableCredentials sets the status bits of the credentials at now (those set
// already stay as they were) and moves their lists' last change on.
func (d queries) RevokeVerifiableCredentials(ctx context.Context, credentialIDs []uuid.UUID, now time.Time) error {
	return mapError(d.q.RevokeVerifiableCredentials(ctx, db.RevokeVerifiableCredentialsParams{CredentialIds: credentialIDs, Now: now}))
}

// AssertionIDsOfBadge returns the ids of every assertion of the badge.
func (d queries) AssertionIDsOfBadge(ctx context.Context, badgeID uuid.UUID) ([]uuid.UUID, error) {
	ids, err := d.q.AssertionIDsOfBadge(ctx, badgeID)
	return ids, mapError(err)
}

// ResignVerifiableCredential records that the credential's content was fixed anew at now.
func (d queries) ResignVerifiableCredential(ctx context.Context, credentialID uuid.UUID, now time.Time) error {
	return mapError(d.q.ResignVerifiableCredential(ctx, db.ResignVerifiableCredentialParams{CredentialID: credentialID, Now: now}))
}

// AllIssuerKeys returns the issuer keys of every account (for resealing them).
func (d queries) AllIssuerKeys(ctx context.Context) ([]IssuerKey, error) {
	rows, err := d.q.ListAllIssuerKeys(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, issuerKeyFrom), nil
}

// UpdateIssuerKeySealed replaces a key's sealed private key (the same key, sealed anew).
func (d queries) UpdateIssuerKeySealed(ctx context.Context, id uuid.UUID, sealed []byte) error {
	return mapError(d.q.UpdateIssuerKeySealed(ctx, db.UpdateIssuerKeySealedParams{ID: id, PrivateKeySealed: sealed}))
}
