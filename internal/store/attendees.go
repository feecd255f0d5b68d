package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// CreateAttendee adds an attendee to an event, created at now. Its search row follows (see
// IndexAttendeeSearch).
func (d queries) CreateAttendee(ctx context.Context, accountID, eventID uuid.UUID, f domain.AttendeeFields, now time.Time) (domain.Attendee, error) {
	row, err := d.q.CreateAttendee(ctx, db.CreateAttendeeParams{ID: newID(), AccountID: accountID, EventID: eventID,
		FirstName: f.FirstName, LastName: f.LastName, Email: f.Email, Metadata: metadataJSON(f.Metadata), Now: now})
	if err != nil {
		return domain.Attendee{}, mapError(err)
	}
	return attendeeFrom(row), nil
}

// FindAttendee returns an attendee of the account.
func (d queries) FindAttendee(ctx context.Context, accountID, id uuid.UUID) (domain.Attendee, error) {
	row, err := d.q.GetAttendee(ctx, db.GetAttendeeParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Attendee{}, mapError(err)
	}
	return attendeeFrom(row), nil
}

// ListAttendees returns a page of the account's attendees that f lets through and that match
// p's search, in p's order, and how many match.
func (d queries) ListAttendees(ctx context.Context, accountID uuid.UUID, f domain.AttendeeFilter, p domain.Page) ([]domain.Attendee, int, error) {
	q, err := d.list(attendeeOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	if pattern := containsPattern(p.Q); pattern != nil {
		return d.searchAttendees(ctx, q, accountID, f, p, *pattern)
	}
	rows, err := q.ListAttendees(ctx, db.ListAttendeesParams{AccountID: accountID, EventID: f.EventID, Email: f.Email,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	n, err := d.attendeeTotal(ctx, q, accountID, f, nil)
	return convert(rows, attendeeFrom), int(n), mapError(err)
}

// CountAttendees counts the account's attendees that f lets through.
func (d queries) CountAttendees(ctx context.Context, accountID uuid.UUID, f domain.AttendeeFilter) (int, error) {
	n, err := d.attendeeTotal(ctx, d.q, accountID, f, nil)
	return int(n), mapError(err)
}

// UpdateAttendee changes the fields c sets, at now. A changed name or email reaches the
// attendee's search row shortly after (see IndexAttendeeSearch).
func (d queries) UpdateAttendee(ctx context.Context, accountID, id uuid.UUID, c domain.AttendeeChanges, now time.Time) (domain.Attendee, error) {
	p := db.UpdateAttendeeParams{AccountID: accountID, ID: id, FirstName: c.FirstName, LastName: c.LastName, Email: c.Email, Now: now}
	if c.Metadata != nil {
		p.Metadata = metadataJSON(c.Metadata)
	}
	row, err := d.q.UpdateAttendee(ctx, p)
	if err != nil {
		return domain.Attendee{}, mapError(err)
	}
	return attendeeFrom(row), nil
}

// LockAttendee holds an attendee of the account until the transaction ends, so that nothing
// is issued to them meanwhile.
func (d queries) LockAttendee(ctx context.Context, accountID, id uuid.UUID) (LockedAttendee, error) {
	r, err := d.q.LockAttendee(ctx, db.LockAttendeeParams{AccountID: accountID, ID: id})
	return LockedAttendee{Erased: r.ErasedAt != nil}, mapError(err)
}

// LockedAttendee is what LockAttendee tells of the attendee it holds.
type LockedAttendee struct {
	// Erased: the person was erased at their request.
	Erased bool
}

// ReleaseErasedAttendee lets the credentials of an erased attendee go of them (migration 00044),
// so that the attendee can be deleted while the credentials stay, revoked; an attendee not
// erased keeps theirs.
func (d queries) ReleaseErasedAttendee(ctx context.Context, accountID, id uuid.UUID) error {
	return mapError(d.q.UnlinkErasedAttendee(ctx, db.UnlinkErasedAttendeeParams{AccountID: accountID, ID: id}))
}

// Holdings counts what an attendee was issued: certificates (drafts aside) and badges.
type Holdings struct{ Certificates, Badges int }

// AttendeeHoldings counts an attendee's issued certificates and badges.
func (d queries) AttendeeHoldings(ctx context.Context, accountID, id uuid.UUID) (Holdings, error) {
	h, err := d.q.AttendeeHoldings(ctx, db.AttendeeHoldingsParams{AccountID: accountID, ID: id})
	if err != nil {
		return Holdings{}, mapError(err)
	}
	return Holdings{Certificates: int(h.Certificates), Badges: int(h.Badges)}, nil
}

// DeleteAttendee removes an attendee with their draft certificates. Run it in a transaction.
func (t *Tx) DeleteAttendee(ctx context.Context, accountID, id uuid.UUID) error {
	drafts, err := t.q.DeleteDraftCertificatesOfAttendee(ctx, db.DeleteDraftCertificatesOfAttendeeParams{AccountID: accountID, ID: id})
	if err != nil {
		return mapError(err)
	}
	for _, d := range drafts {
		t.changed(changefeed.Change{Certificate: d.ID, Code: d.VerificationCode})
	}
	return mapError(t.q.DeleteAttendee(ctx, db.DeleteAttendeeParams{AccountID: accountID, ID: id}))
}

// LockEventForAttendees keeps an event of the account from being deleted while attendees are
// added to it, and serialises imports into it, until the transaction ends.
func (d queries) LockEventForAttendees(ctx context.Context, accountID, eventID uuid.UUID) error {
	_, err := d.q.LockEventForAttendees(ctx, db.LockEventForAttendeesParams{AccountID: accountID, ID: eventID})
	return mapError(err)
}

// ImportAttendees adds attendees to an event in one statement, created at now, and answers how
// many it added. The rows are copied into a temporary table first (dropped at the commit),
// then added from it; with once, a row whose email (trimmed and lower-cased, as the lists
// compare it) is already on the event, or on an earlier row, is left out. Run it in the
// transaction that locked the event (LockEventForAttendees): that lock orders the imports into
// one event, so that each sees the emails of those before it.
func (t *Tx) ImportAttendees(ctx context.Context, accountID, eventID uuid.UUID, rows []domain.AttendeeFields, once bool, now time.Time) (int, error) {
	if err := t.q.CreateAttendeeImport(ctx); err != nil {
		return 0, mapError(err)
	}
	staged := make([]db.CopyAttendeeImportParams, len(rows))
	for i, r := range rows {
		// Ids in the file's order: the rows of one import share their created_at, and the
		// lists and exports order them by id after it.
		staged[i] = db.CopyAttendeeImportParams{Ord: int32(i), ID: newID(), FirstName: r.FirstName, LastName: r.LastName,
			Email: r.Email, Metadata: metadataJSON(r.Metadata)}
	}
	if _, err := t.q.CopyAttendeeImport(ctx, staged); err != nil {
		return 0, mapError(err)
	}
	var added int64
	var err error
	if once {
		added, err = t.q.InsertImportedAttendeesOnce(ctx, db.InsertImportedAttendeesOnceParams{AccountID: accountID, EventID: eventID, Now: now})
	} else {
		added, err = t.q.InsertImportedAttendees(ctx, db.InsertImportedAttendeesParams{AccountID: accountID, EventID: eventID, Now: now})
	}
	return int(added), mapError(err)
}

// ExportRow is one attendee of an export with the certificate that best describes them.
type ExportRow struct {
	domain.Attendee
	CertificateStatus domain.CertificateStatus // "" when the attendee has none
	CertificateNumber string
	VerificationCode  string
}

// ExportCursor is a position in an event's attendees, oldest first: the next batch starts
// after (CreatedAt, ID). Its zero value is the start.
type ExportCursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// EventMetadataKeys returns the metadata keys of the event's attendees created at or before
// until, sorted.
func (d queries) EventMetadataKeys(ctx context.Context, eventID uuid.UUID, until time.Time) ([]string, error) {
	keys, err := d.q.EventMetadataKeys(ctx, db.EventMetadataKeysParams{EventID: eventID, Until: until})
	return keys, mapError(err)
}

// ExportAttendees reads one batch of up to n attendees of the event created at or before
// until, after the cursor, oldest first, each with the status its certificate has at now; and
// the cursor after the batch. One short statement: no transaction stays open between batches.
func (d queries) ExportAttendees(ctx context.Context, eventID uuid.UUID, until time.Time, after ExportCursor, n int, now time.Time) ([]ExportRow, ExportCursor, error) {
	if after.CreatedAt.IsZero() {
		after.CreatedAt = time.Unix(0, 0)
	}
	batch, err := d.q.ExportAttendees(ctx, db.ExportAttendeesParams{EventID: eventID, Until: until, AfterCreatedAt: after.CreatedAt,
		AfterID: after.ID, BatchSize: int32(n)})
	if err != nil {
		return nil, after, mapError(err)
	}
	out := make([]ExportRow, len(batch))
	for i, r := range batch {
		out[i] = ExportRow{Attendee: domain.Attendee{ID: r.ID, EventID: eventID, FirstName: r.FirstName, LastName: r.LastName,
			Email: r.Email, Metadata: metadataMap(r.Metadata), CreatedAt: r.CreatedAt},
			CertificateStatus: domain.CertificateStatusAt(r.CertificateStatus, r.CertificateExpiresAt, now),
			CertificateNumber: r.CertificateNumber, VerificationCode: r.VerificationCode}
	}
	if len(batch) > 0 {
		last := batch[len(batch)-1]
		after = ExportCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return out, after, nil
}

func attendeeFrom(r db.Attendee) domain.Attendee {
	return domain.Attendee{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, FirstName: r.FirstName, LastName: r.LastName,
		Email: r.Email, Metadata: metadataMap(r.Metadata), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ErasedAt: r.ErasedAt}
}

// noMetadata is the column's value for an attendee without metadata: an import's rows need
// not marshal an empty map each.
const noMetadata = "{}"

func metadataJSON(m map[string]string) []byte {
	if len(m) == 0 {
		return []byte(noMetadata)
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return b
}

func metadataMap(b []byte) map[string]string {
	m := map[string]string{}
	_ = json.Unmarshal(b, &m) // the column holds an object of strings, checked on the way in
	return m
}
