package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// CertificateKey names the certificates of one attendee of an event with one template: at most
// one of them is issued (a partial unique index), and at most one is a draft.
type CertificateKey struct {
	AttendeeID, EventID, TemplateID uuid.UUID
}

// NewCertificate is a certificate to insert (IssuancePlan.Certificates): a draft, or an
// issued one.
type NewCertificate struct {
	ID        uuid.UUID // zero: the store makes one
	AccountID uuid.UUID
	CertificateKey
	Number           NumberFormat
	VerificationCode string // reserved in verification_codes before (issuance.Issue reserves one when empty)
	Draft            bool
	Recipient        domain.Recipient
	Snapshot         json.RawMessage
	IssuedAt         *time.Time // nil for a draft
	ExpiresAt        *time.Time
}

// NumberFormat is how a new certificate's number is written: Prefix, then the account's next
// number zero-padded to Digits (more digits when it needs them).
type NumberFormat struct {
	Prefix string
	Digits int
}

// Issuance is what turns a draft into an issued certificate.
type Issuance struct {
	Recipient domain.Recipient
	Snapshot  json.RawMessage
	IssuedAt  time.Time
	ExpiresAt *time.Time
}

// Revocation is what revoking a certificate records.
type Revocation struct {
	At         time.Time
	Reason     *string
	ReasonCode string
}

// CreditUsage is an account's plan and the credits it used in one month.
type CreditUsage struct {
	Plan  string
	Limit *int // nil: unlimited
	Used  int
}

// AttendeeOnEvent is an attendee with the event they attend.
type AttendeeOnEvent struct {
	Attendee domain.Attendee
	Event    domain.Event
}

// CreditUsage returns the account's plan and the credits it used in the month starting at
// period. ErrNotFound: no such account.
func (d queries) CreditUsage(ctx context.Context, accountID uuid.UUID, period time.Time) (CreditUsage, error) {
	row, err := d.q.CreditFigures(ctx, db.CreditFiguresParams{AccountID: accountID, Period: period})
	if err != nil {
		return CreditUsage{}, mapError(err)
	}
	return CreditUsage{Plan: row.Plan, Limit: intPtr(row.MonthlyLimit), Used: int(row.Used)}, nil
}

// LockAttendeeForIssue returns an attendee of the account with their event, holding the
// attendee until the transaction ends: issuances for one attendee run one after the other.
func (d queries) LockAttendeeForIssue(ctx context.Context, accountID, attendeeID uuid.UUID) (AttendeeOnEvent, error) {
	a, err := d.q.LockAttendeeForIssue(ctx, db.LockAttendeeForIssueParams{AccountID: accountID, AttendeeID: attendeeID})
	if err != nil {
		return AttendeeOnEvent{}, mapError(err)
	}
	return AttendeeOnEvent{
		Attendee: domain.Attendee{ID: a.ID, AccountID: a.AccountID, EventID: a.EventID, FirstName: a.FirstName, LastName: a.LastName,
			Email: a.Email, Metadata: metadataMap(a.Metadata), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, ErasedAt: a.ErasedAt},
		Event: domain.Event{ID: a.EventID, AccountID: a.AccountID, Name: a.EventName, EventDate: a.EventDate, Location: a.EventLocation,
			Description: a.EventDescription,
			TemplateID:  a.EventTemplateID, CertificateValidityDays: intPtr(a.CertificateValidityDays)},
	}, nil
}

// LockAttendees locks the account's attendees named, in id order, until the transaction ends
// (those of another account, or none, are left alone).
func (d queries) LockAttendees(ctx context.Context, accountID uuid.UUID, ids []uuid.UUID) error {
	return mapError(d.q.LockAttendees(ctx, db.LockAttendeesParams{AccountID: accountID, Ids: ids}))
}

// IssueSource is what a certificate is made from: the attendee on its event, the template
// and the account's branding.
type IssueSource struct {
	AttendeeOnEvent
	Template domain.Template
	Branding domain.Branding
	// AccountName names the issuer where the branding does not.
	AccountName string
}

