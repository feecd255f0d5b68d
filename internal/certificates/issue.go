package certificates

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
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

// Generate issues one certificate (or prepares a draft) in a transaction of its own, under the
// rules of Issue.
func (s *Service) Generate(ctx context.Context, p GenerateParams) (domain.Certificate, error) {
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Certificate, error) {
		return s.Issue(ctx, tx, p)
	})
}

// Issue issues one certificate in tx, the caller's transaction (a bulk job records its item in
// the same one). The attendee is locked, so issuances for one attendee run one after the
// other; an issued certificate past its expiry is marked expired; a valid one answers
// ALREADY_ISSUED; one credit is spent (CREDIT_LIMIT when none is left) and certificate.issued
// goes to the outbox, in the statement that inserts the certificate with the account's next
// number (a draft of the attendee becomes the certificate instead, keeping its number and
// code); its verifiable credential gets its status list entry; when asked, the delivery email
// is recorded. A draft costs nothing and writes no event and no email; an existing draft is answered as it is.
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
	// A lapsed certificate is marked expired and the current ones read in one round trip.
	cur, err := tx.CurrentCertificates(ctx, key, now)
	if err != nil {
		return domain.Certificate{}, err
	}
	if cur.Issued != nil {
		return domain.Certificate{}, alreadyIssued(*cur.Issued)
	}
	hasDraft := cur.Draft != nil
	if p.Draft {
		if hasDraft {
			return *cur.Draft, nil
		}
		return s.insert(ctx, tx, p, src, nil, now)
	}
	issued := issuance(src, p.ExpiresAt, now)
	if !hasDraft {
		// A new certificate: its number, its credit and its certificate.issued event are
		// taken and written by the insert's one statement (see insert).
		c, err := s.insert(ctx, tx, p, src, &issued, now)
		if err != nil {
			return domain.Certificate{}, err
		}
		if p.SendEmail {
			if _, err := s.recordEmail(ctx, tx, c, now); err != nil {
				return domain.Certificate{}, err
			}
		}
		return c, nil
	}
	// The draft becomes the certificate, keeping its number. Locks are taken in the order every
	// issuance takes them (the attendee, the account's hot rows, then status list entries), so
	// the credit is spent before the entry is drawn: a new certificate's statement takes the
	// credit and then probes entries, which waits for an entry another transaction holds; an
	// entry taken before the credit here could close that circle (a deadlock).
	if issued.Snapshot, err = snapshotFrom(src); err != nil {
		return domain.Certificate{}, err
	}
	c, err := tx.IssueDraft(ctx, cur.Draft.ID, issued, now)
	if err != nil {
		return domain.Certificate{}, err
	}
	if err := spendCredit(ctx, tx, p.AccountID, now); err != nil {
		return domain.Certificate{}, err
	}
	tx.CountIssued(c.AccountID, c.EventID, store.KindCertificate, issued.IssuedAt, 1)
	// Its verifiable credential's entry: a status list index, drawn in this transaction.
	if err := credentials.AssignStatus(ctx, tx, credentials.Entry{Kind: store.KindCertificate, AccountID: c.AccountID, CredentialID: c.ID}, now); err != nil {
		return domain.Certificate{}, err
	}
	if err := tx.Outbox(ctx, c.AccountID, "certificate.issued", now, eventBody("certificate.issued", now, eventData(c))); err != nil {
		return domain.Certificate{}, err
	}
	if p.SendEmail {
		if _, err := s.recordEmail(ctx, tx, c, now); err != nil {
			return domain.Certificate{}, err
		}
	}
	return c, nil
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

// issuance is what issuing fixes at now: recipient, issue time and expiry (expiresAt, else the
// event's validity from now, else none).
func issuance(src source, expiresAt *time.Time, now time.Time) store.Issuance {
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

// insert writes a new certificate with the account's next number and a fresh code: issued
// when issued is set, otherwise a draft. The account's number counter and credit row are
// taken by every issuance of the account and held until the commit, so one statement takes
// both, and does the rest in the same round trip: it reserves the code and, for an issuance,
// spends the credit (CREDIT_LIMIT when none is left), writes the certificate.issued event,
// whose number it fills in, and the verifiable credential's status entry (drawn here; when the
// statement could take none of its candidates, the entry is drawn the long way after it).
func (s *Service) insert(ctx context.Context, tx *store.Tx, p GenerateParams, src source, issued *store.Issuance, now time.Time) (domain.Certificate, error) {
	snap, err := snapshotFrom(src)
	if err != nil {
		return domain.Certificate{}, err
	}
	c := store.NewCertificate{ID: uuid.Must(uuid.NewV7()), AccountID: p.AccountID, CertificateKey: store.CertificateKey{AttendeeID: p.AttendeeID,
		EventID: p.EventID, TemplateID: p.TemplateID}, Number: certificateNumber(now),
		Draft: issued == nil, Recipient: recipientOf(src.Attendee), Snapshot: snap}
	if issued != nil {
		c.IssuedAt, c.ExpiresAt = &issued.IssuedAt, issued.ExpiresAt
		c.Spend = &store.CreditSpend{Period: CreditPeriod(now)}
		status, err := credentials.Draw()
		if err != nil {
			return domain.Certificate{}, err
		}
		c.Status = &status
	}
	// A taken code (65 random bits: in practice never) inserts nothing and writes nothing; a
	// missing credit inserts nothing either (what the statement wrote on the way goes with the
	// rollback that CREDIT_LIMIT causes): the credit figures tell the two apart, and for a taken
	// code another is drawn.
	for range 5 {
		if c.VerificationCode, err = s.drawCode(); err != nil {
			return domain.Certificate{}, err
		}
		if issued != nil {
			// What the event says of the certificate, but its number, which the insert writes
			// in. A new issuance is valid: its expiry, if any, is in the future (checked above).
			data := eventData(domain.Certificate{ID: c.ID, EventID: p.EventID, AttendeeID: p.AttendeeID, Status: "valid", VerificationCode: c.VerificationCode})
			c.Event = &store.NumberedEvent{Type: "certificate.issued", Payload: eventBody("certificate.issued", now, data),
				NumberAt: []string{"data", "certificateNumber"}}
		}
		cert, err := tx.InsertCertificate(ctx, c, now)
		if errors.Is(err, store.ErrNotInserted) {
			if issued != nil {
				credits, err := CreditsOf(ctx, tx, p.AccountID, now)
				if err != nil {
					return domain.Certificate{}, err
				}
				if credits.Remaining != nil && *credits.Remaining == 0 {
					return domain.Certificate{}, creditLimit(ctx, tx, p.AccountID, now)
				}
			}
			continue // the code was taken
		} else if err != nil {
			return domain.Certificate{}, err
		}
		if issued != nil && !cert.StatusAssigned {
			if err := credentials.AssignStatus(ctx, tx, credentials.Entry{Kind: store.KindCertificate, AccountID: p.AccountID, CredentialID: c.ID}, now); err != nil {
				return domain.Certificate{}, err
			}
		}
		return cert.Certificate, nil // an issued one counted in analytics by the insert's statement
	}
	return domain.Certificate{}, errors.New("certificates: no free verification code after 5 draws")
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

// crockford is Crockford's base32 alphabet: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// codeLength characters of base32 carry 65 random bits.
const codeLength = 13

// DrawVerificationCode draws a random verification code for any credential: 13 characters of
// Crockford's base32 (65 random bits), upper case. Reserve it in verification_codes before use.
func DrawVerificationCode() (string, error) {
	var b [codeLength]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = crockford[b[i]&31]
	}
	return string(b[:]), nil
}
