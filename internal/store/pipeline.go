package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// Pipeline queues the writes of an issuance and sends them to PostgreSQL in one round trip
// (Send), in the order queued. An issuance holds the account's hot rows (its credit row, its
// number counter, the day's analytics rows) from the first of these writes until its commit,
// and every issuance of the account waits for them: one round trip for all the writes keeps
// that hold as short as one statement would, while the rules that tie the writes together stay
// in Go (internal/issuance) and every statement stays in db/queries.
//
// The statements are sqlc batch queries (db/queries/issuance.sql). The generated Queries of a
// pipeline run on batchDB, which does not send the batch each of them builds: it appends the
// batch's queued queries to the pipeline's one pgx.Batch and answers results that read, once
// Send has sent the whole, from the real results in queue order. What an operation answers
// (a certificate, whether a credit was spent) is filled in by Send. The same mechanism sends,
// with flush, the reads of Tx.ReadIssuances (the sources, the current certificates, the new codes
// reserved) in one round trip before the hot rows.
type Pipeline struct {
	tx    *Tx
	q     *db.Queries
	batch pgx.Batch
	// sent are the real results, once Send has sent the batch.
	sent pgx.BatchResults
	// reads read the operations' results, in the order they were queued.
	reads []func() error
	// events are the outbox events queued, whose webhook fan-out Send queues with them.
	events []uuid.UUID
}

// Pipeline starts an empty pipeline in the transaction.
func (t *Tx) Pipeline() *Pipeline {
	p := &Pipeline{tx: t}
	p.q = db.New(batchDB{p})
	return p
}

// batchDB is the database of a pipeline's generated Queries: SendBatch queues, nothing else
// runs (a pipeline's statements are all batch queries).
type batchDB struct{ p *Pipeline }

var errNotBatched = errors.New("store: a pipeline runs batch queries only")

func (batchDB) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, errNotBatched
}
func (batchDB) Query(context.Context, string, ...any) (pgx.Rows, error) { return nil, errNotBatched }
func (batchDB) QueryRow(context.Context, string, ...any) pgx.Row        { return errRow{} }
func (batchDB) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errNotBatched
}

// SendBatch appends b's queries to the pipeline's batch, in order.
func (d batchDB) SendBatch(_ context.Context, b *pgx.Batch) pgx.BatchResults {
	d.p.batch.QueuedQueries = append(d.p.batch.QueuedQueries, b.QueuedQueries...)
	return queuedResults(d)
}

type errRow struct{}

func (errRow) Scan(...any) error { return errNotBatched }

// queuedResults reads a generated batch's results from the pipeline's real results, which the
// generated code reads in its own queue order, called by Send in the pipeline's order. Close
// does nothing: Send closes the real results once every operation has read its own.
type queuedResults struct{ p *Pipeline }

func (r queuedResults) Exec() (pgconn.CommandTag, error) { return r.p.sent.Exec() }
func (r queuedResults) Query() (pgx.Rows, error)         { return r.p.sent.Query() }
func (r queuedResults) QueryRow() pgx.Row                { return r.p.sent.QueryRow() }
func (r queuedResults) Close() error                     { return nil }
func (r queuedResults) Tx() pgx.Tx                       { return nil }

// Send sends the queued statements in one round trip, after queuing the webhook fan-out jobs
// of the outbox events queued (those that some subscription takes) and the counts that
// CountIssued was told in the transaction (the day's analytics rows, in key order), and fills
// in what the operations answer. The first error is returned (a failed statement aborts the
// transaction: those after it fail too).
func (p *Pipeline) Send(ctx context.Context) error {
	if len(p.events) > 0 {
		r := p.q.PipelineQueueOutboxFanOut(ctx, []db.PipelineQueueOutboxFanOutParams{db.PipelineQueueOutboxFanOutParams(fanOutParams(ctx, p.events))})
		p.exec(func(f func(int, error)) { r.Exec(f) })
		p.events = nil
	}
	if c, ok := p.tx.takeIssued(); ok {
		r := p.q.PipelineCountIssued(ctx, []db.PipelineCountIssuedParams{db.PipelineCountIssuedParams(c)})
		p.exec(func(f func(int, error)) { r.Exec(f) })
	}
	p.planGenerically(ctx)
	return p.flush(ctx)
}

