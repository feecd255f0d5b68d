package credentials

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/etag"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/store"
)

// version reads what ref's signed form depends on, in one query, and refuses a credential
// whose entry is another's or whose source is not an issued one.
func (s *Service) version(ctx context.Context, ref Ref) (store.CredentialVersion, error) {
	v, err := s.store.FindCredentialVersion(ctx, ref.ID)
	if err != nil {
		return store.CredentialVersion{}, fmt.Errorf("credentials: entry of %s %s: %w", ref.Kind, ref.ID, err)
	}
	if v.Entry.AccountID != ref.AccountID || v.Entry.Kind != ref.Kind {
		return store.CredentialVersion{}, fmt.Errorf("credentials: entry of %s %s belongs to another credential", ref.Kind, ref.ID)
	}
	switch {
	case ref.Kind == store.KindCertificate && v.CertificateIssuedAt == nil, // a draft, or gone
		ref.Kind == store.KindBadgeAssertion && v.AssertionIssuedAt == nil: // gone
		return store.CredentialVersion{}, apperr.NoSuch("credential")
	case ref.Kind != store.KindCertificate && ref.Kind != store.KindBadgeAssertion:
		return store.CredentialVersion{}, errors.New("credentials: unknown kind " + ref.Kind)
	}
	return v, nil
}

// credentialTag is the strong ETag of ref's signed form: a digest of everything the signed
// bytes depend on. Each part either is an input of the build (the entry, the issuer's name,
// the key, the form, the site's address, the code that names the logo) or moves whenever an
// input it stands for changes (a certificate's updated_at for its snapshot and recipient; an
// assertion's columns; a badge's and the branding's updated_at for an assertion whose claims
// were not frozen). The code's version (formatVersion) and the catalogs' (locale.Digest: a
// text edited, a language added) change what the same data says. A
// part that moves without changing the bytes (a revocation, whose news is the status list's)
// only costs a signature.
func (s *Service) credentialTag(ref Ref, form Form, v store.CredentialVersion, key uuid.UUID) string {
	e := v.Entry
	return etag.Of("credential", formatVersion, locale.Digest, string(form), s.links.Root(), ref.Kind, ref.ID.String(), ref.VerificationCode,
		key.String(), fmt.Sprint(e.List, "/", e.Index), e.Salt, string(e.Claims), stamp(&e.SignedAt), stamp(e.RevokedAt),
		v.AccountName, stamp(v.CertificateUpdatedAt), stamp(v.CertificateIssuedAt),
		stamp(v.AssertionIssuedAt), stamp(v.AssertionExpiresAt), stamp(v.AssertionRevokedAt), store.Deref(v.AssertionLocale),
		stamp(v.BadgeUpdatedAt), stamp(v.BrandingUpdatedAt))
}

// stamp writes a time as a part of a tag, to the microsecond PostgreSQL keeps; nil is empty.
func stamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
