package certificates

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

// GenerateParams asks for one certificate.
type GenerateParams struct {
	AccountID, EventID, AttendeeID, TemplateID uuid.UUID
	SendEmail                                  bool
	ExpiresAt                                  *time.Time // overrides the event's validity
	Draft                                      bool       // prepare a draft: no credit, no email, no event
}

// Generate issues one certificate (or prepares a draft) under the rules of Issue, and answers
// once it has committed. The issuances of one account that arrive while its transaction runs
// go together in the next one, each in a savepoint (see groupcommit): one commit, whose WAL
// flush the account's hot rows wait for, serves them all, and each is still all or nothing.
func (s *Service) Generate(ctx context.Context, p GenerateParams) (domain.Certificate, error) {
	return s.group.Run(ctx, p.AccountID, p)
}

// Issue issues one certificate in tx, the caller's transaction (a bulk job records its item in
// the same one). The attendee is locked, so issuances for one attendee run one after the other;
// an issued certificate past its expiry is marked expired; a valid one answers ALREADY_ISSUED.
// A new certificate's fresh code is drawn here and reserved in the round trip that reads the
// current certificates, only when there is none. The rest is issuance.Issue's: the certificate
// inserted with the account's next number and that code (or the attendee's draft turned issued,
// keeping its number and code), one credit spent (CREDIT_LIMIT when none is left), its status
// list entry, certificate.issued in the outbox, the day's count and, when asked, the delivery
// email. A draft costs nothing and writes no event and no email; an existing draft is answered
// as it is.
func (s *Service) Issue(ctx context.Context, tx *store.Tx, p GenerateParams) (domain.Certificate, error) {
	now := s.now()
	if p.ExpiresAt != nil && !p.ExpiresAt.After(now) {
		return domain.Certificate{}, apperr.Invalid("expiresAt", "must be in the future")
	}
	src, err := issueSource(ctx, tx, p.AccountID, p.EventID, p.AttendeeID, p.TemplateID)
	if err != nil {
		return domain.Certificate{}, err
	}
	key := store.CertificateKey{AttendeeID: p.AttendeeID, EventID: p.EventID, TemplateID: p.TemplateID}
	// In one round trip: a lapsed certificate is marked expired, the current ones are read and,
	// when there is none (a new certificate is to be written), a code drawn here is reserved for
	// it. Reserved after the attendee's lock and before the account's hot rows (a code's row is
	// no hot row); a taken code (cur.Code empty) is drawn again by issuance.Issue.
	code, err := s.drawCode()
	if err != nil {
		return domain.Certificate{}, err
	}
	cur, err := tx.CurrentCertificates(ctx, key, now, code)
	if err != nil {
		return domain.Certificate{}, err
	}
	if cur.Issued != nil {
		return domain.Certificate{}, alreadyIssued(*cur.Issued)
	}
	if p.Draft && cur.Draft != nil {
		return *cur.Draft, nil
	}
	snap, err := snapshotFrom(src)
	if err != nil {
		return domain.Certificate{}, err
	}
	item := issuance.Certificate{Event: func(c domain.Certificate) any {
		return eventBody("certificate.issued", now, eventData(c))
	}}
	if p.SendEmail && !p.Draft {
		item.Email = func(c domain.Certificate) domain.OutboundEmail { return composeEmail(c, src.AccountName) }
	}
	if cur.Draft != nil {
		item.Draft, item.Issuance = cur.Draft, issuanceOf(src, p.ExpiresAt, now)
		item.Issuance.Snapshot = snap
	} else {
		c := store.NewCertificate{AccountID: p.AccountID, CertificateKey: key, Number: certificateNumber(now),
			VerificationCode: cur.Code, Draft: p.Draft, Recipient: recipientOf(src.Attendee), Snapshot: snap}
		if !p.Draft {
			issued := issuanceOf(src, p.ExpiresAt, now)
			c.IssuedAt, c.ExpiresAt = &issued.IssuedAt, issued.ExpiresAt
		}
		item.New = &c
	}
	out, err := issuance.Issue(ctx, tx, issuance.Request{AccountID: p.AccountID, Now: now, DrawCode: s.drawCode,
		Certificates: []issuance.Certificate{item}})
	if err != nil {
		return domain.Certificate{}, err
	}
	return out.Certificates[0], nil
}

// source is what a certificate is made from, read in the issuing transaction.
type source = store.IssueSource

// issueSource locks the attendee, who must be on the event, and reads the template (the
// account's or a system one) and the branding, in one round trip. When that finds nothing, a
// second read tells whether the attendee or the template is missing.
func issueSource(ctx context.Context, tx *store.Tx, accountID, eventID, attendeeID, templateID uuid.UUID) (source, error) {
	src, err := tx.LockIssueSource(ctx, accountID, attendeeID, templateID)
	if errors.Is(err, store.ErrNotFound) {
		a, err := tx.LockAttendeeForIssue(ctx, accountID, attendeeID)
		if err != nil {
			return source{}, apperr.When(err, store.ErrNotFound,
				apperr.NoSuch("attendee").At("attendeeId", "names no attendee of this account"))
		}
		if err := onEvent(a, eventID); err != nil {
			return source{}, err
		}
		return source{}, templates.Missing()
	} else if err != nil {
		return source{}, err
	}
	return src, onEvent(src.AttendeeOnEvent, eventID)
}

func onEvent(a store.AttendeeOnEvent, eventID uuid.UUID) error {
	if a.Attendee.EventID != eventID {
		return apperr.New(apperr.NotFound, "The attendee is not on this event.").At("attendeeId", "names no attendee of the event")
	}
	return nil
}

// issuanceOf is what issuing fixes at now: recipient, issue time and expiry (expiresAt, else the
// event's validity from now, else none).
func issuanceOf(src source, expiresAt *time.Time, now time.Time) store.Issuance {
	at := now.UTC()
	if expiresAt == nil && src.Event.CertificateValidityDays != nil {
		e := at.AddDate(0, 0, *src.Event.CertificateValidityDays)
		expiresAt = &e
	}
	return store.Issuance{Recipient: recipientOf(src.Attendee), IssuedAt: at, ExpiresAt: expiresAt}
}

func recipientOf(a domain.Attendee) domain.Recipient {
	return domain.Recipient{FirstName: a.FirstName, LastName: a.LastName, Email: a.Email}
}

// certificateNumber is how the account's certificate numbers are written: the year of issue,
// then the account's count of certificates in six digits or more (CERT-2026-000042).
func certificateNumber(now time.Time) store.NumberFormat {
	return store.NumberFormat{Prefix: fmt.Sprintf("CERT-%d-", now.UTC().Year()), Digits: 6}
}

func alreadyIssued(cur domain.Certificate) error {
	e := apperr.New(apperr.AlreadyIssued, "The attendee already holds a valid certificate (%s) for this event and template.", cur.Number)
	e.Existing = &apperr.Existing{ID: cur.ID.String(), CertificateNumber: cur.Number, VerificationCode: cur.VerificationCode}
	e.Location = links.Certificate(cur.ID)
	return e
}
