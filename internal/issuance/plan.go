package issuance

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// Plan is what an issuance writes, decided from its request and what was read, as plain
// values: Writes for the store's executor (store.Tx.ApplyIssuance), and the status list
// entries of the credentials issued (Entries), whose random candidates Issue draws into
// Writes.Entries. Making it reads and writes nothing, so it is tested without a database.
type Plan struct {
	Writes  store.IssuancePlan
	Entries []credentials.Entry
	// Places are where each certificate asked is written, in the order asked: New (its place
	// in Writes.Certificates) or Draft (its place in Writes.Drafts).
	Places []Place
}

// Place is where one certificate asked is written: the k-th new certificate, or the k-th draft
// turned issued.
type Place struct {
	New   bool
	Index int
}

// Draws are the random values a plan takes, drawn before it: the verification codes reserved
// for the new credentials that have none (in order), and new ids.
type Draws struct {
	Codes []string
	NewID func() uuid.UUID
}

// errFewCodes is a plan given fewer reserved codes than its new credentials need.
var errFewCodes = errors.New("issuance: fewer reserved codes than new certificates")

// PlanCertificates plans the issuance of r.Certificates: the credits (one a certificate that
// is not a draft; drafts alone lock the credit row all the same), the lapsed certificates
// marked expired, the new certificates (numbered by the executor in the order asked) and
// drafts issued, an entry, an event (certificate.issued, its number set by the statement that
// writes it) and a count for each that is issued. subscribed says whether an active webhook
// subscription takes certificate.issued.
func PlanCertificates(r Request, d Draws, subscribed bool) (Plan, error) {
	w := store.IssuancePlan{AccountID: r.AccountID, Now: r.Now, CreditPeriod: CreditPeriod(r.Now),
		EventType: "certificate.issued", FanOut: subscribed}
	p := Plan{Places: make([]Place, len(r.Certificates))}
	codes := d.Codes
	for i, c := range r.Certificates {
		if c.Lapsed != uuid.Nil {
			w.Lapsed = append(w.Lapsed, c.Lapsed)
		}
		var known domain.Certificate // the certificate as issued, but for its number
		var issuedAt time.Time
		if c.New != nil {
			n := *c.New
			if n.ID == uuid.Nil {
				n.ID = d.NewID()
			}
			if n.VerificationCode == "" {
				if len(codes) == 0 {
					return Plan{}, errFewCodes
				}
				n.VerificationCode, codes = codes[0], codes[1:]
			}
			p.Places[i] = Place{New: true, Index: len(w.Certificates)}
			w.Certificates = append(w.Certificates, n)
			if n.Draft {
				continue // a draft: no credit, no entry, no event, no count
			}
			known = domain.Certificate{ID: n.ID, AccountID: n.AccountID, EventID: n.EventID, AttendeeID: n.AttendeeID,
				TemplateID: n.TemplateID, VerificationCode: n.VerificationCode, Status: domain.CertificateValid}
			issuedAt = *n.IssuedAt
		} else {
			p.Places[i] = Place{Index: len(w.Drafts)}
			w.Drafts = append(w.Drafts, store.DraftIssuance{ID: c.Draft.ID, Issuance: c.Issuance})
			known = *c.Draft
			known.Status, known.Snapshot = domain.CertificateValid, nil
			issuedAt = c.Issuance.IssuedAt
		}
		w.Credits++
		p.Entries = append(p.Entries, credentials.Entry{Kind: store.KindCertificate, AccountID: known.AccountID, CredentialID: known.ID})
		payload, err := json.Marshal(c.Event(known))
		if err != nil {
			return Plan{}, err
		}
		w.Events = append(w.Events, store.PlannedEvent{ID: d.NewID(), CertificateID: known.ID, Payload: payload})
		w.Counts = append(w.Counts, store.IssuedCount{N: 1, IssuedKey: store.IssuedKey{AccountID: known.AccountID,
			EventID: known.EventID, Kind: store.KindCertificate, Day: store.DayOf(issuedAt)}})
	}
	p.Writes = w
	return p, nil
}

// PlanBadge plans what follows the assertions written of a badge (their rows take no hot row,
// so they are written before: store.Tx.InsertBadgeAssertions): a credit, an entry with the
// badge's claims, a badge.issued event and a count for each. subscribed says whether an active
// webhook subscription takes badge.issued.
func PlanBadge(r Request, written []domain.BadgeAssertion, d Draws, subscribed bool) (Plan, error) {
	b := r.Badge
	w := store.IssuancePlan{AccountID: r.AccountID, Now: r.Now, CreditPeriod: CreditPeriod(r.Now), Credits: len(written),
		EventType: "badge.issued", FanOut: subscribed}
	p := Plan{}
	for _, a := range written {
		claims := b.Claims
		p.Entries = append(p.Entries, credentials.Entry{Kind: store.KindBadgeAssertion, AccountID: a.AccountID, CredentialID: a.ID,
			Salt: a.RecipientSalt, Claims: &claims})
		payload, err := json.Marshal(b.Event(a))
		if err != nil {
			return Plan{}, err
		}
		w.Events = append(w.Events, store.PlannedEvent{ID: d.NewID(), Payload: payload})
		w.Counts = append(w.Counts, store.IssuedCount{N: 1, IssuedKey: store.IssuedKey{AccountID: r.AccountID,
			EventID: b.EventOf[a.AttendeeID], Kind: store.KindBadgeAssertion, Day: store.DayOf(r.Now)}})
	}
	p.Writes = w
	return p, nil
}
