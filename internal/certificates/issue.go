package certificates

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/attendees"
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
// go together in the next one, each in a savepoint (see store.Group): one commit, whose WAL
// flush the account's hot rows wait for, serves them all, and each is still all or nothing.
func (s *Service) Generate(ctx context.Context, p GenerateParams) (domain.Certificate, error) {
	return s.group.Run(ctx, p.AccountID, p)
}

// Issue issues one certificate in tx, the caller's transaction (a bulk job records its item in
// the same one). The attendee is locked, so issuances for one attendee run one after the other;
// an issued certificate past its expiry is marked expired when a new one is issued (not for a
// draft); a valid one answers ALREADY_ISSUED.
// A new certificate's fresh code is drawn here and reserved, only when the key has no current
// certificate, in the one round trip that locks the attendee and reads its source and current
// certificates (store.Tx.ReadIssuances). The rest is issuance.Issue's: the certificate
// inserted with the account's next number and that code (or the attendee's draft turned issued,
// keeping its number and code), one credit spent (CREDIT_LIMIT when none is left), its status
// list entry, certificate.issued in the outbox, the day's count and, when asked, the delivery
// email. A draft costs nothing and writes no event and no email; an existing draft is answered
// as it is.
func (s *Service) Issue(ctx context.Context, tx *store.Tx, p GenerateParams) (domain.Certificate, error) {
	now := s.now()
	if err := validExpiry(p, now); err != nil {
		return domain.Certificate{}, err
	}
	// In one round trip: the attendee locked with what the certificate is made from, the
	// current certificates read (a lapsed one is marked expired later, by issuance.Issue under
	// the credit row) and, when there is none (a new certificate is to be written), a code
	// drawn here reserved for it. Reserved after the
	// attendee's lock and before the account's hot rows (a code's row is no hot row); a taken
	// code (Current.Code empty) is drawn again by issuance.Issue.
	code, err := s.drawCode()
	if err != nil {
		return domain.Certificate{}, err
	}
	got, err := tx.ReadIssuances(ctx, []store.IssuanceRead{readOf(p, code)}, now)
	if err != nil {
		return domain.Certificate{}, err
	}
	if !got.Of[0].Found {
		return domain.Certificate{}, missing(ctx, tx, p)
	}
	item, answer, err := s.plan(p, got.Of[0], now)
	if err != nil || answer != nil {
		return deref(answer), err
	}
	out, err := issuance.Issue(ctx, tx, issuance.Request{AccountID: p.AccountID, Now: now, DrawCode: s.drawCode,
		Subscribed: got.Subscribed, Certificates: []issuance.Certificate{item}})
	if err != nil {
		return domain.Certificate{}, err
	}
	return out.Certificates[0], nil
}

// errNotTogether says that the issuances asked of IssueAll are not all plain issuances.
var errNotTogether = errors.New("certificates: not every issuance of the group is a plain one")

// IssueAll issues a certificate for every one of ps, all of one account, in tx, as Issue would
// one by one, but with the reads of all in one round trip and the writes of all in one
// plan (issuance.Issue with every certificate). It answers the certificates in the order of
// ps, or an error as soon as one of them would not be a plain issuance (a refusal, a draft
// answered as it is, CREDIT_LIMIT for the whole, two for one attendee): the caller then undoes what
// IssueAll did and issues them one by one with Issue, which gives each its own answer.
func (s *Service) IssueAll(ctx context.Context, tx *store.Tx, ps []GenerateParams) ([]domain.Certificate, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	now := s.now()
	reads := make([]store.IssuanceRead, len(ps))
	attendees := make(map[uuid.UUID]bool, len(ps))
	for i, p := range ps {
		// Two for one attendee go one by one: a draft and a certificate of one key would
		// otherwise both be written (the draft and the issued certificate are unique each
		// among their own), where one after the other the second sees the first.
		if err := validExpiry(p, now); err != nil || p.AccountID != ps[0].AccountID || attendees[p.AttendeeID] {
			return nil, errNotTogether
		}
		attendees[p.AttendeeID] = true
		code, err := s.drawCode()
		if err != nil {
			return nil, err
		}
		reads[i] = readOf(p, code)
	}
	got, err := tx.ReadIssuances(ctx, reads, now)
	if err != nil {
		return nil, err
	}
	items := make([]issuance.Certificate, len(ps))
	for i, p := range ps {
		if !got.Of[i].Found {
			return nil, errNotTogether
		}
		item, answer, err := s.plan(p, got.Of[i], now)
		if err != nil || answer != nil {
			return nil, errors.Join(errNotTogether, err)
		}
		items[i] = item
	}
	out, err := issuance.Issue(ctx, tx, issuance.Request{AccountID: ps[0].AccountID, Now: now, DrawCode: s.drawCode,
		Subscribed: got.Subscribed, Certificates: items})
	if err != nil {
		return nil, err
	}
	return out.Certificates, nil
}

