package credentials

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/etag"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/openbadges"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/vc"
)

// Form is how a credential is secured.
type Form string

// The forms of a credential.
const (
	// FormDataIntegrity is credential.json: an embedded eddsa-rdfc-2022 DataIntegrityProof.
	FormDataIntegrity Form = "json"
	// FormJWT is credential.jwt: the credential secured as VC-JOSE.
	FormJWT Form = "jwt"
)

// formatVersion changes whenever the code changes what a credential says for the same data,
// so that no cache keeps an answer the code would no longer give.
const formatVersion = "2"

// Ref names an issued credential, as public verification found it by its code.
type Ref struct {
	Kind             string // store.KindCertificate or store.KindBadgeAssertion
	ID, AccountID    uuid.UUID
	VerificationCode string
}

// Signed is a signed answer. NotModified: the request's If-None-Match named ETag, and Body is
// empty.
type Signed struct {
	Body        []byte
	ETag        string
	NotModified bool
}

// BadgeClaims is what a badge assertion's credential says that the assertion does not keep:
// its badge and issuer as they were when it was issued.
type BadgeClaims struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Narrative     string `json:"narrative,omitempty"`
	CriteriaURL   string `json:"criteriaUrl,omitempty"`
	IssuerName    string `json:"issuerName"`
	IssuerURL     string `json:"issuerUrl,omitempty"`
	IssuerHasLogo bool   `json:"issuerHasLogo,omitempty"`
}

func (c *BadgeClaims) marshal() ([]byte, error) { return json.Marshal(c) }

// Credential answers the signed credential of an issued certificate or badge assertion, in
// form, as it was when its content was fixed (issued or regenerated), signed with the key
// active then. Its ETag is made of the credential's version (one read, see version.go): a
// request whose If-None-Match names it is answered 304 without building or signing anything.
func (s *Service) Credential(ctx context.Context, ref Ref, form Form, ifNoneMatch string) (Signed, error) {
	v, err := s.version(ctx, ref)
	if err != nil {
		return Signed{}, err
	}
	keyID, ok := keyAt(v.Keys, v.Entry.SignedAt)
	if !ok {
		return Signed{}, fmt.Errorf("%w: account %s", errNoIssuerKey, ref.AccountID)
	}
	out := Signed{ETag: s.credentialTag(ref, form, v, keyID)}
	if out.NotModified = etag.Matches(ifNoneMatch, out.ETag); out.NotModified {
		return out, nil
	}
	cred, err := s.unsigned(ctx, ref, v)
	if err != nil {
		return Signed{}, err
	}
	keys, err := s.keys(ctx, ref.AccountID)
	if err != nil {
		return Signed{}, err
	}
	key, err := keyByID(keys, keyID)
	if err != nil {
		return Signed{}, err
	}
	doc, err := json.Marshal(cred)
	if err != nil {
		return Signed{}, err
	}
	// The signed answers are kept by what is signed, not by the ETag: what was read to build
	// them may be newer than the version the ETag names.
	signedAt := v.Entry.SignedAt
	content := etag.Of("signed", formatVersion, string(form), key.id.String(), signedAt.UTC().Format(time.RFC3339Nano), string(doc))
	out.Body, err = s.signed.get(content, func() ([]byte, error) {
		signer, err := s.signer(ref.AccountID, cred.Issuer.ID, key)
		if err != nil {
			return nil, err
		}
		if form == FormJWT {
			token, err := signer.SignJWT(cred, signedAt)
			return []byte(token), err
		}
		return signer.SignDataIntegrity(cred, signedAt)
	})
	return out, err
}