// issueSourceFrom is what a certificate is made from, as LockIssueSources read it.
func issueSourceFrom(a db.LockIssueSourcesRow) (IssueSource, error) {
	src := IssueSource{
		AttendeeOnEvent: AttendeeOnEvent{
			Attendee: domain.Attendee{ID: a.ID, AccountID: a.AccountID, EventID: a.EventID, FirstName: a.FirstName, LastName: a.LastName,
				Email: a.Email, Metadata: metadataMap(a.Metadata), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, ErasedAt: a.ErasedAt},
			Event: domain.Event{ID: a.EventID, AccountID: a.AccountID, Name: a.EventName, EventDate: a.EventDate, Location: a.EventLocation,
				Description: a.EventDescription, Locale: a.EventLocale,
				TemplateID: a.EventTemplateID, CertificateValidityDays: intPtr(a.CertificateValidityDays)},
		},
		Template:    templateFrom(a.Template),
		Branding:    domain.Branding{Signatories: []domain.Signatory{}}, // as FindBranding answers for an account without one
		AccountName: a.AccountName,
	}
	var err error
	if a.BrandingAccountID != nil {
		src.Branding, err = brandingFrom(db.Branding{AccountID: *a.BrandingAccountID, IssuerName: a.BrandingIssuerName,
			Website: a.BrandingWebsite, Logo: a.BrandingLogo, PrimaryColor: a.BrandingPrimaryColor, EmailFromName: a.BrandingEmailFromName,
			EmailReplyTo: a.BrandingEmailReplyTo, UpdatedAt: *a.BrandingUpdatedAt, Signatories: a.BrandingSignatories})
	}
	return src, err
}

// LockIssueSource locks the attendee as LockAttendeeForIssue does and reads, in the same
// statement (LockIssueSources), its event, the template (the account's or a system one) and
// the account's branding.
// ErrNotFound: the account has no such attendee, or no such template.
func (t *Tx) LockIssueSource(ctx context.Context, accountID, attendeeID, templateID uuid.UUID) (IssueSource, error) {
	rows, err := t.q.LockIssueSources(ctx, db.LockIssueSourcesParams{AccountID: accountID, AttendeeIds: []uuid.UUID{attendeeID},
		TemplateIds: []uuid.UUID{templateID}})
	if err != nil {
		return IssueSource{}, mapError(err)
	}
	if len(rows) == 0 {
		return IssueSource{}, ErrNotFound
	}
	return issueSourceFrom(rows[0])
}

// IssuanceRead is what one certificate's issuance reads before it writes: its attendee (locked),
// with its event, the template and the branding; and its key's current certificates, with Code
// offered for its new certificate (see CurrentCertificates).
type IssuanceRead struct {
	AccountID uuid.UUID
	Key       CertificateKey
	Code      string
}

// IssuanceReading is what ReadIssuances found for one IssuanceRead. Found is false when the
// attendee or the template is missing (LockAttendeeForIssue tells which); Source is then zero.
type IssuanceReading struct {
	Source  IssueSource
	Found   bool
	Current CurrentCertificates
}

// IssuanceReadings are what ReadIssuances found: each read's, in order, and whether an active
// webhook subscription of the account takes certificate.issued (the plan's FanOut).
type IssuanceReadings struct {
	Of         []IssuanceReading
	Subscribed bool
}

// ReadIssuances does the reads of several certificate issuances of one account in one round
// trip: the attendees locked (in id order) and their sources read in one statement
// (LockIssueSources); for each, its current certificates read (a lapsed one apart, left to the
// issuance's writes to mark expired) and, when it has none, its code reserved
// (CurrentCertificatesFor, ReserveNewCertificateCode); and whether a webhook subscription
// takes certificate.issued. Nothing here takes a hot row (nor a list total, which a lapsed
// certificate marked expired would move): a code's row is its own (a random key), so
// reserving it before the account's hot rows keeps their order.
func (t *Tx) ReadIssuances(ctx context.Context, reads []IssuanceRead, now time.Time) (IssuanceReadings, error) {
	out := IssuanceReadings{Of: make([]IssuanceReading, len(reads))}
	if len(reads) == 0 {
		return out, nil
	}
	type key struct{ attendee, template uuid.UUID }
	at := make(map[key]int, len(reads))
	arg := db.LockIssueSourcesParams{AccountID: reads[0].AccountID}
	for i, r := range reads {
		if r.AccountID != arg.AccountID {
			return out, errMixed("issuances of several accounts read together")
		}
		at[key{r.Key.AttendeeID, r.Key.TemplateID}] = i
		arg.AttendeeIds = append(arg.AttendeeIds, r.Key.AttendeeID)
		arg.TemplateIds = append(arg.TemplateIds, r.Key.TemplateID)
	}
	var b batch
	query(&b, db.LockIssueSources, func(row db.LockIssueSourcesRow) error {
		i, ok := at[key{row.ID, row.Template.ID}]
		if !ok {
			return nil
		}
		var err error
		out.Of[i].Source, err = issueSourceFrom(row)
		out.Of[i].Found = err == nil
		return err
	}, arg)
	for i, r := range reads {
		cur := &out.Of[i].Current
		k := r.Key
		query(&b, db.CurrentCertificatesFor, func(row db.Certificate) error {
			c := certificateFrom(row, now)
			switch {
			case row.Status == domain.StoredCertificateIssued && c.Status == domain.CertificateExpired:
				cur.Lapsed = &c
			case row.Status == domain.StoredCertificateIssued:
				cur.Issued = &c
			case row.Status == domain.StoredCertificateDraft:
				cur.Draft = &c
			}
			return nil
		}, db.CurrentCertificatesForParams{AttendeeID: k.AttendeeID, EventID: k.EventID, TemplateID: k.TemplateID, AccountID: r.AccountID})
		var code string
		b.queryRow(db.ReserveNewCertificateCode, &code, func(err error) error {
			found, err := noRow(err) // no row: a current certificate, or the code taken
			if found {
				cur.Code = code
			}
			return err
		}, db.ReserveNewCertificateCodeParams{Code: r.Code, Now: now, AttendeeID: k.AttendeeID, EventID: k.EventID, TemplateID: k.TemplateID})
	}
	b.queryRow(db.WebhookSubscribed, &out.Subscribed, func(err error) error { return err },
		db.WebhookSubscribedParams{AccountID: arg.AccountID, EventType: "certificate.issued"})
	if err := b.send(ctx, t.tx); err != nil {
		return IssuanceReadings{}, err
	}
	return out, nil
}

