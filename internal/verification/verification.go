// Package verification answers the public side of credentials: what a verification code
// stands for (status, recipient, credential, issuer, dates), its assets (QR code, preview,
// PDF, issuer logo), the recipient's portal (certificate.viewed and certificate.downloaded),
// sharing, and the counting of views, verifications, downloads and shares for analytics.
//
// A code is looked up in the registry of verification codes, which spans certificates and
// badge assertions; the answer is a Credential with a Kind. Certificates are the kind built
// so far; badge assertions join with their own branch in Lookup and the store's query.
package verification

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/changecache"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// Kind is the kind of a credential, as the verification result names it.
type Kind string

// The kinds of credentials.
const (
	KindCertificate Kind = "certificate"
	KindBadge       Kind = "badge"
)

// Status is what a verification says of a credential.
type Status string

// The statuses of a verified credential.
const (
	Valid   Status = "valid"
	Expired Status = "expired"
	Revoked Status = "revoked"
)

// Credential is the public view of a certificate or badge assertion. It never holds the
// recipient's email.
type Credential struct {
	// Erased: the holder had their data erased at their request; the credential is revoked,
	// its recipient's name is empty, and its files are gone.
	Erased                       bool
	Kind                         Kind
	ID, AccountID, EventID       uuid.UUID
	AttendeeID                   uuid.UUID
	Code                         string
	Number                       string // the certificate number; empty for a badge
	Name                         string
	Description                  *string
	RecipientName                string
	RecipientFirstName           string
	Status                       Status
	IssuedAt                     time.Time
	ExpiresAt, RevokedAt         *time.Time
	RevocationReason, ReasonCode *string
	EventDate                    *time.Time
	EventLocation                string
	// Locale is the credential's language (its event's): the page's last choice, after
	// ?lang= and Accept-Language. A badge assertion's is its own (its attendee's event's).
	Locale                      string
	Issuer                      Issuer
	UpdatedAt                   time.Time // moves whenever what the assets show may change
	tokenHash                   []byte
	firstViewed, verifiedBefore bool
	storeKind                   string
}

// Issuer is the issuer as its branding presents it now.
type Issuer struct {
	Name    string
	Website *string
	Color   string // "#RRGGBB", or empty for the default
	HasLogo bool
}

// Visitor is who sent a public request, as far as counting cares.
type Visitor struct {
	UserAgent string
}

// counted reports whether the visitor's requests count for analytics and the recipient's
// portal: crawlers and link unfurlers are answered but not counted.
func (v Visitor) counted() bool { return !IsCrawler(v.UserAgent) }

// CertificateSource gives the rendering of a certificate (certificates.Service).
type CertificateSource interface {
	GetWithSnapshot(ctx context.Context, accountID, id uuid.UUID) (domain.Certificate, error)
	PDF(c domain.Certificate) ([]byte, error)
	PNG(c domain.Certificate) ([]byte, error)
	ShareCard(c domain.Certificate, label string) ([]byte, error)
}

// Service answers public verification.
type Service struct {
	store        *store.Store
	certificates CertificateSource
	badges       BadgeSource // nil: badge assertions are not found
	signer       CredentialSigner
	links        links.Site
	now          func() time.Time
	logger       *slog.Logger
	renders      *renderCache
	lookups      *changecache.Cache[string, store.VerifiedCertificate] // by code; nil: every lookup reads the database
	// Activity batches the counters of views, verifications, downloads and shares.
	Activity *Recorder
}

// Options configure a Service.
type Options struct {
	SiteURL string
	Now     func() time.Time
	Logger  *slog.Logger
	// FlushEvery is how often counted activity is written (default 2 s).
	FlushEvery time.Duration
	// Badges answers for badge assertions.
	Badges BadgeSource
	// Credentials signs the verifiable credentials (credential.json, credential.jwt and the
	// Open Badges 3.0 baked images); required.
	Credentials CredentialSigner
	// LookupCache is how many issued certificates the lookups keep in memory, once the
	// service listens for changes (Watcher); 0: none (config.Config.LookupCacheSize).
	LookupCache int
}