// unsigned builds the credential of ref from what was frozen when it was issued, its entry and
// the issuer's name as v read them.
func (s *Service) unsigned(ctx context.Context, ref Ref, v store.CredentialVersion) (vc.OpenBadgeCredential, error) {
	entry := v.Entry
	did, err := s.DID(ref.AccountID)
	if err != nil {
		return vc.OpenBadgeCredential{}, err
	}
	status, err := vc.NewStatusEntry(vc.StatusListURL(s.links.Root(), ref.AccountID.String(), entry.List), entry.Index)
	if err != nil {
		return vc.OpenBadgeCredential{}, err
	}
	in := vc.CredentialInput{ID: ref.ID.String(), IssuerDID: did, Salt: entry.Salt, Status: &status}
	logoURL := s.links.IssuerLogo(ref.VerificationCode)
	// What a credential says of its achievement is what was frozen when it was issued; where
	// that says nothing (no event or badge description, no criteria), a sentence is generated,
	// since Open Badges 3.0 requires both a description and a criteria narrative.
	var describe func(issuerName string)
	switch ref.Kind {
	case store.KindCertificate:
		c, err := s.store.FindCertificate(ctx, ref.AccountID, ref.ID, s.now())
		if err != nil {
			return vc.OpenBadgeCredential{}, err
		}
		if c.IssuedAt == nil {
			return vc.OpenBadgeCredential{}, apperr.NoSuch("credential")
		}
		var snap certificateSnapshot
		if err := json.Unmarshal(c.Snapshot, &snap); err != nil {
			return vc.OpenBadgeCredential{}, fmt.Errorf("credentials: snapshot of certificate %s: %w", c.ID, err)
		}
		in.IssuerName, in.IssuerURL = snap.Issuer.Name, snap.Issuer.Website
		if snap.Issuer.Logo != "" {
			in.IssuerImageURL = logoURL
		}
		in.Name = snap.Event.Name
		in.IdentityHash = openbadges.RecipientIdentity(c.Email, entry.Salt)
		in.AchievementID = "urn:uuid:" + c.EventID.String()
		in.AchievementName = snap.Event.Name
		in.AchievementType = "Certificate"
		in.IssuedAt, in.ExpiresAt = *c.IssuedAt, c.ExpiresAt
		describe = func(issuerName string) {
			in.AchievementDescription = cmp.Or(strings.TrimSpace(snap.Event.Description),
				CertificateDescription(snap.Event.Locale, snap.Event.Name, snap.Event.Date, issuerName))
			in.Narrative = CertificateNarrative(snap.Event.Locale, snap.Event.Name, snap.Event.Date)
		}
	case store.KindBadgeAssertion:
		ab, err := s.store.FindBadgeAssertion(ctx, ref.ID)
		if err != nil {
			return vc.OpenBadgeCredential{}, err
		}
		a, b := ab.Assertion, ab.Badge
		claims, err := s.badgeClaims(ctx, entry, b)
		if err != nil {
			return vc.OpenBadgeCredential{}, err
		}
		in.IssuerName, in.IssuerURL = claims.IssuerName, claims.IssuerURL
		if claims.IssuerHasLogo {
			in.IssuerImageURL = logoURL
		}
		in.Name, in.AchievementName = claims.Name, claims.Name
		in.IdentityHash = openbadges.RecipientIdentity(a.Recipient.Email, entry.Salt)
		in.AchievementID = s.links.OpenBadgesBadgeClass(b.ID)
		in.AchievementType = "Badge"
		in.IssuedAt, in.ExpiresAt = a.IssuedAt, a.ExpiresAt
		describe = func(issuerName string) {
			in.AchievementDescription = cmp.Or(claims.Description, BadgeDescription(a.Locale, claims.Name, issuerName))
			in.Narrative = claims.Narrative
			if in.Narrative == "" && claims.CriteriaURL != "" {
				in.Narrative = locale.Text(locale.Or(a.Locale, locale.Default), "credential.seeCriteria", map[string]any{"URL": claims.CriteriaURL})
			}
			in.Narrative = cmp.Or(in.Narrative, BadgeNarrative(a.Locale, claims.Name, issuerName))
		}
	default:
		return vc.OpenBadgeCredential{}, fmt.Errorf("credentials: unknown kind %q", ref.Kind)
	}
	in.IssuerName = cmp.Or(in.IssuerName, v.AccountName)
	// The issuer's website, else the service's own address: wallets show it as the issuer's
	// link, and the Open Badges 2.0 profile of the same issuer requires one.
	in.IssuerURL = cmp.Or(in.IssuerURL, s.links.Root())
	describe(in.IssuerName)
	return vc.NewOpenBadgeCredential(in)
}

// The sentences below are what a credential says where its issuer wrote nothing, in the
// credential's language (lang: its event's locale, stored with it when it was issued, so that
// signing it again gives the same words; "" for credentials issued before languages, which
// speak English). The user's words (names) are the catalog text's data, never its template.

// CertificateDescription is the achievement description of a certificate whose event has
// none: the event, its date and who issued it.
func CertificateDescription(lang, event string, date time.Time, issuer string) string {
	lang = locale.Or(lang, locale.Default)
	return locale.Text(lang, "credential.certificateDescription", map[string]any{"Event": event, "Date": locale.LongDate(date, lang), "Issuer": issuer})
}

// CertificateNarrative is how a certificate is earned: by attending its event.
func CertificateNarrative(lang, event string, date time.Time) string {
	return locale.Text(locale.Or(lang, locale.Default), "credential.certificateNarrative",
		map[string]any{"Event": event, "Day": date.UTC().Format(time.DateOnly)})
}

// BadgeDescription is the description of a badge that has none, in its credentials and its
// Open Badges 2.0 BadgeClass.
func BadgeDescription(lang, name, issuer string) string {
	return locale.Text(locale.Or(lang, locale.Default), "credential.badgeDescription", map[string]any{"Badge": name, "Issuer": issuer})
}