func validExpiry(p GenerateParams, now time.Time) error {
	if p.ExpiresAt != nil && !p.ExpiresAt.After(now) {
		return apperr.Invalid("expiresAt", "must be in the future")
	}
	return nil
}

func readOf(p GenerateParams, code string) store.IssuanceRead {
	return store.IssuanceRead{AccountID: p.AccountID, Code: code,
		Key: store.CertificateKey{AttendeeID: p.AttendeeID, EventID: p.EventID, TemplateID: p.TemplateID}}
}

func deref(c *domain.Certificate) domain.Certificate {
	if c == nil {
		return domain.Certificate{}
	}
	return *c
}

// plan decides, from what was read for p, what issuing it writes: the item for
// issuance.Issue; or an answer that writes nothing (the attendee's draft, asked for again); or
// a refusal (the attendee not on the event or erased at their request, ALREADY_ISSUED).
func (s *Service) plan(p GenerateParams, got store.IssuanceReading, now time.Time) (issuance.Certificate, *domain.Certificate, error) {
	src, cur := got.Source, got.Current
	if err := onEvent(src.AttendeeOnEvent, p.EventID); err != nil {
		return issuance.Certificate{}, nil, err
	}
	if src.Attendee.ErasedAt != nil {
		return issuance.Certificate{}, nil, attendees.Erased().At("attendeeId", "names an attendee erased at their request")
	}
	if cur.Issued != nil {
		return issuance.Certificate{}, nil, alreadyIssued(*cur.Issued)
	}
	if p.Draft && cur.Draft != nil {
		return issuance.Certificate{}, cur.Draft, nil
	}
	snap, err := snapshotFrom(src)
	if err != nil {
		return issuance.Certificate{}, nil, err
	}
	item := issuance.Certificate{Event: func(c domain.Certificate) any {
		return eventBody("certificate.issued", now, eventData(c))
	}}
	if p.SendEmail && !p.Draft {
		item.Email = func(c domain.Certificate) domain.OutboundEmail { return composeEmail(c, src.AccountName) }
	}
	key := store.CertificateKey{AttendeeID: p.AttendeeID, EventID: p.EventID, TemplateID: p.TemplateID}
	if cur.Lapsed != nil && !p.Draft {
		item.Lapsed = cur.Lapsed.ID // a draft leaves it issued: it takes no issued certificate's place
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
	return item, nil, nil
}

// source is what a certificate is made from, read in the issuing transaction.
type source = store.IssueSource

// issueSource locks the attendee, who must be on the event, and reads the template (the
// account's or a system one) and the branding, in one round trip. When that finds nothing, a
// second read tells whether the attendee or the template is missing.
func issueSource(ctx context.Context, tx *store.Tx, accountID, eventID, attendeeID, templateID uuid.UUID) (source, error) {
	src, err := tx.LockIssueSource(ctx, accountID, attendeeID, templateID)
	if errors.Is(err, store.ErrNotFound) {
		return source{}, missing(ctx, tx, GenerateParams{AccountID: accountID, EventID: eventID, AttendeeID: attendeeID})
	} else if err != nil {
		return source{}, err
	}
	return src, onEvent(src.AttendeeOnEvent, eventID)
}

// missing tells what is missing when an issuance's read found nothing: the attendee (or one
// not on the event) or the template.
func missing(ctx context.Context, tx *store.Tx, p GenerateParams) error {
	a, err := tx.LockAttendeeForIssue(ctx, p.AccountID, p.AttendeeID)
	if err != nil {
		return apperr.When(err, store.ErrNotFound,
			apperr.NoSuch("attendee").At("attendeeId", "names no attendee of this account"))
	}
	if err := onEvent(a, p.EventID); err != nil {
		return err
	}
	return templates.Missing()
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
