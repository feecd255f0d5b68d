package wallet

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// The lifetimes of an offer and of the single-use secrets of a claim.
const (
	OfferValidity = 30 * 24 * time.Hour
	// ChallengeValidity bounds a VC API exchange between its two requests, and
	// CodeValidity an OpenID4VCI pre-authorized code and access token, NonceValidity a c_nonce:
	// a wallet goes through them in seconds.
	ChallengeValidity = 10 * time.Minute
	CodeValidity      = 10 * time.Minute
	NonceValidity     = 5 * time.Minute
)

// The protocols a claim is made over, as claims and events name them.
const (
	ProtocolVCAPI   = "vcapi"
	ProtocolOID4VCI = "oid4vci"
)

// tokenPurpose separates the keyed hashes of offer tokens from any other.
const tokenPurpose = "wallet offer token"

// Service creates offers and runs claims.
type Service struct {
	store *store.Store
	box   *secretbox.Box
	creds *credentials.Service
	links links.Site
	// domain is what a holder's proof names as the site it authenticates to: the host, with
	// its port, of the site URL.
	domain string
	now    func() time.Time
}

// New returns the service. siteURL roots every link and names the issuers.
func New(st *store.Store, box *secretbox.Box, creds *credentials.Service, siteURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: st, box: box, creds: creds, links: links.New(siteURL), now: now}
	if u, err := url.Parse(s.links.Root()); err == nil {
		s.domain = u.Host
	}
	return s
}

// Credential names what an offer is of: a certificate, or a badge assertion (with its badge).
type Credential struct {
	AccountID     uuid.UUID
	CertificateID *uuid.UUID
	BadgeID       uuid.UUID // with AssertionID
	AssertionID   *uuid.UUID
}

// Offer is an offer as the API shows it: its links carry its token.
type Offer struct {
	store.WalletOffer
	InteractionURL, CredentialOfferURI, WalletURL, LCWRequestURL string
}

// Create makes an offer of an issued credential that is neither revoked nor expired.
func (s *Service) Create(ctx context.Context, c Credential) (Offer, error) {
	cred, err := s.find(ctx, c)
	if err != nil {
		return Offer{}, err
	}
	now := s.now().UTC()
	switch {
	case !cred.Issued:
		return Offer{}, apperr.New(apperr.Conflict, "A draft is not issued; issue it before offering it to a wallet.")
	case cred.Revoked:
		return Offer{}, apperr.New(apperr.Conflict, "A revoked credential cannot be offered to a wallet.")
	case cred.ExpiresAt != nil && !now.Before(*cred.ExpiresAt):
		return Offer{}, apperr.New(apperr.Conflict, "An expired credential cannot be offered to a wallet.")
	}
	token, err := randomToken()
	if err != nil {
		return Offer{}, err
	}
	o := store.NewWalletOffer{WalletOffer: store.WalletOffer{ID: uuid.Must(uuid.NewV7()), AccountID: c.AccountID,
		CertificateID: c.CertificateID, BadgeAssertionID: c.AssertionID, ExpiresAt: now.Add(OfferValidity), CreatedAt: now},
		TokenHash: s.box.KeyedHash([]byte(token), tokenPurpose)}
	if o.TokenSealed, err = s.box.Seal([]byte(token), sealedFor(o.ID)); err != nil {
		return Offer{}, err
	}
	stored, err := store.InTx(ctx, s.store, func(tx *store.Tx) (store.WalletOffer, error) {
		return tx.InsertWalletOffer(ctx, o)
	})
	if err != nil {
		return Offer{}, err
	}
	audit.Describe(ctx, "walletOffer", stored.ID.String(), "")
	return s.view(stored, token), nil
}

// List returns a page of a credential's offers, newest first, and their total.
func (s *Service) List(ctx context.Context, c Credential, p domain.Page) ([]Offer, int, error) {
	if _, err := s.find(ctx, c); err != nil {
		return nil, 0, err
	}
	list, total, err := s.store.ListWalletOffers(ctx, c.AccountID, c.CertificateID, c.AssertionID, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Offer, len(list))
	for i, o := range list {
		token, err := s.box.Open(o.TokenSealed, sealedFor(o.ID))
		if err != nil {
			return nil, 0, fmt.Errorf("wallet: opening the token of offer %s: %w", o.ID, err)
		}
		out[i] = s.view(o, string(token))
	}
	return out, total, nil
}

