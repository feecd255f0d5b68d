// Package certificates holds the rules of certificates: issuing them (credits, one valid
// certificate per attendee, drafts), revoking, regenerating and sending them, and what follows:
// the snapshot a certificate is rendered from, the outbox events, the delivery email with its
// PDF. The service opens the transactions; the store only keeps the data.
package certificates

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/changecache"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// Service issues and manages certificates.
type Service struct {
	store *store.Store
	links links.Site
	now   func() time.Time
	// drawCode draws verification codes (issuance.DrawVerificationCode; tests replace it).
	drawCode func() (string, error)
	// group runs the concurrent issuances of one account in one transaction (see Generate).
	group *store.Group[uuid.UUID, GenerateParams, domain.Certificate]
	// records keeps the certificates Get read, by id, as read at the zero time (see Get); nil
	// until KeepRecords.
	records *changecache.Cache[uuid.UUID, domain.Certificate]
}

// issueLanes is how many issuing transactions of one account Generate runs at once.
const issueLanes = 2

// New returns the service. siteURL roots verification links.
func New(s *store.Store, siteURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	svc := &Service{store: s, links: links.New(siteURL), now: now, drawCode: issuance.DrawVerificationCode}
	svc.group = &store.Group[uuid.UUID, GenerateParams, domain.Certificate]{Store: s, Do: svc.Issue, DoAll: svc.IssueAll,
		// The audit entry of an issuance names the certificate it answered.
		Resource: func(_ GenerateParams, c domain.Certificate) audit.Resource {
			return audit.Resource{Type: "certificate", ID: c.ID.String()}
		},
		// Two transactions of an account at once: the next one locks its attendees, reads
		// their sources and makes their snapshots while the one before holds the hot rows
		// through its writes and commit.
		Lanes: issueLanes,
		// Every attendee of the transaction is locked before the first issuance takes the
		// account's hot rows, in one statement and in id order, as a bulk job's batch locks
		// its own: an issuance that locked its attendee while holding the hot rows could wait
		// for a transaction that holds that attendee and waits for the hot rows.
		Prepare: func(ctx context.Context, tx *store.Tx, ps []GenerateParams) error {
			ids := make([]uuid.UUID, len(ps))
			for i, p := range ps {
				ids[i] = p.AttendeeID
			}
			return tx.LockAttendees(ctx, ps[0].AccountID, ids)
		}}
	return svc
}

// ObserveGroups has f told the number of issuances of every transaction Generate runs, and
// whether they were issued together (IssueAll) or one by one.
func (s *Service) ObserveGroups(f func(issuances int, together bool)) { s.group.Observe = f }

// Credits returns the account's credit figures for this month (issuance.CreditsOf).
func (s *Service) Credits(ctx context.Context, accountID uuid.UUID) (issuance.Credits, error) {
	return issuance.CreditsOf(ctx, s.store, accountID, s.now())
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }

// KeepRecords has Get keep up to size certificates in memory (none: 0), once the service
// listens for changes (Watcher). Set it before the service is used.
func (s *Service) KeepRecords(size int) {
	s.records = changecache.New[uuid.UUID, domain.Certificate](size)
}

// RecordStats are the figures of what Get keeps, for the operator's metrics.
func (s *Service) RecordStats() changecache.Stats { return s.records.Stats() }

// Watcher is what must be told of changes for Get to keep certificates in memory (see
// verification.Service.Watcher): changefeed.Watch's listening and notices, and this
// process's own commits. It forgets a certificate by its id; a change that names none
// (neither certificate nor account) forgets all; an issuer's change shows in no record.
//
// One change of this process is told only by its notice, a moment after its commit: the
// expiry that an issuance marks on the attendee's lapsed certificate. What Get shows of that
// certificate meanwhile is the same but for its updatedAt: expired, from its expiry.
func (s *Service) Watcher() changefeed.Watcher {
	return changecache.Watcher[uuid.UUID, domain.Certificate]{Cache: s.records, Forgets: func(ch changefeed.Change) (uuid.UUID, bool, bool) {
		return ch.Certificate, ch.Certificate != uuid.Nil, ch.Certificate == uuid.Nil && ch.Account == uuid.Nil
	}}
}