// New returns the service over st; certificates renders certificates' assets.
func New(st *store.Store, certificates CertificateSource, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Service{store: st, certificates: certificates, badges: o.Badges, signer: o.Credentials, links: links.New(o.SiteURL), now: o.Now,
		logger: o.Logger, renders: newRenderCache(64 << 20), lookups: changecache.New[string, store.VerifiedCertificate](o.LookupCache),
		Activity: newRecorder(st, o.Now, o.Logger, o.FlushEvery)}
}

// Watcher is what must be told of changes for the lookups to keep certificates in memory:
// changefeed.Watch's listening and notices, and the changes of this process's own commits
// (store.Store.OnCommit), so that a request that revoked answers before a lookup after it can
// find the certificate kept. Until it is told Listening, the lookups keep nothing.
func (s *Service) Watcher() changefeed.Watcher {
	return changecache.Watcher[string, store.VerifiedCertificate]{Cache: s.lookups, Forgets: forgottenLookup}
}

// LookupStats are the figures of the lookups' cache, for the operator's metrics.
func (s *Service) LookupStats() changecache.Stats { return s.lookups.Stats() }

// forgottenLookup is what a change makes the lookups forget: a certificate by its code, and
// every certificate for a change of an account's issuer (which any of its certificates shows)
// or one that names nothing.
func forgottenLookup(ch changefeed.Change) (code string, one, all bool) {
	return ch.Code, ch.Code != "", ch.Code == ""
}

// marked sets the first view and the first verification on a kept certificate, once the
// service has counted them: flags that only go one way, so a stale copy in another instance
// costs a write that changes nothing, never a wrong answer.
func (s *Service) marked(code string, viewed, verified bool) {
	s.lookups.Update(code, func(r store.VerifiedCertificate) (store.VerifiedCertificate, bool) {
		changed := viewed && !r.ViewedBefore || verified && !r.VerifiedBefore
		r.ViewedBefore, r.VerifiedBefore = r.ViewedBefore || viewed, r.VerifiedBefore || verified
		return r, changed
	})
}

// AssetURL is the absolute URL of one of a code's assets (qr, preview.png, issuer-logo, ...).
func (s *Service) AssetURL(code, asset string) string {
	return s.links.VerificationAsset(code, asset)
}

// CredentialURL is the URL of a credential's signed form: "json" (credential.json) or "jwt".
func (s *Service) CredentialURL(code string, form credentials.Form) string {
	return s.AssetURL(code, "credential."+string(form))
}

// ImageURL is the image that stands for the credential: a certificate's rendered preview.
func (s *Service) ImageURL(c Credential) string {
	if c.Kind == KindBadge {
		return s.AssetURL(c.Code, "badge.png")
	}
	return s.AssetURL(c.Code, "preview.png")
}

// ShareCardURL is the credential's share card (1200x630), what its page names as og:image.
func (s *Service) ShareCardURL(c Credential) string { return s.AssetURL(c.Code, "share.png") }

// LogoURL is the issuer's logo of the credential, when it has one.
func (s *Service) LogoURL(c Credential) *string {
	if !c.Issuer.HasLogo {
		return nil
	}
	u := s.links.IssuerLogo(c.Code)
	return &u
}

func notFound() error {
	e := apperr.New(apperr.NotFound, "No credential has this verification code.")
	e.Details = []apperr.Detail{{Field: "code", Message: "names no issued credential"}}
	return e
}

func invalidCode() error {
	return apperr.Invalid("code", "must be a verification code: 1 to 64 letters, digits or hyphens")
}

// find reads the credential behind a code at the service's time. Drafts and unknown codes are
// not found; a code of a kind not built yet is not found either.
func (s *Service) find(ctx context.Context, raw string) (Credential, error) {
	code, ok := NormalizeCode(raw)
	if !ok {
		return Credential{}, invalidCode()
	}
	if r, ok := s.lookups.Get(code); ok {
		return s.fromCertificate(r)
	}
	gen, keep := s.lookups.Begin()
	rec, err := s.store.LookupVerificationCode(ctx, code)
	if errors.Is(err, store.ErrNotFound) {
		return Credential{}, notFound()
	} else if err != nil {
		return Credential{}, err
	}
	switch {
	case rec.Kind == store.KindCertificate && rec.Certificate != nil:
		c, err := s.fromCertificate(*rec.Certificate)
		if err == nil && keep { // a draft is not found, so not kept: issued, it is read again
			s.lookups.Put(gen, code, *rec.Certificate)
		}
		return c, err
	case rec.Kind == store.KindBadgeAssertion && s.badges != nil:
		return s.fromAssertion(ctx, code)
	default:
		return Credential{}, notFound()
	}
}

