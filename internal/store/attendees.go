package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// Attendee is a person attending an event.
type Attendee struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	EventID   uuid.UUID
	FirstName string
	LastName  string
	Email     string
	Metadata  map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AttendeeFields are what creating an attendee sets.
type AttendeeFields struct {
	FirstName, LastName, Email string
	Metadata                   map[string]string
}

// AttendeeChanges are the fields an update changes; nil leaves a field as it is.
type AttendeeChanges struct {
	FirstName, LastName, Email *string
	Metadata                   map[string]string // nil: unchanged; otherwise replaces the map
}

// CreateAttendee adds an attendee to an event of the account.
func (s *Store) CreateAttendee(ctx context.Context, accountID, eventID uuid.UUID, f AttendeeFields) (Attendee, error) {
	var row db.Attendee
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if _, err := q.LockEventForAttendees(ctx, db.LockEventForAttendeesParams{AccountID: accountID, ID: eventID}); err != nil {
			return notFoundAt(err, "event", "body.eventId", noSuchEvent)
		}
		var err error
		row, err = q.CreateAttendee(ctx, db.CreateAttendeeParams{ID: newID(), AccountID: accountID, EventID: eventID,
			FirstName: f.FirstName, LastName: f.LastName, Email: f.Email, Metadata: metadataJSON(f.Metadata)})
		return err
	})
	return attendeeFrom(row), err
}

// FindAttendee returns an attendee of the account.
func (s *Store) FindAttendee(ctx context.Context, accountID, id uuid.UUID) (Attendee, error) {
	row, err := s.q.GetAttendee(ctx, db.GetAttendeeParams{AccountID: accountID, ID: id})
	if err != nil {
		return Attendee{}, notFoundAs(err, "attendee")
	}
	return attendeeFrom(row), nil
}

// ListAttendees returns a page of the account's attendees, of one event when eventID is set,
// newest first, and how many there are.
func (s *Store) ListAttendees(ctx context.Context, accountID uuid.UUID, eventID *uuid.UUID, p Page) ([]Attendee, int, error) {
	rows, err := s.q.ListAttendees(ctx, db.ListAttendeesParams{AccountID: accountID, EventID: eventID,
		PageSize: p.limit(), PageOffset: p.offset()})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := s.CountAttendees(ctx, accountID, eventID)
	return convert(rows, attendeeFrom), total, err
}

// CountAttendees counts the account's attendees, of one event when eventID is set.
func (s *Store) CountAttendees(ctx context.Context, accountID uuid.UUID, eventID *uuid.UUID) (int, error) {
	n, err := s.q.CountAttendees(ctx, db.CountAttendeesParams{AccountID: accountID, EventID: eventID})
	return int(n), mapError(err)
}

// UpdateAttendee changes the fields c sets.
func (s *Store) UpdateAttendee(ctx context.Context, accountID, id uuid.UUID, c AttendeeChanges) (Attendee, error) {
	p := db.UpdateAttendeeParams{AccountID: accountID, ID: id, FirstName: c.FirstName, LastName: c.LastName, Email: c.Email}
	if c.Metadata != nil {
		p.Metadata = metadataJSON(c.Metadata)
	}
	row, err := s.q.UpdateAttendee(ctx, p)
	if err != nil {
		return Attendee{}, notFoundAs(err, "attendee")
	}
	return attendeeFrom(row), nil
}

// DeleteAttendee removes an attendee and their draft certificates. One who holds an issued
// certificate or a badge stays: 409, and nothing is removed.
func (s *Store) DeleteAttendee(ctx context.Context, accountID, id uuid.UUID) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		if _, err := q.LockAttendee(ctx, db.LockAttendeeParams{AccountID: accountID, ID: id}); err != nil {
			return notFoundAs(err, "attendee")
		}
		held, err := q.AttendeeHoldings(ctx, db.AttendeeHoldingsParams{AccountID: accountID, ID: id})
		if err != nil {
			return err
		}
		if held.Certificates > 0 {
			return apperr.New(apperr.AttendeeHasCerts, "The attendee holds %d issued certificates; issued certificates are never erased, so the attendee stays.", held.Certificates)
		}
		if held.Badges > 0 {
			return apperr.New(apperr.AttendeeHasBadges, "The attendee was issued %d badges; issued badges are never erased, so the attendee stays.", held.Badges)
		}
		if err := q.DeleteDraftCertificatesOfAttendee(ctx, db.DeleteDraftCertificatesOfAttendeeParams{AccountID: accountID, ID: id}); err != nil {
			return err
		}
		return q.DeleteAttendee(ctx, db.DeleteAttendeeParams{AccountID: accountID, ID: id})
	})
}

