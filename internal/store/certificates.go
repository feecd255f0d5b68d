package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// Certificate is a certificate as stored; Status is what clients see (valid, expired, ...).
type Certificate struct {
	ID                   uuid.UUID
	AccountID            uuid.UUID
	EventID              uuid.UUID
	AttendeeID           uuid.UUID
	TemplateID           uuid.UUID
	Number               string
	VerificationCode     string
	Status               string // draft, valid, expired, revoked
	FirstName, LastName  string
	Email                string
	Snapshot             json.RawMessage
	IssuedAt             *time.Time
	ExpiresAt            *time.Time
	RevokedAt            *time.Time
	RevocationReason     *string
	RevocationReasonCode *string
	CreatedAt, UpdatedAt time.Time
}

// IssueSource is what a certificate is rendered from, read inside the issuing transaction.
type IssueSource struct {
	Attendee Attendee
	Event    Event
	Template Template
	Branding Branding
}

// Issue asks for one certificate.
type Issue struct {
	AccountID, EventID, AttendeeID, TemplateID uuid.UUID
	Now                                        time.Time
	ExpiresAt                                  *time.Time // overrides the event's validity
	Draft                                      bool       // prepare a draft: no credit, no email, no event
	// Snapshot builds the frozen rendering data of the certificate.
	Snapshot func(src IssueSource, c Certificate) (json.RawMessage, error)
	// Effects writes, in the issuing transaction, what follows from the issuance: the outbox
	// event and the delivery email. It is not called for drafts.
	Effects func(ctx context.Context, tx *Tx, src IssueSource, c Certificate) error
	// Also writes, in the same transaction, what the caller records of the outcome (a bulk
	// job's item); it is called for drafts too.
	Also func(ctx context.Context, tx *Tx, c Certificate) error
}

// Tx is a transaction handed to callbacks that must write in it.
type Tx struct{ q *db.Queries }

// Credits are an account's figures for the month of Now.
type Credits struct {
	Plan      string
	Period    time.Time // first day of the month, UTC
	Limit     *int      // nil: unlimited
	Used      int
	Remaining *int
	ResetsAt  time.Time
}

func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Credits returns the account's credit figures for the month of now.
func (s *Store) Credits(ctx context.Context, accountID uuid.UUID, now time.Time) (Credits, error) {
	return creditsOf(ctx, s.q, accountID, now)
}

func creditsOf(ctx context.Context, q *db.Queries, accountID uuid.UUID, now time.Time) (Credits, error) {
	period := monthOf(now)
	row, err := q.CreditFigures(ctx, db.CreditFiguresParams{AccountID: accountID, Period: period})
	if err != nil {
		return Credits{}, notFoundAs(err, "account")
	}
	c := Credits{Plan: row.Plan, Period: period, Limit: intPtr(row.MonthlyLimit), Used: int(row.Used), ResetsAt: period.AddDate(0, 1, 0)}
	if c.Limit != nil {
		r := max(0, *c.Limit-c.Used)
		c.Remaining = &r
	}
	return c, nil
}