// BadgeSource gives what verification shows of badge assertions (badges.Service).
type BadgeSource interface {
	AssertionByCode(ctx context.Context, code string) (badges.AssertionView, error)
	BakedPNG(ctx context.Context, code string) ([]byte, error)
	BakedSVG(ctx context.Context, code string) ([]byte, error)
	BakedCredential(ctx context.Context, code string, svg bool, credential []byte) ([]byte, error)
}

// CredentialSigner signs the verifiable forms of credentials (credentials.Service).
type CredentialSigner interface {
	Credential(ctx context.Context, ref credentials.Ref, form credentials.Form, ifNoneMatch string) (credentials.Signed, error)
}

func (s *Service) fromAssertion(ctx context.Context, code string) (Credential, error) {
	v, err := s.badges.AssertionByCode(ctx, code)
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) && ae.Code == apperr.NotFound {
			return Credential{}, notFound()
		}
		return Credential{}, err
	}
	c := Credential{Kind: KindBadge, storeKind: store.KindBadgeAssertion, ID: v.ID, AccountID: v.AccountID,
		AttendeeID: v.AttendeeID, Code: v.VerificationCode, Name: v.BadgeName, Description: v.BadgeDescription,
		RecipientName: v.RecipientName, Status: Status(v.Status), IssuedAt: v.IssuedAt.UTC(),
		ExpiresAt: utc(v.ExpiresAt), RevokedAt: utc(v.RevokedAt), RevocationReason: v.RevocationReason, ReasonCode: v.RevocationReasonCode,
		Issuer: Issuer{Name: v.Issuer.Name, HasLogo: v.Issuer.Logo != "", Color: v.Issuer.Color}, UpdatedAt: v.IssuedAt, Locale: v.Locale}
	c.RecipientFirstName = v.RecipientFirstName
	if v.Issuer.URL != "" {
		c.Issuer.Website = &v.Issuer.URL
	}
	if c.RevokedAt != nil {
		c.UpdatedAt = *c.RevokedAt
	}
	c.EventID = v.EventID // analytics count per event: an assertion's is its attendee's
	return erased(c), nil
}

func (s *Service) fromCertificate(r store.VerifiedCertificate) (Credential, error) {
	if r.Status == domain.StoredCertificateDraft || r.IssuedAt == nil {
		return Credential{}, notFound()
	}
	c := Credential{Kind: KindCertificate, storeKind: store.KindCertificate, ID: r.ID, AccountID: r.AccountID,
		EventID: r.EventID, AttendeeID: r.AttendeeID, Code: r.Code, Number: r.Number, Name: r.EventName,
		RecipientName: render.FullName(r.FirstName, r.LastName), RecipientFirstName: r.FirstName,
		IssuedAt: r.IssuedAt.UTC(), ExpiresAt: utc(r.ExpiresAt), RevokedAt: utc(r.RevokedAt),
		RevocationReason: r.RevocationReason, ReasonCode: r.ReasonCode,
		EventDate: utc(r.EventDate), EventLocation: r.EventLocation, UpdatedAt: r.UpdatedAt, Locale: r.Locale,
		Issuer:    Issuer{Name: r.Issuer.Name, Website: r.Issuer.Website, HasLogo: r.Issuer.HasLogo},
		tokenHash: r.RecipientTokenHash, firstViewed: r.ViewedBefore, verifiedBefore: r.VerifiedBefore}
	if r.Issuer.Color != nil {
		c.Issuer.Color = *r.Issuer.Color
	}
	if c.Name == "" {
		c.Name = "Certificate " + r.Number
	}
	c.Status = statusAt(r.Status, c.ExpiresAt, s.now())
	return erased(c), nil
}