// ImportPlan decides, inside the import's transaction, which rows to add: it receives the
// normalised emails already on the event and returns the attendees to insert.
type ImportPlan func(existing map[string]struct{}) ([]AttendeeFields, error)

// ImportAttendees adds attendees to an event in one transaction with COPY. The event row is
// locked first, so concurrent imports into one event see each other's rows.
func (s *Store) ImportAttendees(ctx context.Context, accountID, eventID uuid.UUID, plan ImportPlan) (int, error) {
	var added int
	err := s.WithTx(ctx, func(q *db.Queries) error {
		if _, err := q.LockEventForAttendees(ctx, db.LockEventForAttendeesParams{AccountID: accountID, ID: eventID}); err != nil {
			return notFoundAt(err, "event", "query.eventId", noSuchEvent)
		}
		emails, err := q.EventAttendeeEmails(ctx, eventID)
		if err != nil {
			return err
		}
		existing := make(map[string]struct{}, len(emails))
		for _, e := range emails {
			if e != nil {
				existing[*e] = struct{}{}
			}
		}
		rows, err := plan(existing)
		if err != nil || len(rows) == 0 {
			return err
		}
		now := time.Now().UTC()
		params := make([]db.CopyAttendeesParams, len(rows))
		for i, r := range rows {
			params[i] = db.CopyAttendeesParams{ID: newID(), AccountID: accountID, EventID: eventID, FirstName: r.FirstName,
				LastName: r.LastName, Email: r.Email, Metadata: metadataJSON(r.Metadata), CreatedAt: now, UpdatedAt: now}
		}
		n, err := q.CopyAttendees(ctx, params)
		added = int(n)
		return err
	})
	return added, err
}

// ExportRow is one attendee of an export with the certificate that best describes them.
type ExportRow struct {
	Attendee
	CertificateStatus string // "", "draft", "valid", "expired" or "revoked"
	CertificateNumber string
	VerificationCode  string
}

const exportBatch = 1000

// ExportAttendees calls header with the event's metadata keys and then row for each attendee,
// oldest first, reading in batches from one snapshot: memory stays bounded whatever the size.
func (s *Store) ExportAttendees(ctx context.Context, eventID uuid.UUID, header func(metadataKeys []string) error, row func(ExportRow) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return mapError(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	q := s.q.WithTx(tx)
	keys, err := q.EventMetadataKeys(ctx, eventID)
	if err != nil {
		return mapError(err)
	}
	if err := header(keys); err != nil {
		return err
	}
	now := time.Now()
	after := db.ExportAttendeesParams{EventID: eventID, AfterCreatedAt: time.Unix(0, 0), BatchSize: exportBatch}
	for {
		batch, err := q.ExportAttendees(ctx, after)
		if err != nil {
			return mapError(err)
		}
		for _, r := range batch {
			out := ExportRow{Attendee: Attendee{ID: r.ID, EventID: eventID, FirstName: r.FirstName, LastName: r.LastName,
				Email: r.Email, Metadata: metadataMap(r.Metadata), CreatedAt: r.CreatedAt},
				CertificateStatus: certificateStatus(r.CertificateStatus, r.CertificateExpiresAt, now),
				CertificateNumber: r.CertificateNumber, VerificationCode: r.VerificationCode}
			if err := row(out); err != nil {
				return err
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
		last := batch[len(batch)-1]
		after.AfterCreatedAt, after.AfterID = last.CreatedAt, last.ID
	}
}

// certificateStatus is the status a client sees: an issued certificate past its expiry reads
// as expired.
func certificateStatus(stored string, expiresAt *time.Time, now time.Time) string {
	switch {
	case stored == "issued" && expiresAt != nil && !now.Before(*expiresAt):
		return "expired"
	case stored == "issued":
		return "valid"
	}
	return stored
}

func attendeeFrom(r db.Attendee) Attendee {
	return Attendee{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, FirstName: r.FirstName, LastName: r.LastName,
		Email: r.Email, Metadata: metadataMap(r.Metadata), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func metadataJSON(m map[string]string) []byte {
	if m == nil {
		m = map[string]string{}
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return b
}

func metadataMap(b []byte) map[string]string {
	m := map[string]string{}
	_ = json.Unmarshal(b, &m) // the column holds an object of strings, checked on the way in
	return m
}
