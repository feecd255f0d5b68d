package store

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// The executor applies an issuance's plan: every write of it, in the lock order, in one round
// trip. internal/issuance decides what is written (a plan of plain values: rows, status list
// entries, events, counts, credits); this file is the only code that knows how (one pgx.Batch,
// the planner setting around the writes, River's client for the fan-out job). The group
// commit that runs several issuances in one transaction is group.go's.

// IssuancePlan is every write of one issuance transaction, as plain values: made by
// internal/issuance from a request and what its reads found, applied by Tx.ApplyIssuance.
type IssuancePlan struct {
	AccountID uuid.UUID
	Now       time.Time
	// CreditPeriod is the month whose credits the issuance spends: Credits of them, all or
	// none. With none to spend (drafts alone), the credit row is locked all the same: it orders
	// every issuance of the account (see applyInLockOrder).
	CreditPeriod time.Time
	Credits      int
	// Lapsed are issued certificates past their expiry, marked expired to make room for the
	// new certificates of their keys.
	Lapsed []uuid.UUID
	// Certificates are new certificates and drafts, numbered with the account's next numbers
	// in this order, each under its reserved VerificationCode and its ID (set by the plan).
	Certificates []NewCertificate
	// Drafts are drafts turned issued, keeping their numbers and codes.
	Drafts []DraftIssuance
	// Entries are the status list entries of the credentials issued.
	Entries []PlannedEntry
	// EventType is the kind of every event of Events.
	EventType string
	Events    []PlannedEvent
	// FanOut says that an active webhook subscription of the account takes EventType (read
	// before: WebhookSubscribed): the events wait for their fan-out, whose River job is
	// inserted with them; otherwise they are recorded dispatched.
	FanOut bool
	// Counts are the day's analytics counters the issuance adds to.
	Counts []IssuedCount
}

// DraftIssuance turns the draft ID into the issued certificate, as Issuance says.
type DraftIssuance struct {
	ID       uuid.UUID
	Issuance Issuance
}

// PlannedEntry is a credential's status list entry: the row as it is stored (List and Index
// are not read), tried at the first free one of Candidates (random indexes of the open list).
type PlannedEntry struct {
	Credential VerifiableCredential
	Candidates []int
}

// PlannedEvent is one outbox event: ID (made by the plan) and Payload (its JSON). An event
// about a certificate (CertificateID set) is written after the certificate, its payload's
// data.certificateNumber set from the certificate's row.
type PlannedEvent struct {
	ID            uuid.UUID
	CertificateID uuid.UUID
	Payload       []byte
}

// IssuedCount adds N to one of the day's counters.
type IssuedCount struct {
	IssuedKey
	N int
}

// IssuedKey is a row of the daily counters that issuing adds to: an account's credentials of
// one kind, issued for one event, on one UTC day.
type IssuedKey struct {
	AccountID uuid.UUID
	EventID   uuid.UUID
	Kind      string
	Day       time.Time
}

// Applied is what ApplyIssuance wrote.
type Applied struct {
	// Spent says the credits were taken (true when the plan spent none). When false, nothing
	// else of the plan counts: the caller answers CREDIT_LIMIT and rolls back.
	Spent bool
	// Certificates are the plan's new certificates and Drafts its drafts issued, as written,
	// in the plan's order.
	Certificates, Drafts []domain.Certificate
	// Unassigned are the places in the plan's Entries of those whose candidates were all
	// taken, or that found no open list: the caller draws them the long way, after.
	Unassigned []int
}

// ApplyIssuance applies plan in the transaction: when the events wait for a fan-out, their
// River job first (through River's client, before any hot row); then, in one round trip and
// in the lock order (applyInLockOrder), every write. A statement's failure fails the whole
// (the transaction is then aborted); a draft no longer a draft is ErrNotFound.
func (t *Tx) ApplyIssuance(ctx context.Context, plan IssuancePlan) (Applied, error) {
	if err := checkPlan(plan); err != nil {
		return Applied{}, err
	}
	if plan.FanOut && len(plan.Events) > 0 {
		if err := t.InsertJobs(ctx, fanOutJobs(plan.Events)); err != nil {
			return Applied{}, err
		}
	}
	out := Applied{Spent: plan.Credits == 0, Certificates: make([]domain.Certificate, len(plan.Certificates)),
		Drafts: make([]domain.Certificate, len(plan.Drafts))}
	var b batch
	assigned := applyInLockOrder(&b, plan, &out)
	if err := b.send(ctx, t.tx); err != nil {
		return Applied{}, err
	}
	for i := range plan.Entries {
		if !assigned[plan.Entries[i].Credential.CredentialID] {
			out.Unassigned = append(out.Unassigned, i)
		}
	}
	if out.Spent {
		t.committed.CreditsSpent += plan.Credits
		for _, c := range plan.Counts {
			t.countCommitted(c.Kind, c.N)
		}
	}
	for _, d := range out.Drafts { // an issued draft's record changed
		t.changed(changefeed.Change{Certificate: d.ID, Code: d.VerificationCode})
	}
	return out, nil
}