// keptPlanCacheMode is the setting in which PipelinePlanGenerically keeps the transaction's
// plan_cache_mode while the writes run (a name of the service's own: a custom setting needs a
// dot in its name).
const keptPlanCacheMode = "credentiald.plan_cache_mode"

// planGenerically encloses the queued writes in PipelinePlanGenerically and
// PipelinePlanAsBefore (see db/queries/issuance.sql): their plans are made once a connection,
// not at every call. Each statement's plan is chosen when PostgreSQL binds it, after the one
// queued before it has run, so the mode holds for exactly the writes between the two.
func (p *Pipeline) planGenerically(ctx context.Context) {
	if p.batch.Len() == 0 {
		return
	}
	writes, reads := p.batch.QueuedQueries, p.reads
	p.batch.QueuedQueries, p.reads = nil, nil
	p.exec(p.q.PipelinePlanGenerically(ctx, []string{keptPlanCacheMode}).Exec)
	p.batch.QueuedQueries = append(p.batch.QueuedQueries, writes...)
	p.reads = append(p.reads, reads...)
	p.exec(p.q.PipelinePlanAsBefore(ctx, []string{keptPlanCacheMode}).Exec)
}

// flush sends the queued statements in one round trip and fills in what the operations
// answer, as Send does, but takes nothing else with them: no River job, no count of
// CountIssued (those belong with the writes under the hot rows). A pipeline of statements
// that are not an issuance's writes (Tx.ReadIssuances) is sent with flush.
func (p *Pipeline) flush(ctx context.Context) error {
	if p.batch.Len() > 0 {
		p.sent = p.tx.tx.SendBatch(ctx, &p.batch)
	}
	// With nothing queued, the reads are only a caller's refusals (mixed rows queue nothing).
	var first error
	for _, read := range p.reads {
		if err := read(); err != nil && first == nil {
			first = err
		}
	}
	if p.sent != nil {
		if err := p.sent.Close(); err != nil && first == nil {
			first = err
		}
	}
	p.batch, p.reads, p.sent = pgx.Batch{}, nil, nil
	return mapError(first)
}

// exec records the read of a :batchexec operation.
func (p *Pipeline) exec(run func(func(int, error))) {
	p.reads = append(p.reads, func() error {
		var first error
		run(func(_ int, err error) {
			if err != nil && first == nil {
				first = err
			}
		})
		return first
	})
}

// Spent says whether a pipeline's credit spend took its credits (read after Send).
type Spent struct{ OK bool }

// SpendCredits queues the spend of n credits of the account's month starting at period, all or
// none (SpendCredits): after Send, the answer says whether they were taken.
func (p *Pipeline) SpendCredits(ctx context.Context, accountID uuid.UUID, period time.Time, n int) *Spent {
	out := &Spent{}
	r := p.q.PipelineSpendCredits(ctx, []db.PipelineSpendCreditsParams{{AccountID: accountID, Period: period, N: int32(n)}})
	p.reads = append(p.reads, func() error {
		var err error
		r.QueryRow(func(_ int, _ int32, e error) { err = e })
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // fewer than n left: OK stays false
		}
		out.OK = err == nil
		if out.OK {
			p.tx.committed.CreditsSpent += n
		}
		return err
	})
	return out
}

// LockCredits queues the lock of the account's credit row of the month starting at period,
// spending nothing (PipelineLockCredits), for what takes the account's number counter without
// spending a credit: the credit row comes first in every transaction that takes both.
func (p *Pipeline) LockCredits(ctx context.Context, accountID uuid.UUID, period time.Time) {
	p.exec(p.q.PipelineLockCredits(ctx, []db.PipelineLockCreditsParams{{AccountID: accountID, Period: period}}).Exec)
}