// CurrentCertificates are a key's current certificates: the issued one and the draft, each
// nil when there is none; an issued one lapsed (past its expiry) apart, as Lapsed; and, when
// there is neither an issued one nor a draft, the verification code reserved for the key's new
// certificate.
type CurrentCertificates struct {
	Issued, Draft *domain.Certificate
	// Lapsed is the key's issued certificate past its expiry (it reads expired): it blocks no
	// new certificate, but is still stored as issued until the issuance of the next one marks
	// it expired (IssuancePlan.Lapsed).
	Lapsed *domain.Certificate
	// Code is the code offered (IssuanceRead.Code), reserved (kind certificate) for the new
	// certificate the key is to get: set only when the key has no current certificate and the
	// code was free. Empty with no current certificate: the code was taken, draw another.
	Code string
}

// FindCertificate returns a certificate of the account.
func (d queries) FindCertificate(ctx context.Context, accountID, id uuid.UUID, now time.Time) (domain.Certificate, error) {
	row, err := d.q.GetCertificate(ctx, db.GetCertificateParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Certificate{}, mapError(err)
	}
	return certificateFrom(row, now), nil
}

// FindCertificateByID returns a certificate of any account, for the workers.
func (d queries) FindCertificateByID(ctx context.Context, id uuid.UUID, now time.Time) (domain.Certificate, error) {
	row, err := d.q.GetCertificateByID(ctx, id)
	if err != nil {
		return domain.Certificate{}, mapError(err)
	}
	return certificateFrom(row, now), nil
}

// LockCertificate returns a certificate of the account, holding it until the transaction ends.
func (d queries) LockCertificate(ctx context.Context, accountID, id uuid.UUID, now time.Time) (domain.Certificate, error) {
	row, err := d.q.LockCertificate(ctx, db.LockCertificateParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Certificate{}, mapError(err)
	}
	return certificateFrom(row, now), nil
}

