package certificates

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// Revoke revokes an issued (valid or expired) certificate and keeps it, writing
// certificate.revoked; revoking a revoked one answers it unchanged, with no second event; a
// draft answers 409.
func (s *Service) Revoke(ctx context.Context, accountID, id uuid.UUID, reason *string, code string) (domain.Certificate, error) {
	if code == "" {
		code = "other"
	}
	if reason != nil && strings.TrimSpace(*reason) == "" {
		reason = nil
	}
	now := s.now().UTC()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Certificate, error) {
		cur, err := tx.LockCertificate(ctx, accountID, id, now)
		if err != nil {
			return domain.Certificate{}, noSuchCertificate(err)
		}
		if cur.Status == domain.CertificateDraft {
			return domain.Certificate{}, apperr.New(apperr.Conflict, "A draft is not issued and cannot be revoked; delete it instead.")
		}
		return revoke(ctx, tx, cur, store.Revocation{At: now, Reason: reason, ReasonCode: code})
	})
}

// RevokeErased revokes, in tx, a certificate of a person erased at their request (reason code
// erased), and reports whether it did: a draft or a certificate revoked already is left as it
// is. The certificate's recipient is erased already, so its event carries no personal data.
func (s *Service) RevokeErased(ctx context.Context, tx *store.Tx, accountID, id uuid.UUID, at time.Time) (bool, error) {
	cur, err := tx.LockCertificate(ctx, accountID, id, at)
	if err != nil {
		return false, err
	}
	if cur.Status == domain.CertificateDraft || cur.Status == domain.CertificateRevoked {
		return false, nil
	}
	_, err = revoke(ctx, tx, cur, store.Revocation{At: at, ReasonCode: "erased"})
	return err == nil, err
}

// revoke revokes the locked certificate cur, unless it is revoked already.
func revoke(ctx context.Context, tx *store.Tx, cur domain.Certificate, r store.Revocation) (domain.Certificate, error) {
	if cur.Status == domain.CertificateRevoked {
		return cur, nil
	}
	c, err := tx.RevokeCertificate(ctx, cur.ID, r, r.At)
	if err != nil {
		return domain.Certificate{}, err
	}
	if err := credentials.RevokeStatus(ctx, tx, r.At, c.ID); err != nil {
		return domain.Certificate{}, err
	}
	data := eventData(c)
	data["revokedAt"], data["reason"], data["reasonCode"] = r.At.Format(time.RFC3339), r.Reason, r.ReasonCode
	return c, tx.Outbox(ctx, c.AccountID, "certificate.revoked", r.At, eventBody("certificate.revoked", r.At, data))
}

// Delete removes a draft; an issued certificate is never erased: it is revoked with reason
// code deleted_by_issuer and kept.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	now := s.now().UTC()
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		cur, err := tx.LockCertificate(ctx, accountID, id, now)
		if err != nil {
			return struct{}{}, noSuchCertificate(err)
		}
		if cur.Status == domain.CertificateDraft {
			return struct{}{}, tx.DeleteDraftCertificate(ctx, id)
		}
		_, err = revoke(ctx, tx, cur, store.Revocation{At: now, ReasonCode: "deleted_by_issuer"})
		return struct{}{}, err
	})
	return err
}

// Regenerate rebuilds a valid or expired certificate's snapshot from the current attendee,
// event, template and branding; number and code stay, and no credit is used.
func (s *Service) Regenerate(ctx context.Context, accountID, id uuid.UUID) (domain.Certificate, error) {
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Certificate, error) {
		cur, err := tx.LockCertificate(ctx, accountID, id, now)
		if err != nil {
			return domain.Certificate{}, noSuchCertificate(err)
		}
		if cur.Status == domain.CertificateRevoked || cur.Status == domain.CertificateDraft {
			return domain.Certificate{}, apperr.New(apperr.Conflict, "A %s certificate cannot be regenerated.", cur.Status)
		}
		src, err := issueSource(ctx, tx, accountID, cur.EventID, cur.AttendeeID, cur.TemplateID)
		if err != nil {
			return domain.Certificate{}, err
		}
		snap, err := snapshotFrom(src)
		if err != nil {
			return domain.Certificate{}, err
		}
		c, err := tx.ReplaceSnapshot(ctx, id, recipientOf(src.Attendee), snap, now)
		if err != nil {
			return domain.Certificate{}, err
		}
		// The credential says what the new snapshot says: it is signed again.
		return c, credentials.Resign(ctx, tx, id, now)
	})
}