// InsertCertificates queues new certificates and drafts of the account, in one statement,
// numbered with the account's next numbers in the order given, which the statement takes
// (each Number.Prefix, then its number zero-padded to Number.Digits), each under its
// VerificationCode, reserved before (Tx.ReadIssuances or RegisterVerificationCodes). The
// certificates, in the order given, are filled in by Send.
func (p *Pipeline) InsertCertificates(ctx context.Context, accountID uuid.UUID, cs []NewCertificate, now time.Time) []*domain.Certificate {
	out := make([]*domain.Certificate, len(cs))
	for i := range out {
		out[i] = &domain.Certificate{}
	}
	if len(cs) == 0 {
		return out
	}
	if slices.ContainsFunc(cs, func(c NewCertificate) bool { return c.AccountID != accountID }) {
		p.reads = append(p.reads, func() error { return errors.New("store: certificates of another account in one insert") })
		return out // nothing queued: Send answers the error
	}
	arg := db.PipelineInsertCertificatesParams{AccountID: accountID, Now: now}
	at := make(map[uuid.UUID]int, len(cs)) // each certificate's place, to fill in from its row
	for i, c := range cs {
		if c.ID == uuid.Nil {
			c.ID = newID()
		}
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
		at[c.ID] = i
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
	r := p.q.PipelineInsertCertificates(ctx, []db.PipelineInsertCertificatesParams{arg})
	p.reads = append(p.reads, func() error {
		var err error
		written := 0
		r.Query(func(_ int, rows []db.Certificate, e error) {
			if err = e; e != nil {
				return
			}
			for _, row := range rows {
				if i, ok := at[row.ID]; ok {
					*out[i] = certificateFrom(row, now)
					written++
				}
			}
		})
		if err == nil && written != len(cs) {
			err = fmt.Errorf("store: %d of %d certificates written", written, len(cs))
		}
		return err
	})
	return out
}

// ExpireCertificates queues the marking of the account's lapsed certificates ids (issued, past
// their expiry at now) as expired, to make room for their keys' next certificates. Queued
// after SpendCredits: the change of status moves the list totals, which every issuance of the
// account takes after its credit row. A certificate of ids no longer issued and lapsed is left
// as it is (its attendee's lock keeps that from happening).
func (p *Pipeline) ExpireCertificates(ctx context.Context, accountID uuid.UUID, ids []uuid.UUID, now time.Time) {
	if len(ids) == 0 {
		return
	}
	p.exec(p.q.PipelineExpireCertificates(ctx, []db.PipelineExpireCertificatesParams{{AccountID: accountID, Ids: ids, Now: now}}).Exec)
}

// IssueDraft queues the issuance of a draft, keeping its number and code; Send answers
// ErrNotFound when id is no longer a draft.
func (p *Pipeline) IssueDraft(ctx context.Context, id uuid.UUID, in Issuance, now time.Time) *domain.Certificate {
	issued := in.IssuedAt
	r := p.q.PipelineIssueDraft(ctx, []db.PipelineIssueDraftParams{{ID: id, RecipientFirstName: in.Recipient.FirstName,
		RecipientLastName: in.Recipient.LastName, RecipientEmail: in.Recipient.Email, Snapshot: in.Snapshot,
		IssuedAt: &issued, ExpiresAt: in.ExpiresAt, Now: now}})
	c := p.certificate(r.QueryRow, now)
	p.reads = append(p.reads, func() error {
		if c.ID != uuid.Nil { // the draft is issued: its record changed
			p.tx.changed(Change{Certificate: c.ID, Code: c.VerificationCode})
		}
		return nil
	})
	return c
}

// certificate is the certificate a queued statement answers, filled in by Send from its row.
func (p *Pipeline) certificate(queryRow func(func(int, db.Certificate, error)), now time.Time) *domain.Certificate {
	out := &domain.Certificate{}
	p.reads = append(p.reads, func() error {
		var err error
		queryRow(func(_ int, row db.Certificate, e error) {
			if err = e; e == nil {
				*out = certificateFrom(row, now)
			}
		})
		return err
	})
	return out
}

// Assigned says whether a pipeline's status entry was written (read after Send).
type Assigned struct{ OK bool }

// InsertStatusEntries queues the entries of credentials of the account in its open status list
// (vs[i].List is not read), in one statement: each at the first of its candidates (as many for
// each) that is free. After Send, each answer says whether its entry was written (not: no open
// list, or every candidate taken).
func (p *Pipeline) InsertStatusEntries(ctx context.Context, accountID uuid.UUID, vs []VerifiableCredential, candidates [][]int) []*Assigned {
	out := make([]*Assigned, len(vs))
	for i := range out {
		out[i] = &Assigned{}
	}
	if len(vs) == 0 {
		return out
	}
	per := 0
	if len(candidates) > 0 {
		per = len(candidates[0])
	}
	arg := db.PipelineInsertStatusEntriesParams{AccountID: accountID, Now: vs[0].SignedAt, Per: int32(per)}
	at := make(map[uuid.UUID]int, len(vs))
	mixed := len(candidates) != len(vs) || slices.ContainsFunc(vs, func(v VerifiableCredential) bool {
		return v.AccountID != accountID || !v.SignedAt.Equal(arg.Now)
	}) || slices.ContainsFunc(candidates, func(c []int) bool { return len(c) != per || per == 0 })
	if mixed {
		p.reads = append(p.reads, func() error {
			return errors.New("store: status entries of another account or time, or without as many candidates each, in one insert")
		})
		return out // nothing queued: Send answers the error
	}
	for i, v := range vs {
		at[v.CredentialID] = i
		arg.CredentialIds = append(arg.CredentialIds, v.CredentialID)
		arg.Kinds = append(arg.Kinds, v.Kind)
		arg.Salts = append(arg.Salts, v.Salt)
		arg.Claims = append(arg.Claims, v.Claims)
		for _, c := range candidates[i] {
			arg.Candidates = append(arg.Candidates, int32(c))
		}
	}
	r := p.q.PipelineInsertStatusEntries(ctx, []db.PipelineInsertStatusEntriesParams{arg})
	p.reads = append(p.reads, func() error {
		var err error
		r.Query(func(_ int, ids []uuid.UUID, e error) {
			if err = e; e == nil {
				for _, id := range ids {
					if i, ok := at[id]; ok {
						out[i].OK = true
					}
				}
			}
		})
		return err
	})
	return out
}

// CertificateEvents queues an outbox event of eventType about each certificate of the account
// written earlier in the pipeline (inserted, or a draft issued), in one statement and in the
// order given, with its payload's data.certificateNumber set from the certificate's row by the
// statement; Send queues their webhook fan-out.
func (p *Pipeline) CertificateEvents(ctx context.Context, accountID uuid.UUID, eventType string, at time.Time, certificateIDs []uuid.UUID, payloads []any) error {
	if len(certificateIDs) == 0 {
		return nil
	}
	ids, bodies, err := outboxPayloads(payloads)
	if err != nil {
		return err
	}
	r := p.q.PipelineInsertCertificateEvents(ctx, []db.PipelineInsertCertificateEventsParams{{EventType: eventType, OccurredAt: at,
		Ids: ids, CertificateIds: certificateIDs, Payloads: bodies, AccountID: accountID}})
	p.exec(func(f func(int, error)) { r.Exec(f) })
	p.events = append(p.events, ids...)
	return nil
}

// OutboxMany queues one event of eventType per payload, in one statement (as Tx.OutboxMany);
// Send queues their webhook fan-out.
func (p *Pipeline) OutboxMany(ctx context.Context, accountID uuid.UUID, eventType string, at time.Time, payloads []any) error {
	if len(payloads) == 0 {
		return nil
	}
	ids, bodies, err := outboxPayloads(payloads)
	if err != nil {
		return err
	}
	arg := db.PipelineInsertOutboxEventsParams{AccountID: accountID, EventType: eventType, OccurredAt: at, Ids: ids, Payloads: bodies}
	r := p.q.PipelineInsertOutboxEvents(ctx, []db.PipelineInsertOutboxEventsParams{arg})
	p.exec(func(f func(int, error)) { r.Exec(f) })
	p.events = append(p.events, arg.Ids...)
	return nil
}