// Get returns a certificate of the account as the API shows it: without its snapshot.
//
// What it keeps (KeepRecords) is read at the zero time, when no expiry has come: the status is
// the stored one in the API's words (an issued certificate is valid), and whether its expiry
// has come is decided at each Get. Another account's certificate is not found, kept or not.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (domain.Certificate, error) {
	c, ok := s.records.Get(id)
	if !ok {
		gen, keep := s.records.Begin()
		var err error
		if c, err = s.store.FindCertificateRecord(ctx, accountID, id, time.Time{}); err != nil {
			return domain.Certificate{}, noSuchCertificate(err)
		}
		if keep {
			s.records.Put(gen, id, c)
		}
	}
	if c.AccountID != accountID {
		return domain.Certificate{}, noSuchCertificate(store.ErrNotFound)
	}
	if c.Status == domain.CertificateValid {
		c.Status = domain.CertificateStatusAt(domain.StoredCertificateIssued, c.ExpiresAt, s.now())
	}
	return c, nil
}

// GetWithSnapshot is Get with what the certificate is rendered from (Snapshot).
func (s *Service) GetWithSnapshot(ctx context.Context, accountID, id uuid.UUID) (domain.Certificate, error) {
	c, err := s.store.FindCertificate(ctx, accountID, id, s.now())
	return c, noSuchCertificate(err)
}

// List returns a page of the account's certificates that f lets through, with their total.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, f domain.CertificateFilter, p domain.Page) ([]domain.Certificate, int, error) {
	return s.store.ListCertificates(ctx, accountID, f, p, s.now())
}

// ListOfEvent returns a page of an event's certificates that f lets through (its EventID is
// the event); another account's event is 404.
func (s *Service) ListOfEvent(ctx context.Context, accountID, eventID uuid.UUID, f domain.CertificateFilter, p domain.Page) ([]domain.Certificate, int, error) {
	if err := events.Require(ctx, s.store, accountID, eventID); err != nil {
		return nil, 0, err
	}
	f.EventID = &eventID
	return s.store.ListCertificates(ctx, accountID, f, p, s.now())
}

// Download renders a certificate's PDF; a draft is not issued and answers 409.
func (s *Service) Download(ctx context.Context, accountID, id uuid.UUID) (domain.Certificate, []byte, error) {
	c, err := s.GetWithSnapshot(ctx, accountID, id)
	if err != nil {
		return c, nil, err
	}
	if c.Status == domain.CertificateDraft {
		return c, nil, apperr.New(apperr.Conflict, "A draft is not issued; issue it to download its PDF.")
	}
	if c.RevocationReasonCode != nil && *c.RevocationReasonCode == "erased" {
		return c, nil, ErrErased
	}
	pdf, err := s.PDF(c)
	return c, pdf, err
}

// Deliveries lists the account's certificate and badge emails.
func (s *Service) Deliveries(ctx context.Context, accountID uuid.UUID, f domain.EmailFilter, p domain.Page) ([]domain.EmailDelivery, int, error) {
	return s.store.ListCredentialEmails(ctx, accountID, f, p)
}

// ErrErased answers for the files of a credential whose holder was erased at their request.
var ErrErased = apperr.New(apperr.Erased, "The holder of this credential had their data erased at their request: its files are gone.")

func noSuchCertificate(err error) error {
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("certificate"))
}

// DeliveriesOfAttendee returns the emails of an attendee's certificates and badge assertions,
// newest first (a person's export).
func (s *Service) DeliveriesOfAttendee(ctx context.Context, accountID, attendeeID uuid.UUID) ([]domain.EmailDelivery, error) {
	return s.store.EmailsOfAttendee(ctx, accountID, attendeeID)
}
