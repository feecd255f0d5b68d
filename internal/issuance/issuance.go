// Package issuance issues credentials, whatever their kind, and records what issuing one
// entails: its verification code reserved, its credit spent, its row written, its verifiable
// credential's status list entry, the day's analytics count, its outbox event (with its webhook
// fan-out job) and, when asked, its delivery email. Certificates (new ones, drafts turned
// issued, a bulk job's items) and badge assertions are issued here, each kind a case of Issue;
// the kinds' own packages decide what is issued (the snapshot, the recipients, who holds
// what already) and what their events and emails say.
//
// The account's credit row, number counter and analytics rows are hot: every issuance of the
// account takes them and holds them until its commit, so their hold bounds one account's
// issuance rate. Issue takes them last, with every write that follows them, in one round trip
// (store.Pipeline), and the commit is the only round trip after it on the common path.
//
// Locks are taken in one order on every path, so concurrent issuances wait for each other but
// never deadlock: what the caller locked first (the attendee, or the badge and then its
// attendees through the assertions' foreign key), then the account's credit row (the first hot
// row: it orders every issuance of the account; drafts, which spend nothing, take it all the
// same), its number counter, status list entries, and the analytics rows in key order.
package issuance

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// Request is n credentials of one kind for one account, issued at Now. Exactly one of
// Certificates and Badge is set.
type Request struct {
	AccountID uuid.UUID
	Now       time.Time
	// DrawCode draws verification codes (nil: DrawVerificationCode).
	DrawCode func() (string, error)

	Certificates []Certificate
	Badge        *Badge
}

// Certificate is one certificate to issue: a new one (New), or the attendee's draft turned
// issued (Draft, with Issuance).
type Certificate struct {
	// New is a new certificate (or a new draft, with New.Draft: no credit, no entry, no event,
	// no email); its number is taken by its insert. Its verification code is New.VerificationCode
	// when set, reserved by the caller already (certificates.Issue reserves it in the round trip
	// of its read of the key, store.Tx.CurrentCertificates); else Issue draws and reserves one.
	New *store.NewCertificate
	// Draft is the draft to issue (as read, locked by its attendee), keeping its number and code,
	// as Issuance says.
	Draft    *domain.Certificate
	Issuance store.Issuance
	// Lapsed, when set, is the key's issued certificate past its expiry, marked expired to make
	// room for this one (one issued certificate per key), after the credits are spent: the
	// change of status moves the list totals, which every issuance takes after the credit row.
	Lapsed uuid.UUID
	// Event is the payload of its certificate.issued event, given the certificate as issued but
	// for its number: the statement that writes the event sets data.certificateNumber from the
	// certificate's row.
	Event func(c domain.Certificate) any
	// Email, when set, composes its delivery email, from the certificate as written.
	Email func(c domain.Certificate) domain.OutboundEmail
}

// Badge is one badge issued to several attendees: one assertion each.
type Badge struct {
	Issuance   store.BadgeIssuance
	Assertions []store.NewBadgeAssertion // codes are drawn and reserved by Issue
	// EventOf is each attendee's event, whose day counter the assertion counts in.
	EventOf map[uuid.UUID]uuid.UUID
	// Claims is what each assertion's verifiable credential says of the badge and issuer, frozen.
	Claims credentials.BadgeClaims
	// Event is the payload of an assertion's badge.issued event.
	Event func(a domain.BadgeAssertion) any
	// Email, when set, composes an assertion's email.
	Email func(a domain.BadgeAssertion) domain.OutboundEmail
}

// Issued is what Issue wrote: the certificates, in the order asked, or the badge's assertions
// (only those written: an attendee who came to hold the badge meanwhile is left out).
type Issued struct {
	Certificates []domain.Certificate
	Assertions   []domain.BadgeAssertion
}

// Issue issues r's credentials in tx, the caller's transaction, and records their side effects
// there; CREDIT_LIMIT (with the figures) when the account has fewer credits left than r needs,
// and the caller rolls tx back. Its round trips: the verification codes reserved (one
// statement; none for a certificate whose code its caller reserved), the kind's rows written
// when they do not take hot rows (badge assertions; their emails then too), then one pipeline
// that takes the hot rows and does every write of the issuance (the credits, a certificate's
// number and row, the status list entries, the outbox events with their webhook fan-out jobs,
// the analytics counts); after it only what could not go in it: an entry drawn
// the long way (no open list, every candidate taken), and a new certificate's email, which says
// its number.
func Issue(ctx context.Context, tx *store.Tx, r Request) (Issued, error) {
	if r.DrawCode == nil {
		r.DrawCode = DrawVerificationCode
	}
	switch {
	case r.Badge != nil:
		return issueBadge(ctx, tx, r)
	case len(r.Certificates) > 0:
		return issueCertificates(ctx, tx, r)
	}
	return Issued{}, nil
}