func (s *Service) find(ctx context.Context, c Credential) (store.WalletCredential, error) {
	if c.CertificateID != nil {
		cred, err := s.store.FindWalletCertificate(ctx, c.AccountID, *c.CertificateID)
		return cred, apperr.When(err, store.ErrNotFound, apperr.NoSuch("certificate"))
	}
	cred, err := s.store.FindWalletAssertion(ctx, c.AccountID, c.BadgeID, *c.AssertionID)
	return cred, apperr.When(err, store.ErrNotFound, apperr.NoSuch("badge assertion"))
}

func sealedFor(offerID uuid.UUID) []byte { return []byte("wallet-offer:" + offerID.String()) }

// view adds an offer's links.
func (s *Service) view(o store.WalletOffer, token string) Offer {
	v := Offer{WalletOffer: o, InteractionURL: s.InteractionURL(token), CredentialOfferURI: s.offerURI(o.AccountID, token),
		WalletURL: s.walletURL(o.AccountID, token)}
	request, _ := json.Marshal(map[string]any{"protocols": map[string]string{"vcapi": s.ExchangeURL(token)}})
	v.LCWRequestURL = "https://lcw.app/request?request=" + url.QueryEscape(string(request))
	return v
}

// InteractionURL is where a person (an HTML page with a QR code) or a wallet (the protocols,
// as JSON) starts a claim.
func (s *Service) InteractionURL(token string) string { return s.links.Interaction(token) }

// ExchangeURL is the VC API exchange of an offer.
func (s *Service) ExchangeURL(token string) string { return s.links.Exchange(token) }

// IssuerID is the OpenID4VCI credential issuer identifier of an account.
func (s *Service) IssuerID(accountID uuid.UUID) string { return s.links.Issuer(accountID) }

func (s *Service) offerURI(accountID uuid.UUID, token string) string {
	return s.links.CredentialOffer(accountID, token)
}

// walletURL is the OpenID4VCI deep link of an offer, which a wallet app opens.
func (s *Service) walletURL(accountID uuid.UUID, token string) string {
	return "openid-credential-offer://?credential_offer_uri=" + url.QueryEscape(s.offerURI(accountID, token))
}

// Protocols is what the interaction URL answers a wallet: where each protocol starts.
func (s *Service) Protocols(ctx context.Context, token string) (map[string]string, error) {
	o, err := s.live(ctx, token)
	if err != nil {
		return nil, err
	}
	return map[string]string{"vcapi": s.ExchangeURL(token), "OID4VCI": s.walletURL(o.AccountID, token)}, nil
}

// live finds the offer of a token that can still be claimed: 404 for no such offer, 410
// OFFER_GONE for one claimed, expired, or whose credential was revoked or expired.
func (s *Service) live(ctx context.Context, token string) (store.WalletOfferFound, error) {
	if !plausibleToken(token) {
		return store.WalletOfferFound{}, apperr.NoSuch("wallet offer")
	}
	o, err := s.store.FindWalletOffer(ctx, s.box.KeyedHashes([]byte(token), tokenPurpose))
	if err != nil {
		return o, apperr.When(err, store.ErrNotFound, apperr.NoSuch("wallet offer"))
	}
	return o, s.stillLive(o)
}

// GoneReason is why an offer can no longer be claimed: what its page tells the person who
// opened it, in their language (the catalog's page.walletGoneWhy table), and what OFFER_GONE's
// message says in English.
type GoneReason string

// The reasons an offer is gone.
const (
	GoneClaimed           GoneReason = "claimed"
	GoneOfferExpired      GoneReason = "offerExpired"
	GoneRevoked           GoneReason = "revoked"
	GoneCredentialExpired GoneReason = "credentialExpired"
)

// goneMessages are OFFER_GONE's messages, for the API and the wallets' protocols.
var goneMessages = map[GoneReason]string{
	GoneClaimed:           "This offer was claimed already; ask the issuer for a new one.",
	GoneOfferExpired:      "This offer expired; ask the issuer for a new one.",
	GoneRevoked:           "The credential was revoked; it can no longer be claimed.",
	GoneCredentialExpired: "The credential expired; it can no longer be claimed.",
}

// errGone is OFFER_GONE for a reason; Interaction reads the reason back from it.
type errGone struct {
	err    *apperr.Error
	reason GoneReason
}