// IssueCertificate issues (or prepares as a draft) one certificate in one transaction: the
// attendee is locked, an issued certificate past its expiry is marked expired, a valid one
// answers ALREADY_ISSUED, one credit is spent (402 when none is left), a draft of the attendee
// becomes the certificate, and Effects write the outbox event and email alongside.
func (s *Store) IssueCertificate(ctx context.Context, in Issue) (Certificate, error) {
	var out Certificate
	err := s.WithTx(ctx, func(q *db.Queries) error {
		src, err := issueSource(ctx, q, in)
		if err != nil {
			return err
		}
		key := db.FindCertificateForParams{AttendeeID: in.AttendeeID, EventID: in.EventID, TemplateID: in.TemplateID}
		if err := q.ExpireLapsedCertificates(ctx, db.ExpireLapsedCertificatesParams{AttendeeID: in.AttendeeID, EventID: in.EventID,
			TemplateID: in.TemplateID, Now: in.Now}); err != nil {
			return err
		}
		key.Status = "issued"
		if cur, err := q.FindCertificateFor(ctx, key); err == nil {
			return alreadyIssued(cur)
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		key.Status = "draft"
		draft, err := q.FindCertificateFor(ctx, key)
		hasDraft := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if in.Draft {
			if hasDraft {
				out = certificateFrom(draft, in.Now)
			} else if err := s.insertCertificate(ctx, q, in, src, "draft", &out); err != nil {
				return err
			}
			return in.also(ctx, q, out)
		}
		if err := spendCredit(ctx, q, in.AccountID, in.Now); err != nil {
			return err
		}
		if hasDraft {
			issued := certificateFrom(draft, in.Now)
			fillIssue(&issued, in, src)
			snap, err := in.Snapshot(src, issued)
			if err != nil {
				return err
			}
			row, err := q.IssueDraft(ctx, db.IssueDraftParams{ID: draft.ID, RecipientFirstName: issued.FirstName,
				RecipientLastName: issued.LastName, RecipientEmail: issued.Email, Snapshot: snap, IssuedAt: issued.IssuedAt, ExpiresAt: issued.ExpiresAt})
			if err != nil {
				return err
			}
			out = certificateFrom(row, in.Now)
		} else if err := s.insertCertificate(ctx, q, in, src, "issued", &out); err != nil {
			return err
		}
		if in.Effects != nil {
			if err := in.Effects(ctx, &Tx{q: q}, src, out); err != nil {
				return err
			}
		}
		return in.also(ctx, q, out)
	})
	return out, err
}

func (in Issue) also(ctx context.Context, q *db.Queries, c Certificate) error {
	if in.Also == nil {
		return nil
	}
	return in.Also(ctx, &Tx{q: q}, c)
}

func issueSource(ctx context.Context, q *db.Queries, in Issue) (IssueSource, error) {
	a, err := q.LockAttendeeForIssue(ctx, db.LockAttendeeForIssueParams{AccountID: in.AccountID, AttendeeID: in.AttendeeID})
	if err != nil {
		return IssueSource{}, notFoundAt(err, "attendee", "body.attendeeId", "names no attendee of this account")
	}
	if a.EventID != in.EventID {
		e := apperr.New(apperr.NotFound, "The attendee is not on this event.")
		e.Details = []apperr.Detail{{Field: "body.attendeeId", Message: "names no attendee of the event"}}
		return IssueSource{}, e
	}
	t, err := q.GetTemplate(ctx, db.GetTemplateParams{AccountID: in.AccountID, ID: in.TemplateID})
	if err != nil {
		return IssueSource{}, notFoundAt(err, "template", "body.templateId", noSuchTemplate)
	}
	br, err := q.GetBranding(ctx, in.AccountID)
	var b Branding
	if err == nil {
		b = brandingFrom(br)
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return IssueSource{}, err
	}
	return IssueSource{
		Attendee: Attendee{ID: a.ID, AccountID: a.AccountID, EventID: a.EventID, FirstName: a.FirstName, LastName: a.LastName,
			Email: a.Email, Metadata: metadataMap(a.Metadata), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt},
		Event: Event{ID: a.EventID, AccountID: a.AccountID, Name: a.EventName, EventDate: a.EventDate, Location: a.EventLocation,
			TemplateID: a.EventTemplateID, CertificateValidityDays: intPtr(a.CertificateValidityDays)},
		Template: templateFrom(t),
		Branding: b,
	}, nil
}

func (s *Store) insertCertificate(ctx context.Context, q *db.Queries, in Issue, src IssueSource, status string, out *Certificate) error {
	n, err := q.NextCertificateNumber(ctx, in.AccountID)
	if err != nil {
		return err
	}
	code, err := newVerificationCode(ctx, q)
	if err != nil {
		return err
	}
	c := Certificate{ID: newID(), AccountID: in.AccountID, EventID: in.EventID, AttendeeID: in.AttendeeID, TemplateID: in.TemplateID,
		Number: fmt.Sprintf("CERT-%d-%06d", in.Now.UTC().Year(), n), VerificationCode: code, Status: status}
	if status == "issued" {
		fillIssue(&c, in, src)
	} else {
		c.FirstName, c.LastName, c.Email = src.Attendee.FirstName, src.Attendee.LastName, src.Attendee.Email
	}
	snap, err := in.Snapshot(src, c)
	if err != nil {
		return err
	}
	row, err := q.InsertCertificate(ctx, db.InsertCertificateParams{ID: c.ID, AccountID: c.AccountID, EventID: c.EventID,
		AttendeeID: c.AttendeeID, TemplateID: c.TemplateID, CertificateNumber: c.Number, VerificationCode: c.VerificationCode,
		Status: status, RecipientFirstName: c.FirstName, RecipientLastName: c.LastName, RecipientEmail: c.Email,
		Snapshot: snap, IssuedAt: c.IssuedAt, ExpiresAt: c.ExpiresAt})
	if err != nil {
		return err
	}
	*out = certificateFrom(row, in.Now)
	return nil
}

// fillIssue sets what issuing fixes: recipient, issue time and expiry.
func fillIssue(c *Certificate, in Issue, src IssueSource) {
	c.FirstName, c.LastName, c.Email = src.Attendee.FirstName, src.Attendee.LastName, src.Attendee.Email
	issued := in.Now.UTC()
	c.IssuedAt = &issued
	c.ExpiresAt = in.ExpiresAt
	if c.ExpiresAt == nil && src.Event.CertificateValidityDays != nil {
		e := issued.AddDate(0, 0, *src.Event.CertificateValidityDays)
		c.ExpiresAt = &e
	}
	c.Status = "valid"
}

func spendCredit(ctx context.Context, q *db.Queries, accountID uuid.UUID, now time.Time) error {
	if _, err := q.SpendCredit(ctx, db.SpendCreditParams{AccountID: accountID, Period: monthOf(now)}); err == nil {
		return nil
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	c, err := creditsOf(ctx, q, accountID, now)
	if err != nil {
		return err
	}
	e := apperr.New(apperr.CreditLimit, "No credits left this month: the %s plan has %d; they renew on %s.", c.Plan, deref(c.Limit), c.ResetsAt.Format("2 January 2006"))
	e.Credits = &apperr.Credits{Limit: c.Limit, Used: c.Used, Remaining: c.Remaining, ResetsAt: c.ResetsAt}
	return e
}

func alreadyIssued(cur db.Certificate) error {
	e := apperr.New(apperr.AlreadyIssued, "The attendee already holds a valid certificate (%s) for this event and template.", cur.CertificateNumber)
	e.Existing = &apperr.Existing{ID: cur.ID.String(), CertificateNumber: cur.CertificateNumber, VerificationCode: cur.VerificationCode}
	e.Location = "/api/v1/certificates/" + cur.ID.String()
	return e
}

// crockford is Crockford's base32 alphabet: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// codeLength characters of base32 carry 65 random bits.
const codeLength = 13

func newVerificationCode(ctx context.Context, q *db.Queries) (string, error) {
	for range 5 {
		var b [codeLength]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		for i := range b {
			b[i] = crockford[b[i]&31]
		}
		n, err := q.RegisterVerificationCode(ctx, db.RegisterVerificationCodeParams{Code: string(b[:]), Kind: "certificate"})
		if err != nil {
			return "", err
		}
		if n == 1 {
			return string(b[:]), nil
		}
	}
	return "", fmt.Errorf("store: no free verification code after 5 draws")
}

// FindCertificate returns a certificate of the account.
func (s *Store) FindCertificate(ctx context.Context, accountID, id uuid.UUID, now time.Time) (Certificate, error) {
	row, err := s.q.GetCertificate(ctx, db.GetCertificateParams{AccountID: accountID, ID: id})
	if err != nil {
		return Certificate{}, notFoundAs(err, "certificate")
	}
	return certificateFrom(row, now), nil
}

// ListEventCertificates returns a page of an event's certificates, newest first, and their total.
func (s *Store) ListEventCertificates(ctx context.Context, accountID, eventID uuid.UUID, p Page, now time.Time) ([]Certificate, int, error) {
	rows, err := s.q.ListEventCertificates(ctx, db.ListEventCertificatesParams{AccountID: accountID, EventID: eventID,
		PageSize: p.limit(), PageOffset: p.offset()})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := s.q.CountEventCertificates(ctx, db.CountEventCertificatesParams{AccountID: accountID, EventID: eventID})
	if err != nil {
		return nil, 0, mapError(err)
	}
	out := make([]Certificate, len(rows))
	for i, r := range rows {
		out[i] = certificateFrom(r, now)
	}
	return out, int(total), nil
}

// Outbox writes an event to the outbox in the transaction.
func (t *Tx) Outbox(ctx context.Context, accountID uuid.UUID, eventType string, at time.Time, payload any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return t.q.InsertOutboxEvent(ctx, db.InsertOutboxEventParams{ID: newID(), AccountID: accountID, EventType: eventType, Payload: b, OccurredAt: at})
}

// Email records a message in the transaction.
func (t *Tx) Email(ctx context.Context, m OutboundEmail) (EmailDelivery, error) {
	return enqueueEmail(ctx, t.q, m)
}

// SetRecipientToken stores the hash of the token the delivery email's link carries.
func (s *Store) SetRecipientToken(ctx context.Context, certificateID uuid.UUID, hash []byte) error {
	return mapError(s.q.SetRecipientToken(ctx, db.SetRecipientTokenParams{ID: certificateID, TokenHash: hash}))
}

// OutboxEvent is an event waiting in (or dispatched from) the outbox.
type OutboxEvent struct {
	ID         uuid.UUID
	EventType  string
	Payload    json.RawMessage
	OccurredAt time.Time
}

// OutboxEvents lists the account's outbox events, oldest first.
func (s *Store) OutboxEvents(ctx context.Context, accountID uuid.UUID) ([]OutboxEvent, error) {
	rows, err := s.q.ListOutboxEvents(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.OutboxEvent) OutboxEvent {
		return OutboxEvent{ID: r.ID, EventType: r.EventType, Payload: r.Payload, OccurredAt: r.OccurredAt}
	}), nil
}

func certificateFrom(r db.Certificate, now time.Time) Certificate {
	status := r.Status
	switch {
	case status == "issued" && r.ExpiresAt != nil && !now.Before(*r.ExpiresAt):
		status = "expired"
	case status == "issued":
		status = "valid"
	}
	return Certificate{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, AttendeeID: r.AttendeeID, TemplateID: r.TemplateID,
		Number: r.CertificateNumber, VerificationCode: r.VerificationCode, Status: status, FirstName: r.RecipientFirstName,
		LastName: r.RecipientLastName, Email: r.RecipientEmail, Snapshot: r.Snapshot, IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt,
		RevokedAt: r.RevokedAt, RevocationReason: r.RevocationReason, RevocationReasonCode: r.RevocationReasonCode,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Revocation revokes a certificate.
type Revocation struct {
	AccountID, ID uuid.UUID
	Reason        *string
	ReasonCode    string
	Now           time.Time
	// Effects writes the certificate.revoked event; not called when nothing changed.
	Effects func(ctx context.Context, tx *Tx, c Certificate) error
}

// RevokeCertificate revokes an issued (valid or expired) certificate and keeps it. Revoking a
// revoked one changes nothing; a draft answers 409.
func (s *Store) RevokeCertificate(ctx context.Context, r Revocation) (Certificate, error) {
	var out Certificate
	err := s.WithTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockCertificate(ctx, db.LockCertificateParams{AccountID: r.AccountID, ID: r.ID})
		if err != nil {
			return notFoundAs(err, "certificate")
		}
		switch cur.Status {
		case "draft":
			return apperr.New(apperr.Conflict, "A draft is not issued and cannot be revoked; delete it instead.")
		case "revoked":
			out = certificateFrom(cur, r.Now)
			return nil
		}
		row, err := q.RevokeCertificate(ctx, db.RevokeCertificateParams{ID: r.ID, RevokedAt: &r.Now, Reason: r.Reason, ReasonCode: &r.ReasonCode})
		if err != nil {
			return err
		}
		out = certificateFrom(row, r.Now)
		if r.Effects != nil {
			return r.Effects(ctx, &Tx{q: q}, out)
		}
		return nil
	})
	return out, err
}

// DeleteDraft removes a draft certificate; it reports false for any other status.
func (s *Store) DeleteDraft(ctx context.Context, accountID, id uuid.UUID) (bool, error) {
	deleted := false
	err := s.WithTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockCertificate(ctx, db.LockCertificateParams{AccountID: accountID, ID: id})
		if err != nil {
			return notFoundAs(err, "certificate")
		}
		if cur.Status != "draft" {
			return nil
		}
		deleted = true
		return q.DeleteDraftCertificate(ctx, id)
	})
	return deleted, err
}