// applyInLockOrder queues plan's writes in b, in the one order every issuance takes its locks,
// so that concurrent issuances of an account wait for each other but never deadlock. Before
// it, the caller holds what it locked first: the attendees (in id order), or a badge and its
// attendees through the assertions' foreign key. Then:
//
//  1. the account's credit row of the month (spent, or locked for drafts): the first hot row,
//     which orders every issuance of the account;
//  2. the lapsed certificates marked expired (they move the list totals, which are taken
//     after the credit row);
//  3. the account's number counter, with the new certificates' rows (one statement);
//  4. the drafts issued;
//  5. the status list entries (one statement);
//  6. the outbox events (one statement);
//  7. the day's analytics counters, in key order.
//
// The writes from 2 on are planned generically (IssuancePlanGenerically, around them). What
// the statements answer is filled into out when the batch is sent; the map answered says
// which entries were written.
func applyInLockOrder(b *batch, plan IssuancePlan, out *Applied) map[uuid.UUID]bool {
	// 1. The credit row.
	if plan.Credits > 0 {
		var used int32
		b.queryRow(db.IssuanceSpendCredits, &used, func(err error) error {
			var e error
			out.Spent, e = noRow(err) // no row: fewer credits left than asked
			return e
		}, db.IssuanceSpendCreditsParams{AccountID: plan.AccountID, Period: plan.CreditPeriod, N: int32(plan.Credits)})
	} else {
		b.exec(db.IssuanceLockCredits, db.IssuanceLockCreditsParams{AccountID: plan.AccountID, Period: plan.CreditPeriod})
	}
	const kept = "credentiald.plan_cache_mode" // where the transaction's own mode waits meanwhile
	b.exec(db.IssuancePlanGenerically, kept)
	// 2. The lapsed certificates.
	if len(plan.Lapsed) > 0 {
		b.exec(db.IssuanceExpireCertificates, db.IssuanceExpireCertificatesParams{AccountID: plan.AccountID, Ids: plan.Lapsed, Now: plan.Now})
	}
	// 3. The number counter and the new certificates.
	if len(plan.Certificates) > 0 {
		at := make(map[uuid.UUID]int, len(plan.Certificates))
		for i, c := range plan.Certificates {
			at[c.ID] = i
		}
		query(b, db.IssuanceInsertCertificates, func(row db.Certificate) error {
			out.Certificates[at[row.ID]] = certificateFrom(row, plan.Now)
			return nil
		}, insertCertificatesParams(plan))
	}
	// 4. The drafts issued.
	for i, d := range plan.Drafts {
		var row db.Certificate
		issued := d.Issuance.IssuedAt
		b.queryRow(db.IssuanceIssueDraft, &row, func(err error) error {
			if err != nil {
				return mapError(err) // no row: no longer a draft, ErrNotFound
			}
			out.Drafts[i] = certificateFrom(row, plan.Now)
			return nil
		}, db.IssuanceIssueDraftParams{ID: d.ID, RecipientFirstName: d.Issuance.Recipient.FirstName,
			RecipientLastName: d.Issuance.Recipient.LastName, RecipientEmail: d.Issuance.Recipient.Email,
			Snapshot: d.Issuance.Snapshot, IssuedAt: &issued, ExpiresAt: d.Issuance.ExpiresAt, Now: plan.Now})
	}
	// 5. The status list entries.
	assigned := map[uuid.UUID]bool{}
	if len(plan.Entries) > 0 {
		query(b, db.IssuanceInsertStatusEntries, func(id uuid.UUID) error {
			assigned[id] = true
			return nil
		}, statusEntriesParams(plan))
	}
	// 6. The outbox events.
	if len(plan.Events) > 0 {
		var ids, certs []uuid.UUID
		var payloads [][]byte
		for _, e := range plan.Events {
			ids, certs, payloads = append(ids, e.ID), append(certs, e.CertificateID), append(payloads, e.Payload)
		}
		if certs[0] != uuid.Nil {
			b.exec(db.IssuanceInsertCertificateEvents, db.IssuanceInsertCertificateEventsParams{EventType: plan.EventType,
				OccurredAt: plan.Now, Pending: plan.FanOut, Ids: ids, CertificateIds: certs, Payloads: payloads, AccountID: plan.AccountID})
		} else {
			b.exec(db.IssuanceInsertOutboxEvents, db.IssuanceInsertOutboxEventsParams{AccountID: plan.AccountID, EventType: plan.EventType,
				OccurredAt: plan.Now, Pending: plan.FanOut, Ids: ids, Payloads: payloads})
		}
	}
	// 7. The day's counters, in key order.
	if len(plan.Counts) > 0 {
		b.exec(db.IssuanceCountIssued, countParams(plan.Counts))
	}
	b.exec(db.IssuancePlanAsBefore, kept)
	return assigned
}