// entry is a status list entry queued in a pipeline, to be drawn the long way when the
// pipeline took none of its candidates.
type entry struct {
	credentials.Entry
	assigned *store.Assigned
}

// queueEntries queues the entries of es (credentials of the account) in one statement.
func queueEntries(ctx context.Context, p *store.Pipeline, accountID uuid.UUID, es []credentials.Entry, now time.Time) ([]entry, error) {
	rows := make([]store.VerifiableCredential, len(es))
	candidates := make([][]int, len(es))
	for i, e := range es {
		var err error
		if rows[i], candidates[i], err = credentials.Draw(e, now); err != nil {
			return nil, err
		}
	}
	assigned := p.InsertStatusEntries(ctx, accountID, rows, candidates)
	out := make([]entry, len(es))
	for i, e := range es {
		out[i] = entry{Entry: e, assigned: assigned[i]}
	}
	return out, nil
}

// assignRest draws, the long way, the entries the pipeline could not take.
func assignRest(ctx context.Context, tx *store.Tx, entries []entry, now time.Time) error {
	for _, e := range entries {
		if !e.assigned.OK {
			if err := credentials.AssignStatus(ctx, tx, e.Entry, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// issueCertificates issues new certificates and drafts. Every new certificate has its code
// before the pipeline (reserved by the caller, or here); in the pipeline, the credits go first
// (the hot row that orders the account's issuances), then the lapsed certificates they replace
// marked expired, the new certificates' rows in one statement (which takes the account's
// counter), the drafts issued, the entries of all in one
// statement and their events in one, then the analytics counts.
func issueCertificates(ctx context.Context, tx *store.Tx, r Request) (Issued, error) {
	fresh := 0 // new certificates whose codes are reserved here
	charged := 0
	for _, c := range r.Certificates {
		if c.New != nil && c.New.VerificationCode == "" {
			fresh++
		}
		if c.New == nil || !c.New.Draft {
			charged++
		}
	}
	codes, err := ReserveCodes(ctx, tx, r.DrawCode, fresh, store.KindCertificate, r.Now)
	if err != nil {
		return Issued{}, err
	}
	p := tx.Pipeline()
	var spent *store.Spent
	if charged > 0 {
		spent = p.SpendCredits(ctx, r.AccountID, CreditPeriod(r.Now), charged)
	} else {
		// Drafts alone spend nothing but take the number counter: the credit row first all the
		// same, as every issuance takes them, for a transaction may issue after it (a group's
		// calls one by one, each in a savepoint).
		p.LockCredits(ctx, r.AccountID, CreditPeriod(r.Now))
	}
	var lapsed []uuid.UUID
	for _, c := range r.Certificates {
		if c.Lapsed != uuid.Nil {
			lapsed = append(lapsed, c.Lapsed)
		}
	}
	p.ExpireCertificates(ctx, r.AccountID, lapsed, r.Now)
	written := make([]*domain.Certificate, len(r.Certificates))
	var news []store.NewCertificate
	newOf := make([]int, len(r.Certificates)) // each one's place in news; -1 for a draft turned issued
	for i, c := range r.Certificates {
		newOf[i] = -1
		if c.New == nil {
			continue
		}
		n := *c.New
		if n.ID == uuid.Nil {
			n.ID = uuid.Must(uuid.NewV7())
		}
		if n.VerificationCode == "" {
			n.VerificationCode, codes = codes[0], codes[1:]
		}
		newOf[i], news = len(news), append(news, n)
	}
	inserted := p.InsertCertificates(ctx, r.AccountID, news, r.Now)
	// What is issued, in the order asked: its entry and its event.
	var issued []credentials.Entry
	var ids []uuid.UUID
	var payloads []any
	for i, c := range r.Certificates {
		var known domain.Certificate // the certificate as issued, but for its number
		if j := newOf[i]; j >= 0 {
			n := news[j]
			written[i] = inserted[j]
			if n.Draft {
				continue
			}
			known = domain.Certificate{ID: n.ID, AccountID: n.AccountID, EventID: n.EventID, AttendeeID: n.AttendeeID,
				TemplateID: n.TemplateID, VerificationCode: n.VerificationCode, Status: domain.CertificateValid}
			tx.CountIssued(n.AccountID, n.EventID, store.KindCertificate, *n.IssuedAt, 1)
		} else {
			written[i] = p.IssueDraft(ctx, c.Draft.ID, c.Issuance, r.Now)
			known = *c.Draft
			known.Status, known.Snapshot = domain.CertificateValid, nil
			tx.CountIssued(known.AccountID, known.EventID, store.KindCertificate, c.Issuance.IssuedAt, 1)
		}
		issued = append(issued, credentials.Entry{Kind: store.KindCertificate, AccountID: known.AccountID, CredentialID: known.ID})
		ids, payloads = append(ids, known.ID), append(payloads, c.Event(known))
	}
	entries, err := queueEntries(ctx, p, r.AccountID, issued, r.Now)
	if err != nil {
		return Issued{}, err
	}
	if err := p.CertificateEvents(ctx, r.AccountID, "certificate.issued", r.Now, ids, payloads); err != nil {
		return Issued{}, err
	}
	if err := p.Send(ctx); err != nil {
		return Issued{}, err // a draft no longer a draft: ErrNotFound (its attendee is locked, so never in practice)
	}
	if spent != nil && !spent.OK {
		return Issued{}, creditLimit(ctx, tx, r.AccountID, store.KindCertificate, charged, r.Now)
	}
	if err := assignRest(ctx, tx, entries, r.Now); err != nil {
		return Issued{}, err
	}
	out := Issued{Certificates: make([]domain.Certificate, len(written))}
	for i, c := range written {
		out.Certificates[i] = *c
		if email := r.Certificates[i].Email; email != nil && c.Status != domain.CertificateDraft {
			if _, err := tx.EnqueueEmail(ctx, email(*c), r.Now); err != nil {
				return Issued{}, err
			}
		}
	}
	return out, nil
}

// issueBadge issues a badge's assertions. Their rows take no hot row (the badge is locked by
// the caller, the attendees through the assertions' foreign key), so they are written before
// the pipeline, with their emails; the pipeline spends the credits, writes the entries and the
// events and counts them.
func issueBadge(ctx context.Context, tx *store.Tx, r Request) (Issued, error) {
	b := r.Badge
	if len(b.Assertions) == 0 {
		return Issued{}, nil
	}
	codes, err := ReserveCodes(ctx, tx, r.DrawCode, len(b.Assertions), store.KindBadgeAssertion, r.Now)
	if err != nil {
		return Issued{}, err
	}
	todo := make([]store.NewBadgeAssertion, len(b.Assertions))
	for i, a := range b.Assertions {
		a.VerificationCode = codes[i]
		todo[i] = a
	}
	written, err := tx.InsertBadgeAssertions(ctx, b.Issuance, todo)
	if err != nil {
		// An attendee removed since they were read.
		return Issued{}, apperr.When(err, store.Conflict(store.BadgeAssertionAttendee),
			apperr.NoSuch("attendee").At("attendeeIds", "names an attendee who was removed meanwhile"))
	}
	if len(written) == 0 {
		return Issued{}, nil
	}
	if b.Email != nil {
		for _, a := range written {
			if _, err := tx.EnqueueEmail(ctx, b.Email(a), r.Now); err != nil {
				return Issued{}, err
			}
		}
	}
	p := tx.Pipeline()
	spent := p.SpendCredits(ctx, r.AccountID, CreditPeriod(r.Now), len(written))
	es := make([]credentials.Entry, len(written))
	events := make([]any, len(written))
	for i, a := range written {
		claims := b.Claims
		es[i] = credentials.Entry{Kind: store.KindBadgeAssertion, AccountID: a.AccountID, CredentialID: a.ID, Salt: a.RecipientSalt, Claims: &claims}
		events[i] = b.Event(a)
		tx.CountIssued(r.AccountID, b.EventOf[a.AttendeeID], store.KindBadgeAssertion, r.Now, 1)
	}
	entries, err := queueEntries(ctx, p, r.AccountID, es, r.Now)
	if err != nil {
		return Issued{}, err
	}
	if err := p.OutboxMany(ctx, r.AccountID, "badge.issued", r.Now, events); err != nil {
		return Issued{}, err
	}
	if err := p.Send(ctx); err != nil {
		return Issued{}, err
	}
	if !spent.OK {
		return Issued{}, creditLimit(ctx, tx, r.AccountID, store.KindBadgeAssertion, len(written), r.Now)
	}
	if err := assignRest(ctx, tx, entries, r.Now); err != nil {
		return Issued{}, err
	}
	return Issued{Assertions: written}, nil
}