// erased withholds the name of a credential whose holder was erased at their request.
func erased(c Credential) Credential {
	if c.ReasonCode != nil && *c.ReasonCode == "erased" {
		c.Erased, c.RecipientName, c.RecipientFirstName = true, "", ""
	}
	return c
}

var errErased = apperr.New(apperr.Erased, "The holder of this credential had their data erased at their request: only its verification remains.")

// findFile finds the credential of a code for one of its files: an erased holder's credential
// keeps only its QR code (ERASED).
func (s *Service) findFile(ctx context.Context, code string) (Credential, error) {
	c, err := s.find(ctx, code)
	if err == nil && c.Erased {
		return Credential{}, errErased
	}
	return c, err
}

// statusAt is the domain's rule for a stored status at a time (domain.CertificateStatusAt) in
// verification's words; drafts never reach it (fromCertificate refuses them).
func statusAt(stored string, expiresAt *time.Time, now time.Time) Status {
	return Status(domain.CertificateStatusAt(stored, expiresAt, now))
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Verify answers the JSON lookup of a code, counted as a verification.
func (s *Service) Verify(ctx context.Context, code string, v Visitor) (Credential, error) {
	c, err := s.find(ctx, code)
	if err != nil {
		return c, err
	}
	if v.counted() && s.Activity.record(c, s.now(), verified) && !c.verifiedBefore && c.Kind == KindCertificate {
		s.marked(c.Code, false, true)
	}
	return c, nil
}

// Describe returns what a code's credential is, without counting a verification: for a page
// that shows it to its recipient for another purpose (the wallet page).
func (s *Service) Describe(ctx context.Context, code string) (Credential, error) {
	return s.find(ctx, code)
}

// Page is what the verification page shows: the credential, and whether the request carries
// the recipient's token (the recipient's portal).
type Page struct {
	Credential
	// Token is the recipient token when it was valid: the page's PDF link carries it on.
	Token string
}

// Recipient reports whether the page is the recipient's portal.
func (p Page) Recipient() bool { return p.Token != "" }

// View answers the verification page of a code, counted as a view and a verification. With
// the recipient's token, the first open writes certificate.viewed to the outbox in the
// transaction that records it.
func (s *Service) View(ctx context.Context, code, token string, v Visitor) (Page, error) {
	c, err := s.find(ctx, code)
	if err != nil {
		return Page{}, err
	}
	p := Page{Credential: c}
	if tokenMatches(c, token) {
		p.Token = token
	}
	if !v.counted() {
		return p, nil
	}
	now := s.now()
	counted := s.Activity.record(c, now, viewed|verified)
	if c.Kind != KindCertificate {
		return p, nil
	}
	if counted && !c.verifiedBefore {
		s.marked(c.Code, false, true)
	}
	if p.Recipient() && !c.firstViewed {
		_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
			first, err := tx.MarkCertificateViewed(ctx, c.ID, now)
			if err != nil || !first {
				return struct{}{}, err
			}
			return struct{}{}, tx.Outbox(ctx, c.AccountID, "certificate.viewed", now,
				eventBody("certificate.viewed", now, c, "viewedAt"))
		})
		if err != nil {
			return Page{}, err
		}
		s.marked(c.Code, true, false)
	}
	return p, nil
}

// tokenMatches reports whether token is the recipient token whose hash the credential holds.
func tokenMatches(c Credential, token string) bool {
	if token == "" || len(c.tokenHash) != sha256.Size {
		return false
	}
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], c.tokenHash) == 1
}

// eventBody is a recipient event's webhook body: the certificate's fields and the time under
// timeField (viewedAt, downloadedAt).
func eventBody(eventType string, at time.Time, c Credential, timeField string) map[string]any {
	when := at.UTC().Format(time.RFC3339)
	return map[string]any{"eventType": eventType, "timestamp": when, "data": map[string]any{
		"certificateId": c.ID, "certificateNumber": c.Number, "eventId": c.EventID, "attendeeId": c.AttendeeID,
		"status": string(c.Status), "verificationCode": c.Code, timeField: when}}
}