func (e errGone) Error() string { return e.err.Error() }
func (e errGone) Unwrap() error { return e.err }

func gone(r GoneReason) error { return errGone{apperr.New(apperr.OfferGone, "%s", goneMessages[r]), r} }

// stillLive is OFFER_GONE for an offer claimed or expired, or whose credential was revoked or
// expired.
func (s *Service) stillLive(o store.WalletOfferFound) error { return stillLiveAt(o, s.now()) }

// stillLiveAt is stillLive at now, for a caller that reads the clock once.
func stillLiveAt(o store.WalletOfferFound, now time.Time) error {
	switch {
	case o.ClaimedAt != nil:
		return claimedAlready()
	case !now.Before(o.ExpiresAt):
		return gone(GoneOfferExpired)
	case o.CredentialRevoked:
		return gone(GoneRevoked)
	case o.CredentialExpiresAt != nil && !now.Before(*o.CredentialExpiresAt):
		return gone(GoneCredentialExpired)
	}
	return nil
}

func claimedAlready() error { return gone(GoneClaimed) }

// Page is what the interaction page shows of an offer: the links a person follows, and why it
// cannot be claimed when it cannot.
type Page struct {
	Offer
	// VerificationCode is the offered credential's, for the page to show what it is.
	VerificationCode string
	// Gone, when set, says why the offer can no longer be claimed.
	Gone GoneReason
}

// Interaction returns the interaction page of an offer, also when it is gone (the page says
// so); 404 for no such offer.
func (s *Service) Interaction(ctx context.Context, token string) (Page, error) {
	o, err := s.live(ctx, token)
	p := Page{Offer: s.view(o.WalletOffer, token), VerificationCode: o.VerificationCode}
	var g errGone
	if errors.As(err, &g) {
		p.Gone = g.reason
	} else if err != nil {
		return Page{}, err
	}
	return p, nil
}

// tokenBytes is the size of every token and secret: 256 random bits.
const tokenBytes = 32

func randomToken() (string, error) {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// plausibleToken refuses, before any lookup, what no token of ours can be.
func plausibleToken(t string) bool {
	b, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil && len(b) == tokenBytes
}

// digest is how a single-use secret is stored: its 256 random bits need no key.
func digest(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// newSecret makes and stores a single-use secret of kind for an offer (or, for a nonce, for
// the account's issuer).
func (s *Service) newSecret(ctx context.Context, kind string, accountID uuid.UUID, offerID *uuid.UUID, ttl time.Duration) (string, error) {
	secret, err := randomToken()
	if err != nil {
		return "", err
	}
	err = s.store.InsertWalletSecret(ctx, store.WalletSecret{Hash: digest(secret), Kind: kind, AccountID: accountID,
		OfferID: offerID, ExpiresAt: s.now().Add(ttl)})
	return secret, err
}

// ForRecipient returns an offer to show the credential's recipient (their verification page):
// the newest unclaimed one valid for a day more, else a new one. For a badge assertion the
// badge may be left out: it is read.
func (s *Service) ForRecipient(ctx context.Context, c Credential) (Offer, error) {
	c, err := s.withBadge(ctx, c)
	if err != nil {
		return Offer{}, err
	}
	o, err := s.store.LatestLiveWalletOffer(ctx, c.AccountID, c.CertificateID, c.AssertionID, s.now().Add(24*time.Hour))
	if errors.Is(err, store.ErrNotFound) {
		return s.Create(ctx, c)
	} else if err != nil {
		return Offer{}, err
	}
	token, err := s.box.Open(o.TokenSealed, sealedFor(o.ID))
	if err != nil {
		return Offer{}, fmt.Errorf("wallet: opening the token of offer %s: %w", o.ID, err)
	}
	return s.view(o, string(token)), nil
}

// withBadge fills in the badge of a badge assertion named without it (the recipient's page
// and the delivery email know only the assertion).
func (s *Service) withBadge(ctx context.Context, c Credential) (Credential, error) {
	if c.AssertionID == nil || c.BadgeID != uuid.Nil {
		return c, nil
	}
	a, err := s.store.FindBadgeAssertion(ctx, *c.AssertionID)
	if err != nil {
		return c, apperr.When(err, store.ErrNotFound, apperr.NoSuch("badge assertion"))
	}
	c.BadgeID = a.Assertion.BadgeID
	return c, nil
}