// checkPlan refuses a plan whose parts are not all of its account and time, or that mixes
// events about certificates with others: a mistake of its maker, caught before any write.
func checkPlan(p IssuancePlan) error {
	for _, c := range p.Certificates {
		if c.AccountID != p.AccountID || c.ID == uuid.Nil || c.VerificationCode == "" {
			return errMixed("a planned certificate of another account, or without its id or code")
		}
	}
	for _, e := range p.Entries {
		if e.Credential.AccountID != p.AccountID || len(e.Candidates) != len(p.Entries[0].Candidates) || len(e.Candidates) == 0 {
			return errMixed("a planned status entry of another account, or without as many candidates as the others")
		}
	}
	for _, e := range p.Events {
		if (e.CertificateID == uuid.Nil) != (p.Events[0].CertificateID == uuid.Nil) || e.ID == uuid.Nil {
			return errMixed("planned events about certificates and others together, or without their ids")
		}
	}
	for _, c := range p.Counts {
		if c.AccountID != p.AccountID {
			return errMixed("a planned count of another account")
		}
	}
	return nil
}

func insertCertificatesParams(plan IssuancePlan) db.IssuanceInsertCertificatesParams {
	arg := db.IssuanceInsertCertificatesParams{AccountID: plan.AccountID, Now: plan.Now}
	for _, c := range plan.Certificates {
		status := domain.StoredCertificateIssued
		if c.Draft {
			status = domain.StoredCertificateDraft
		}
		var issued, expires time.Time
		if c.IssuedAt != nil {
			issued = *c.IssuedAt
		}
		if c.ExpiresAt != nil {
			expires = *c.ExpiresAt
		}
		arg.Ids = append(arg.Ids, c.ID)
		arg.EventIds = append(arg.EventIds, c.EventID)
		arg.AttendeeIds = append(arg.AttendeeIds, c.AttendeeID)
		arg.TemplateIds = append(arg.TemplateIds, c.TemplateID)
		arg.NumberPrefixes = append(arg.NumberPrefixes, c.Number.Prefix)
		arg.NumberDigits = append(arg.NumberDigits, int32(c.Number.Digits))
		arg.VerificationCodes = append(arg.VerificationCodes, c.VerificationCode)
		arg.Statuses = append(arg.Statuses, status)
		arg.RecipientFirstNames = append(arg.RecipientFirstNames, c.Recipient.FirstName)
		arg.RecipientLastNames = append(arg.RecipientLastNames, c.Recipient.LastName)
		arg.RecipientEmails = append(arg.RecipientEmails, c.Recipient.Email)
		arg.Snapshots = append(arg.Snapshots, c.Snapshot)
		arg.IssuedAts = append(arg.IssuedAts, issued)
		arg.Expiring = append(arg.Expiring, c.ExpiresAt != nil)
		arg.ExpiresAts = append(arg.ExpiresAts, expires)
	}
	return arg
}

func statusEntriesParams(plan IssuancePlan) db.IssuanceInsertStatusEntriesParams {
	arg := db.IssuanceInsertStatusEntriesParams{AccountID: plan.AccountID, Now: plan.Now, Per: int32(len(plan.Entries[0].Candidates))}
	for _, e := range plan.Entries {
		v := e.Credential
		arg.CredentialIds = append(arg.CredentialIds, v.CredentialID)
		arg.Kinds = append(arg.Kinds, v.Kind)
		arg.Salts = append(arg.Salts, v.Salt)
		arg.Claims = append(arg.Claims, v.Claims)
		for _, c := range e.Candidates {
			arg.Candidates = append(arg.Candidates, int32(c))
		}
	}
	return arg
}

// countParams are the counters' rows, summed by key and in key order.
func countParams(counts []IssuedCount) db.IssuanceCountIssuedParams {
	sum := map[IssuedKey]int{}
	for _, c := range counts {
		sum[c.IssuedKey] += c.N
	}
	keys := make([]IssuedKey, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b IssuedKey) int {
		return cmp.Or(bytes.Compare(a.AccountID[:], b.AccountID[:]), a.Day.Compare(b.Day),
			bytes.Compare(a.EventID[:], b.EventID[:]), cmp.Compare(a.Kind, b.Kind))
	})
	var p db.IssuanceCountIssuedParams
	for _, k := range keys {
		p.AccountIds = append(p.AccountIds, k.AccountID)
		p.Days = append(p.Days, k.Day)
		p.EventIds = append(p.EventIds, k.EventID)
		p.Kinds = append(p.Kinds, k.Kind)
		p.Counts = append(p.Counts, int32(sum[k]))
	}
	return p
}

// DayOf is the UTC day of t, as the counters key it.
func DayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// fanOutBatch is how many events one fan-out job takes.
const fanOutBatch = 500

// fanOutJobs are the webhook fan-out jobs of events, fanOutBatch events a job, in order.
func fanOutJobs(events []PlannedEvent) []river.JobArgs {
	var out []river.JobArgs
	for chunk := range slices.Chunk(events, fanOutBatch) {
		ids := make([]uuid.UUID, len(chunk))
		for i, e := range chunk {
			ids[i] = e.ID
		}
		out = append(out, jobs.FanOutEvents{OutboxEventIDs: ids})
	}
	return out
}
