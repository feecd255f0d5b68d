package verification

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// MaxTokenLength is the contract's maxLength of a recipient token (the `t` parameter), in
// characters.
const MaxTokenLength = 128

// RecipientTokenValid reports whether token is the recipient token of the credential whose
// verification code is code (raw, as the request has it): the rate limits count such a
// request against the credential rather than the client's address, and check before they
// count. So the check is cheap: it reads the lookups' memory, where the credential's page
// kept it for its assets; on a miss it reads the database only when mayRead allows it (the
// rate limits bound those reads per address), and keeps what it read for the request's own
// lookup, which then finds it in memory. Only an issued certificate has a recipient token.
func (s *Service) RecipientTokenValid(ctx context.Context, code, token string, mayRead func() bool) (bool, error) {
	if token == "" || utf8.RuneCountInString(token) > MaxTokenLength {
		return false, nil
	}
	code, ok := NormalizeCode(code)
	if !ok {
		return false, nil
	}
	r, ok := s.lookups.Get(code)
	if !ok {
		if !mayRead() {
			return false, nil
		}
		gen, keep := s.lookups.Begin()
		rec, err := s.store.LookupVerificationCode(ctx, code)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		if rec.Kind != store.KindCertificate || rec.Certificate == nil {
			return false, nil // a badge assertion has no recipient token
		}
		r = *rec.Certificate
		if keep && r.Status != domain.StoredCertificateDraft && r.IssuedAt != nil {
			s.lookups.Put(gen, code, r) // as find keeps it
		}
	}
	if r.Status == domain.StoredCertificateDraft || r.IssuedAt == nil {
		return false, nil // a draft is not found
	}
	return tokenMatches(Credential{tokenHash: r.RecipientTokenHash}, token), nil
}
