package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// WalletOffer is an offer of one credential (a certificate or a badge assertion) to its
// recipient's wallet. TokenSealed is its token sealed at rest; Holder and Protocol are set once
// it is claimed.
type WalletOffer struct {
	ID, AccountID    uuid.UUID
	CertificateID    *uuid.UUID
	BadgeAssertionID *uuid.UUID
	TokenSealed      []byte
	ExpiresAt        time.Time
	ClaimedAt        *time.Time
	Holder           *string
	Protocol         *string
	CreatedAt        time.Time
}

// NewWalletOffer is an offer to store: TokenHash is the keyed hash it is found by.
type NewWalletOffer struct {
	WalletOffer
	TokenHash []byte
}

// WalletOfferFound is an offer found by its token, with what a claim needs of its credential.
type WalletOfferFound struct {
	WalletOffer
	EventID             uuid.UUID
	VerificationCode    string
	CredentialRevoked   bool
	CredentialExpiresAt *time.Time
}

// WalletSecret is a single-use secret of a claim, stored by its SHA-256.
type WalletSecret struct {
	Hash      []byte
	Kind      string // challenge, pre_authorized_code, access_token, nonce
	AccountID uuid.UUID
	OfferID   *uuid.UUID // nil for a nonce, which belongs to the issuer
	ExpiresAt time.Time
}

func walletOfferFrom(r db.WalletOffer) WalletOffer {
	return WalletOffer{ID: r.ID, AccountID: r.AccountID, CertificateID: r.CertificateID, BadgeAssertionID: r.BadgeAssertionID,
		TokenSealed: r.TokenSealed, ExpiresAt: r.ExpiresAt, ClaimedAt: r.ClaimedAt, Holder: r.Holder, Protocol: r.Protocol,
		CreatedAt: r.CreatedAt}
}

// InsertWalletOffer stores an offer.
func (d queries) InsertWalletOffer(ctx context.Context, o NewWalletOffer) (WalletOffer, error) {
	r, err := d.q.InsertWalletOffer(ctx, db.InsertWalletOfferParams{ID: o.ID, AccountID: o.AccountID, CertificateID: o.CertificateID,
		BadgeAssertionID: o.BadgeAssertionID, TokenHash: o.TokenHash, TokenSealed: o.TokenSealed, ExpiresAt: o.ExpiresAt,
		CreatedAt: o.CreatedAt})
	if err != nil {
		return WalletOffer{}, mapError(err)
	}
	return walletOfferFrom(r), nil
}

