// Package issuance issues credentials, whatever their kind, and records what issuing one
// entails: its verification code reserved, its credit spent, its row written, its verifiable
// credential's status list entry, the day's analytics count, its outbox event (with its webhook
// fan-out job) and, when asked, its delivery email. Certificates (new ones, drafts turned
// issued, a bulk job's items) and badge assertions are issued here, each kind a case of Issue;
// the kinds' own packages decide what is issued (the snapshot, the recipients, who holds
// what already) and what their events and emails say.
//
// An issuance is three steps. It reads (the caller: what the credential is made from, locked;
// the codes reserved here), it plans (PlanCertificates, PlanBadge: pure functions from the
// request and what was read to a Plan of plain values), and the store's executor applies the
// plan (store.Tx.ApplyIssuance): every write in one round trip, in the one lock order of
// store's applyInLockOrder, holding the account's hot rows (its credit row, number counter and
// analytics rows) from its first write to the commit.
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
	// Subscribed says that an active webhook subscription of the account takes the
	// certificates' event (read with them: store.Tx.ReadIssuances); a badge's issuance reads
	// it itself.
	Subscribed bool

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
// and the caller rolls tx back. Its round trips: the verification codes reserved (none for a
// certificate whose code its caller reserved), the badge's assertions written (they take no
// hot row), the plan applied (one round trip, after the fan-out job when a subscription takes
// the events); after it only an entry drawn the long way (no open list, every candidate taken)
// and the emails.
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

// newID is the id of a new certificate or event: a UUIDv7, in time order.
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// issueCertificates issues new certificates and drafts.
func issueCertificates(ctx context.Context, tx *store.Tx, r Request) (Issued, error) {
	fresh := 0 // new certificates whose codes are reserved here
	for _, c := range r.Certificates {
		if c.New != nil && c.New.VerificationCode == "" {
			fresh++
		}
	}
	codes, err := ReserveCodes(ctx, tx, r.DrawCode, fresh, store.KindCertificate, r.Now)
	if err != nil {
		return Issued{}, err
	}
	plan, err := PlanCertificates(r, Draws{Codes: codes, NewID: newID}, r.Subscribed)
	if err != nil {
		return Issued{}, err
	}
	applied, err := apply(ctx, tx, plan, store.KindCertificate)
	if err != nil {
		return Issued{}, err // a draft no longer a draft: ErrNotFound (its attendee is locked, so never in practice)
	}
	out := Issued{Certificates: make([]domain.Certificate, len(r.Certificates))}
	for i, at := range plan.Places {
		if at.New {
			out.Certificates[i] = applied.Certificates[at.Index]
		} else {
			out.Certificates[i] = applied.Drafts[at.Index]
		}
		c := out.Certificates[i]
		if email := r.Certificates[i].Email; email != nil && c.Status != domain.CertificateDraft {
			if _, err := tx.EnqueueEmail(ctx, email(c), r.Now); err != nil {
				return Issued{}, err
			}
		}
	}
	return out, nil
}

// issueBadge issues a badge's assertions. Their rows take no hot row (the badge is locked by
// the caller, the attendees through the assertions' foreign key), so they are written before
// the plan is applied, with their emails.
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
	subscribed, err := tx.WebhookSubscribed(ctx, r.AccountID, "badge.issued")
	if err != nil {
		return Issued{}, err
	}
	plan, err := PlanBadge(r, written, Draws{NewID: newID}, subscribed)
	if err != nil {
		return Issued{}, err
	}
	if _, err := apply(ctx, tx, plan, store.KindBadgeAssertion); err != nil {
		return Issued{}, err
	}
	return Issued{Assertions: written}, nil
}

// apply draws the plan's status list candidates and has the store apply it: CREDIT_LIMIT when
// the credits were not there; the entries whose candidates were all taken are then drawn the
// long way (credentials.AssignStatus).
func apply(ctx context.Context, tx *store.Tx, plan Plan, kind string) (store.Applied, error) {
	w := plan.Writes
	w.Entries = make([]store.PlannedEntry, len(plan.Entries))
	for i, e := range plan.Entries {
		row, candidates, err := credentials.Draw(e, w.Now)
		if err != nil {
			return store.Applied{}, err
		}
		w.Entries[i] = store.PlannedEntry{Credential: row, Candidates: candidates}
	}
	applied, err := tx.ApplyIssuance(ctx, w)
	if err != nil {
		return store.Applied{}, err
	}
	if !applied.Spent {
		return store.Applied{}, creditLimit(ctx, tx, w.AccountID, kind, w.Credits, w.Now)
	}
	for _, i := range applied.Unassigned {
		if err := credentials.AssignStatus(ctx, tx, plan.Entries[i], w.Now); err != nil {
			return store.Applied{}, err
		}
	}
	return applied, nil
}