// BadgeNarrative is the criteria of a badge that states none.
func BadgeNarrative(lang, name, issuer string) string {
	return locale.Text(locale.Or(lang, locale.Default), "credential.badgeNarrative", map[string]any{"Badge": name, "Issuer": issuer})
}

// badgeClaims are the claims frozen in the entry; an assertion issued before they were kept
// says what its badge says now.
func (s *Service) badgeClaims(ctx context.Context, entry store.VerifiableCredential, b domain.Badge) (BadgeClaims, error) {
	var c BadgeClaims
	if entry.Claims != nil {
		err := json.Unmarshal(entry.Claims, &c)
		return c, err
	}
	c = BadgeClaimsOf(b, "", "", false)
	br, err := s.store.FindBranding(ctx, b.AccountID)
	if err != nil {
		return c, err
	}
	c.IssuerName, c.IssuerURL, c.IssuerHasLogo = store.Deref(br.IssuerName), store.Deref(br.Website), store.Deref(br.Logo) != ""
	return c, nil
}

// BadgeClaimsOf is what an assertion of b issued now says, its issuer named and linked as
// given.
func BadgeClaimsOf(b domain.Badge, issuerName, issuerURL string, issuerHasLogo bool) BadgeClaims {
	return BadgeClaims{Name: b.Name, Description: store.Deref(b.Description), Narrative: store.Deref(b.CriteriaNarrative),
		CriteriaURL: store.Deref(b.CriteriaURL), IssuerName: issuerName, IssuerURL: issuerURL, IssuerHasLogo: issuerHasLogo}
}

// certificateSnapshot is the part of a certificate's snapshot (certificates.Snapshot) that its
// credential says.
type certificateSnapshot struct {
	Event struct {
		Name        string    `json:"name"`
		Date        time.Time `json:"date"`
		Description string    `json:"description"`
		Locale      string    `json:"locale"`
	} `json:"event"`
	Issuer struct {
		Name    string `json:"name"`
		Website string `json:"website"`
		Logo    string `json:"logo"`
	} `json:"issuer"`
}

// StatusList answers the account's signed BitstringStatusListCredential number list, built
// from the stored bits and signed with the account's newest key, as of its last revocation.
func (s *Service) StatusList(ctx context.Context, accountID uuid.UUID, list int, ifNoneMatch string) (Signed, error) {
	if list < 1 || list > math.MaxInt32 { // public routes skip the request validator
		return Signed{}, apperr.Invalid("list", "must be a list number from 1 to 2147483647")
	}
	l, err := s.store.FindStatusList(ctx, accountID, list)
	if errors.Is(err, store.ErrNotFound) {
		return Signed{}, apperr.NoSuch("status list")
	} else if err != nil {
		return Signed{}, err
	}
	keys, err := s.keys(ctx, accountID)
	if err != nil {
		return Signed{}, err
	}
	key := keys[len(keys)-1]
	at := l.ChangedAt.UTC().Truncate(time.Second) // the list's validFrom, to the second as every date
	out := Signed{ETag: etag.Of("status", formatVersion, s.links.Root(), accountID.String(), fmt.Sprint(list), key.id.String(),
		l.ChangedAt.UTC().Format(time.RFC3339Nano))}
	if out.NotModified = etag.Matches(ifNoneMatch, out.ETag); out.NotModified {
		return out, nil
	}
	out.Body, err = s.signed.get(out.ETag, func() ([]byte, error) {
		revoked, err := s.store.RevokedStatusIndexes(ctx, accountID, list)
		if err != nil {
			return nil, err
		}
		bits := vc.NewStatusList()
		for _, i := range revoked {
			if err := bits.Set(i, true); err != nil {
				return nil, err
			}
		}
		did, err := s.DID(accountID)
		if err != nil {
			return nil, err
		}
		signer, err := s.signer(accountID, did, key)
		if err != nil {
			return nil, err
		}
		url := vc.StatusListURL(s.links.Root(), accountID.String(), list)
		return signer.SignDataIntegrity(vc.NewStatusListCredential(url, did, bits, at), at)
	})
	return out, err
}

// signedCache keeps recent signed answers by ETag, at most max of them (a few KiB each); when
// full it forgets an arbitrary half, which costs a signature per forgotten answer asked again.
// Concurrent requests for an answer it does not hold sign it once (a revocation changes a
// status list that many verifiers then fetch at once; each signature is milliseconds of
// JSON-LD work).
type signedCache struct {
	flight singleflight.Group
	mu     sync.Mutex
	m      map[string][]byte
	max    int
}

func newSignedCache(max int) *signedCache { return &signedCache{m: map[string][]byte{}, max: max} }

func (c *signedCache) get(key string, sign func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	b, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		b, err := sign()
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.m) >= c.max {
			n := 0
			for k := range c.m {
				delete(c.m, k)
				if n++; n >= c.max/2 {
					break
				}
			}
		}
		c.m[key] = b
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}