// RegenerateCertificate rebuilds a valid or expired certificate's snapshot from the current
// attendee, event, template and branding; number and code stay, no credit is used.
func (s *Store) RegenerateCertificate(ctx context.Context, accountID, id uuid.UUID, now time.Time,
	snapshot func(src IssueSource, c Certificate) (json.RawMessage, error)) (Certificate, error) {
	var out Certificate
	err := s.WithTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockCertificate(ctx, db.LockCertificateParams{AccountID: accountID, ID: id})
		if err != nil {
			return notFoundAs(err, "certificate")
		}
		if cur.Status == "revoked" || cur.Status == "draft" {
			return apperr.New(apperr.Conflict, "A %s certificate cannot be regenerated.", cur.Status)
		}
		src, err := issueSource(ctx, q, Issue{AccountID: accountID, EventID: cur.EventID, AttendeeID: cur.AttendeeID, TemplateID: cur.TemplateID})
		if err != nil {
			return err
		}
		c := certificateFrom(cur, now)
		snap, err := snapshot(src, c)
		if err != nil {
			return err
		}
		row, err := q.ReplaceSnapshot(ctx, db.ReplaceSnapshotParams{ID: id, Snapshot: snap, RecipientFirstName: src.Attendee.FirstName,
			RecipientLastName: src.Attendee.LastName, RecipientEmail: src.Attendee.Email})
		if err != nil {
			return err
		}
		out = certificateFrom(row, now)
		return nil
	})
	return out, err
}

// SendCertificate records the delivery email of a valid or expired certificate through
// record, in one transaction with the certificate locked.
func (s *Store) SendCertificate(ctx context.Context, accountID, id uuid.UUID, now time.Time,
	record func(ctx context.Context, tx *Tx, c Certificate) (EmailDelivery, error)) (EmailDelivery, error) {
	var out EmailDelivery
	err := s.WithTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockCertificate(ctx, db.LockCertificateParams{AccountID: accountID, ID: id})
		if err != nil {
			return notFoundAs(err, "certificate")
		}
		if cur.Status == "revoked" || cur.Status == "draft" {
			return apperr.New(apperr.Conflict, "A %s certificate is not sent.", cur.Status)
		}
		out, err = record(ctx, &Tx{q: q}, certificateFrom(cur, now))
		return err
	})
	return out, err
}