// ListCertificates returns a page of the account's certificates that f lets through (the
// status as it is at now) and that match p's search, in p's order, and how many match,
// without their snapshots (as FindCertificateRecord).
func (d queries) ListCertificates(ctx context.Context, accountID uuid.UUID, f domain.CertificateFilter, p domain.Page, now time.Time) ([]domain.Certificate, int, error) {
	sort := p.Sort
	if f.Status != nil && *f.Status == domain.CertificateDraft && strings.TrimPrefix(sort, "-") == "issuedAt" {
		// No draft was issued: ordered by issuedAt, drafts are in the order of their ids, the
		// ties' order. Asked so, PostgreSQL walks the account's ids to the page's drafts, where
		// it walked the account's issued certificates, all first, to reach them (docs/benchmarks.md,
		// "Figures behind design choices").
		sort = strings.Replace(sort, "issuedAt", "id", 1)
	}
	q, err := d.list(certificateOrders, sort)
	if err != nil {
		return nil, 0, err
	}
	from, before := f.IssuedBounds()
	arg := db.CountCertificatesParams{AccountID: accountID, EventID: f.EventID, AttendeeID: f.AttendeeID, TemplateID: f.TemplateID,
		Status: (*string)(f.Status), Now: now, IssuedFrom: from, IssuedBefore: before, Pattern: containsPattern(p.Q)}
	if arg.Pattern != nil {
		return d.searchCertificates(ctx, q, arg, p)
	}
	rows, err := q.ListCertificates(ctx, db.ListCertificatesParams{AccountID: arg.AccountID, EventID: arg.EventID,
		AttendeeID: arg.AttendeeID, TemplateID: arg.TemplateID, Status: arg.Status, Now: arg.Now, IssuedFrom: arg.IssuedFrom,
		IssuedBefore: arg.IssuedBefore, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := d.certificateTotal(ctx, q, arg)
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, func(r db.ListCertificatesRow) domain.Certificate {
		return recordFrom(db.GetCertificateRecordRow(r), now)
	}), int(total), nil
}

// FindCertificateRecord is FindCertificate without the snapshot (Snapshot is nil): what the
// API shows of a certificate, read without decompressing what it is rendered from.
func (d queries) FindCertificateRecord(ctx context.Context, accountID, id uuid.UUID, now time.Time) (domain.Certificate, error) {
	row, err := d.q.GetCertificateRecord(ctx, db.GetCertificateRecordParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Certificate{}, mapError(err)
	}
	return recordFrom(row, now), nil
}

// recordFrom is certificateFrom for a row without the snapshot.
func recordFrom(r db.GetCertificateRecordRow, now time.Time) domain.Certificate {
	return certificateFrom(db.Certificate{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, AttendeeID: r.AttendeeID,
		TemplateID: r.TemplateID, CertificateNumber: r.CertificateNumber, VerificationCode: r.VerificationCode, Status: r.Status,
		RecipientFirstName: r.RecipientFirstName, RecipientLastName: r.RecipientLastName, RecipientEmail: r.RecipientEmail,
		IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt, RevocationReason: r.RevocationReason,
		RevocationReasonCode: r.RevocationReasonCode, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}, now)
}

// RevokeCertificate revokes an issued (valid or expired) certificate. ErrNotFound: it is not
// issued.
func (d queries) RevokeCertificate(ctx context.Context, id uuid.UUID, r Revocation, now time.Time) (domain.Certificate, error) {
	at := r.At
	code := r.ReasonCode
	row, err := d.q.RevokeCertificate(ctx, db.RevokeCertificateParams{ID: id, RevokedAt: &at, Reason: r.Reason, ReasonCode: &code, Now: now})
	if err != nil {
		return domain.Certificate{}, mapError(err)
	}
	d.changed(changefeed.Change{Certificate: row.ID, Code: row.VerificationCode})
	return certificateFrom(row, now), nil
}

// DeleteDraftCertificate removes a certificate if it is a draft.
func (d queries) DeleteDraftCertificate(ctx context.Context, id uuid.UUID) error {
	codes, err := d.q.DeleteDraftCertificate(ctx, id)
	for _, code := range codes {
		d.changed(changefeed.Change{Certificate: id, Code: code})
	}
	return mapError(err)
}

// ReplaceSnapshot replaces what a certificate is rendered from and whom it is made out to.
func (d queries) ReplaceSnapshot(ctx context.Context, id uuid.UUID, to domain.Recipient, snapshot json.RawMessage, now time.Time) (domain.Certificate, error) {
	row, err := d.q.ReplaceSnapshot(ctx, db.ReplaceSnapshotParams{ID: id, Snapshot: snapshot, RecipientFirstName: to.FirstName,
		RecipientLastName: to.LastName, RecipientEmail: to.Email, Now: now})
	if err != nil {
		return domain.Certificate{}, mapError(err)
	}
	d.changed(changefeed.Change{Certificate: row.ID, Code: row.VerificationCode})
	return certificateFrom(row, now), nil
}

// SetRecipientToken stores the hash of the token the delivery email's link carries.
func (d queries) SetRecipientToken(ctx context.Context, certificateID uuid.UUID, hash []byte) error {
	code, err := d.q.SetRecipientToken(ctx, db.SetRecipientTokenParams{ID: certificateID, TokenHash: hash})
	if err != nil {
		return mapError(err)
	}
	d.changed(changefeed.Change{Certificate: certificateID, Code: code})
	return nil
}

// SendableCertificate is a valid certificate with whether it was emailed (sent, or queued).
type SendableCertificate struct {
	domain.Certificate
	Emailed bool
}

// SendableCertificates returns an event's valid certificates at now (all, or those of ids),
// oldest first, holding them until the transaction ends.
func (d queries) SendableCertificates(ctx context.Context, accountID, eventID uuid.UUID, ids []uuid.UUID, now time.Time) ([]SendableCertificate, error) {
	rows, err := d.q.SendableCertificates(ctx, db.SendableCertificatesParams{AccountID: accountID, EventID: eventID, Now: now, Ids: ids})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.SendableCertificatesRow) SendableCertificate {
		return SendableCertificate{Emailed: r.Emailed, Certificate: certificateFrom(db.Certificate{ID: r.ID, AccountID: r.AccountID,
			EventID: r.EventID, AttendeeID: r.AttendeeID, TemplateID: r.TemplateID, CertificateNumber: r.CertificateNumber,
			VerificationCode: r.VerificationCode, Status: r.Status, RecipientFirstName: r.RecipientFirstName,
			RecipientLastName: r.RecipientLastName, RecipientEmail: r.RecipientEmail, Snapshot: r.Snapshot, IssuedAt: r.IssuedAt,
			ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt, RevocationReason: r.RevocationReason,
			RevocationReasonCode: r.RevocationReasonCode, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}, now)}
	}), nil
}

