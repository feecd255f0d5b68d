package certificates

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/wallet"
)

// linkMarker stands in the recorded body for the verification link: the link carries a
// recipient token, made when the email is sent, so that the token never rests in the database
// (only its hash does, on the certificate).
const linkMarker = "[[verification-link]]"

// recordEmail records the delivery email of a certificate in tx, in the words of its snapshot.
func (s *Service) recordEmail(ctx context.Context, tx *store.Tx, c domain.Certificate, now time.Time) (domain.EmailDelivery, error) {
	var accountName string
	if snapshotOf(c).Issuer.Name == "" {
		// A certificate issued before the account's name stood in for an unset issuer name.
		acct, err := tx.FindAccountByID(ctx, c.AccountID)
		if err != nil {
			return domain.EmailDelivery{}, err
		}
		accountName = acct.Name
	}
	return tx.EnqueueEmail(ctx, composeEmail(c, accountName), now)
}

// composeEmail is the delivery email of a certificate, in the words of its snapshot; the
// issuer is accountName where the snapshot names none.
func composeEmail(c domain.Certificate, accountName string) domain.OutboundEmail {
	snap := snapshotOf(c)
	if snap.Issuer.Name == "" {
		snap.Issuer.Name = accountName
	}
	lang := locale.Or(snap.Event.Locale, locale.Default)
	// The user's words (names, the event's name) are data of the catalog's text, never part
	// of it: a "{{" in an event's name is printed, not executed.
	fields := map[string]any{"FirstName": c.FirstName, "FullName": render.FullName(c.FirstName, c.LastName),
		"Event": snap.Event.Name, "Number": c.Number, "Link": linkMarker, "Wallet": wallet.EmailParagraphIn(lang), "Issuer": snap.Issuer.Name}
	m := domain.OutboundEmail{AccountID: c.AccountID, Kind: "certificate", CertificateID: &c.ID, ToAddress: c.Email,
		ToName: render.FullName(c.FirstName, c.LastName), FromName: cmp.Or(snap.Issuer.EmailFromName, snap.Issuer.Name),
		Subject: locale.Text(lang, "email.certificate.subject", fields), BodyText: locale.Text(lang, "email.certificate.body", fields),
		Locale: lang}
	if snap.Issuer.EmailReplyTo != "" {
		rt := snap.Issuer.EmailReplyTo
		m.ReplyTo = &rt
	}
	return m
}

// Send records the delivery email of a valid or expired certificate (its link gets a fresh
// recipient token, and the PDF is attached, when it is sent).
func (s *Service) Send(ctx context.Context, accountID, id uuid.UUID) (domain.EmailDelivery, error) {
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.EmailDelivery, error) {
		c, err := tx.LockCertificate(ctx, accountID, id, now)
		if err != nil {
			return domain.EmailDelivery{}, noSuchCertificate(err)
		}
		if c.Status == domain.CertificateRevoked || c.Status == domain.CertificateDraft {
			return domain.EmailDelivery{}, apperr.New(apperr.Conflict, "A %s certificate is not sent.", c.Status)
		}
		return s.recordEmail(ctx, tx, c, now)
	})
}

// SendBulk records, in one transaction, the delivery emails of an event's valid certificates
// (or of those named), skipping those already emailed when onlyUnsent is set.
func (s *Service) SendBulk(ctx context.Context, accountID, eventID uuid.UUID, ids []uuid.UUID, onlyUnsent bool) (queued, skipped int, err error) {
	if err := events.Require(ctx, s.store, accountID, eventID); err != nil {
		return 0, 0, err
	}
	now := s.now()
	type counts struct{ queued, skipped int }
	n, err := store.InTx(ctx, s.store, func(tx *store.Tx) (counts, error) {
		var n counts
		sendable, err := tx.SendableCertificates(ctx, accountID, eventID, ids, now)
		if err != nil {
			return n, err
		}
		if ids != nil {
			n.skipped = len(ids) - len(sendable)
		}
		for _, c := range sendable {
			if onlyUnsent && c.Emailed {
				n.skipped++
				continue
			}
			if _, err := s.recordEmail(ctx, tx, c.Certificate, now); err != nil {
				return n, err
			}
			n.queued++
		}
		return n, nil
	})
	return n.queued, n.skipped, err
}

// PrepareEmail completes a certificate's delivery email as it is sent: a fresh recipient token
// goes into its link (its hash onto the certificate, replacing an earlier one), and the PDF is
// rendered from the snapshot and attached.
func (s *Service) PrepareEmail(ctx context.Context, d *domain.EmailDelivery) ([]email.Attachment, error) {
	if d.Kind != "certificate" || d.CertificateID == nil {
		return nil, nil
	}
	c, err := s.store.FindCertificate(ctx, d.AccountID, *d.CertificateID, s.now())
	if err != nil {
		return nil, err
	}
	if c.Status == domain.CertificateRevoked || c.Status == domain.CertificateDraft {
		return nil, &email.PermanentError{Err: fmt.Errorf("certificate %s is %s", c.Number, c.Status)}
	}
	pdf, err := s.PDF(c)
	if err != nil {
		return nil, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	hash := sha256.Sum256([]byte(token))
	if err := s.store.SetRecipientToken(ctx, c.ID, hash[:]); err != nil {
		return nil, err
	}
	d.BodyText = strings.ReplaceAll(d.BodyText, linkMarker, s.links.Verification(c.VerificationCode)+"?t="+token)
	return []email.Attachment{{Name: c.Number + ".pdf", ContentType: "application/pdf", Data: pdf}}, nil
}

// RecordSent writes certificate.sent to the outbox in tx, the transaction in which the email
// worker marks a certificate's delivery email sent; other messages write nothing.
func (s *Service) RecordSent(ctx context.Context, tx *store.Tx, d domain.EmailDelivery) error {
	if d.Kind != "certificate" || d.CertificateID == nil {
		return nil
	}
	at := store.Deref(d.SentAt).UTC()
	c, err := tx.FindCertificateByID(ctx, *d.CertificateID, at)
	if err != nil {
		return err
	}
	data := eventData(c)
	data["emailDeliveryId"] = d.ID
	return tx.Outbox(ctx, d.AccountID, "certificate.sent", at, eventBody("certificate.sent", at, data))
}