// ListWalletOffers returns a page of the offers of a certificate (certificateID set) or of a
// badge assertion (assertionID set), in p's order, and their total.
func (d queries) ListWalletOffers(ctx context.Context, accountID uuid.UUID, certificateID, assertionID *uuid.UUID, p domain.Page) ([]WalletOffer, int, error) {
	q, err := d.list(walletOfferOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.ListWalletOffers(ctx, db.ListWalletOffersParams{AccountID: accountID, CertificateID: certificateID,
		BadgeAssertionID: assertionID, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := q.CountWalletOffers(ctx, db.CountWalletOffersParams{AccountID: accountID, CertificateID: certificateID,
		BadgeAssertionID: assertionID})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, walletOfferFrom), int(total), nil
}

// FindWalletOffer finds the offer whose token has one of the keyed hashes. ErrNotFound: none.
func (d queries) FindWalletOffer(ctx context.Context, tokenHashes [][]byte) (WalletOfferFound, error) {
	return d.findWalletOffer(ctx, db.FindWalletOfferParams{TokenHashes: tokenHashes, Now: time.Now()})
}

// FindWalletOfferBySecret finds the offer a live (unused, unexpired at now) secret of kind was
// issued for. ErrNotFound: none.
func (d queries) FindWalletOfferBySecret(ctx context.Context, hash []byte, kind string, now time.Time) (WalletOfferFound, error) {
	return d.findWalletOffer(ctx, db.FindWalletOfferParams{TokenHashes: [][]byte{}, SecretHash: hash, SecretKind: &kind, Now: now})
}

func (d queries) findWalletOffer(ctx context.Context, p db.FindWalletOfferParams) (WalletOfferFound, error) {
	r, err := d.q.FindWalletOffer(ctx, p)
	if err != nil {
		return WalletOfferFound{}, mapError(err)
	}
	return WalletOfferFound{
		WalletOffer: walletOfferFrom(db.WalletOffer{ID: r.ID, AccountID: r.AccountID, CertificateID: r.CertificateID,
			BadgeAssertionID: r.BadgeAssertionID, TokenSealed: r.TokenSealed, ExpiresAt: r.ExpiresAt, ClaimedAt: r.ClaimedAt,
			Holder: r.Holder, Protocol: r.Protocol, CreatedAt: r.CreatedAt}),
		EventID: r.EventID, VerificationCode: r.VerificationCode, CredentialRevoked: r.CredentialRevoked,
		CredentialExpiresAt: r.CredentialExpiresAt,
	}, nil
}

// ClaimWalletOffer marks an unclaimed, unexpired offer claimed. ErrNotFound: it was claimed
// meanwhile, or it expired.
func (d queries) ClaimWalletOffer(ctx context.Context, id uuid.UUID, holder, protocol string, now time.Time) (WalletOffer, error) {
	r, err := d.q.ClaimWalletOffer(ctx, db.ClaimWalletOfferParams{ID: id, Holder: &holder, Protocol: &protocol, Now: now})
	if err != nil {
		return WalletOffer{}, mapError(err)
	}
	return walletOfferFrom(r), nil
}

// InsertWalletSecret stores a single-use secret.
func (d queries) InsertWalletSecret(ctx context.Context, s WalletSecret) error {
	return mapError(d.q.InsertWalletSecret(ctx, db.InsertWalletSecretParams{Hash: s.Hash, Kind: s.Kind, AccountID: s.AccountID,
		OfferID: s.OfferID, ExpiresAt: s.ExpiresAt}))
}

// SpendWalletSecret uses a secret of kind once, before it expires, and returns its account and
// offer. ErrNotFound: unknown, of another kind, used or expired.
func (d queries) SpendWalletSecret(ctx context.Context, hash []byte, kind string, now time.Time) (uuid.UUID, *uuid.UUID, error) {
	r, err := d.q.SpendWalletSecret(ctx, db.SpendWalletSecretParams{Hash: hash, Kind: kind, Now: now})
	if err != nil {
		return uuid.Nil, nil, mapError(err)
	}
	return r.AccountID, r.OfferID, nil
}

// DeleteExpiredWalletSecrets deletes the secrets that expired before before.
func (d queries) DeleteExpiredWalletSecrets(ctx context.Context, before time.Time) (int64, error) {
	n, err := d.q.DeleteExpiredWalletSecrets(ctx, before)
	return n, mapError(err)
}

// CountClaim adds a claim to the analytics of the credential's event on the day of at.
func (d queries) CountClaim(ctx context.Context, accountID, eventID uuid.UUID, kind string, at time.Time) error {
	day := at.UTC().Truncate(24 * time.Hour)
	return mapError(d.q.CountClaim(ctx, db.CountClaimParams{AccountID: accountID, Day: day, EventID: eventID, CredentialKind: kind}))
}

// WalletCredential is what offering a credential needs of it.
type WalletCredential struct {
	Issued, Revoked  bool
	ExpiresAt        *time.Time
	VerificationCode string
}

// FindWalletCertificate reads a certificate of the account for an offer. ErrNotFound: none.
func (d queries) FindWalletCertificate(ctx context.Context, accountID, id uuid.UUID) (WalletCredential, error) {
	r, err := d.q.WalletCertificate(ctx, db.WalletCertificateParams{AccountID: accountID, ID: id})
	if err != nil {
		return WalletCredential{}, mapError(err)
	}
	return WalletCredential{Issued: r.Issued, Revoked: r.Revoked, ExpiresAt: r.ExpiresAt, VerificationCode: r.VerificationCode}, nil
}

// FindWalletAssertion reads an assertion of the account's badge for an offer. ErrNotFound: none.
func (d queries) FindWalletAssertion(ctx context.Context, accountID, badgeID, id uuid.UUID) (WalletCredential, error) {
	r, err := d.q.WalletAssertion(ctx, db.WalletAssertionParams{AccountID: accountID, BadgeID: badgeID, ID: id})
	if err != nil {
		return WalletCredential{}, mapError(err)
	}
	return WalletCredential{Issued: r.Issued, Revoked: r.Revoked, ExpiresAt: r.ExpiresAt, VerificationCode: r.VerificationCode}, nil
}

// LatestLiveWalletOffer returns the credential's newest unclaimed offer that is still valid
// at validAfter. ErrNotFound: none.
func (d queries) LatestLiveWalletOffer(ctx context.Context, accountID uuid.UUID, certificateID, assertionID *uuid.UUID, validAfter time.Time) (WalletOffer, error) {
	r, err := d.q.LatestLiveWalletOffer(ctx, db.LatestLiveWalletOfferParams{AccountID: accountID, CertificateID: certificateID,
		BadgeAssertionID: assertionID, ValidAfter: validAfter})
	if err != nil {
		return WalletOffer{}, mapError(err)
	}
	return walletOfferFrom(r), nil
}