// OutboxEvent is an event waiting in (or dispatched from) the outbox.
type OutboxEvent struct {
	ID         uuid.UUID
	EventType  string
	Payload    json.RawMessage
	OccurredAt time.Time
}

// Outbox records an event of the account in the outbox; when an active subscription takes
// its kind, its webhook fan-out job is queued with it (through River's client), so the event
// is delivered exactly when the transaction commits.
func (t *Tx) Outbox(ctx context.Context, accountID uuid.UUID, eventType string, at time.Time, payload any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	id := newID()
	pending, err := t.q.InsertOutboxEvent(ctx, db.InsertOutboxEventParams{ID: id, AccountID: accountID, EventType: eventType,
		Payload: b, OccurredAt: at})
	if err != nil || !pending {
		return mapError(err)
	}
	return t.InsertJobs(ctx, fanOutJobs([]PlannedEvent{{ID: id}}))
}

// Outbox writes an event in a transaction of its own (see Tx.Outbox).
func (s *Store) Outbox(ctx context.Context, accountID uuid.UUID, eventType string, at time.Time, payload any) error {
	_, err := InTx(ctx, s, func(tx *Tx) (struct{}, error) {
		return struct{}{}, tx.Outbox(ctx, accountID, eventType, at, payload)
	})
	return err
}

// NewEvent is an outbox event of a plan (IssuancePlan.Events): a new id, and payload as JSON.
// An event about a certificate names it (certificateID; uuid.Nil for another).
func NewEvent(certificateID uuid.UUID, payload any) (PlannedEvent, error) {
	b, err := json.Marshal(payload)
	return PlannedEvent{ID: newID(), CertificateID: certificateID, Payload: b}, err
}

// OutboxMany writes one event of eventType per payload, in one statement, and queues their
// fan-out (as Outbox), one job per fanOutBatch events.
func (t *Tx) OutboxMany(ctx context.Context, accountID uuid.UUID, eventType string, at time.Time, payloads []any) error {
	if len(payloads) == 0 {
		return nil
	}
	events := make([]PlannedEvent, len(payloads))
	p := db.InsertOutboxEventsParams{AccountID: accountID, EventType: eventType, OccurredAt: at}
	for i, v := range payloads {
		e, err := NewEvent(uuid.Nil, v)
		if err != nil {
			return err
		}
		events[i] = e
		p.Ids, p.Payloads = append(p.Ids, e.ID), append(p.Payloads, e.Payload)
	}
	pending, err := t.q.InsertOutboxEvents(ctx, p)
	if err != nil || !pending {
		return mapError(err)
	}
	return t.InsertJobs(ctx, fanOutJobs(events))
}

// OutboxEvents lists the account's outbox events, oldest first.
func (d queries) OutboxEvents(ctx context.Context, accountID uuid.UUID) ([]OutboxEvent, error) {
	rows, err := d.q.ListOutboxEvents(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.OutboxEvent) OutboxEvent {
		return OutboxEvent{ID: r.ID, EventType: r.EventType, Payload: r.Payload, OccurredAt: r.OccurredAt}
	}), nil
}

func certificateFrom(r db.Certificate, now time.Time) domain.Certificate {
	return domain.Certificate{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, AttendeeID: r.AttendeeID, TemplateID: r.TemplateID,
		Number: r.CertificateNumber, VerificationCode: r.VerificationCode, Status: domain.CertificateStatusAt(r.Status, r.ExpiresAt, now),
		FirstName: r.RecipientFirstName, LastName: r.RecipientLastName, Email: r.RecipientEmail, Snapshot: r.Snapshot,
		IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt, RevocationReason: r.RevocationReason,
		RevocationReasonCode: r.RevocationReasonCode, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}
