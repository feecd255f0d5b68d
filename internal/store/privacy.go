package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// ErasedEmail is the address that stands for an erased attendee's.
func ErasedEmail(attendeeID uuid.UUID) string { return "erased+" + attendeeID.String() + "@invalid" }

// ErasedCredential is a credential of an erased person.
type ErasedCredential struct {
	ID, BadgeID uuid.UUID // BadgeID: an assertion's badge
	Code        string
	Status      string
}

// ErasedDelivery is an email about an erased person, whose file the erasure job deletes.
type ErasedDelivery struct {
	ID        uuid.UUID
	CreatedAt time.Time
}

// Erasure is what ErasePerson replaced.
type Erasure struct {
	AttendeeID   uuid.UUID
	Certificates []ErasedCredential
	Assertions   []ErasedCredential
	Deliveries   []ErasedDelivery
	// Rows counts the rows changed or deleted.
	Rows int
}

// AttendeeToErase is an attendee held for erasure: ErasedAt is set when it was erased already.
type AttendeeToErase struct {
	ID       uuid.UUID
	Email    string
	ErasedAt *time.Time
}

// LockAttendeeForErasure holds an attendee of the account until the transaction ends.
// ErrNotFound: no such attendee.
func (t *Tx) LockAttendeeForErasure(ctx context.Context, accountID, id uuid.UUID) (AttendeeToErase, error) {
	r, err := t.q.LockAttendeeForErasure(ctx, db.LockAttendeeForErasureParams{AccountID: accountID, ID: id})
	if err != nil {
		return AttendeeToErase{}, mapError(err)
	}
	return AttendeeToErase{ID: r.ID, Email: deref(r.EmailNormalized), ErasedAt: r.ErasedAt}, nil
}

// AttendeesOfEmail returns the ids of the account's attendees of an address (compared as
// attendees' addresses are).
func (d queries) AttendeesOfEmail(ctx context.Context, accountID uuid.UUID, email string) ([]uuid.UUID, error) {
	ids, err := d.q.AttendeesOfEmail(ctx, db.AttendeesOfEmailParams{AccountID: accountID, Email: email})
	return ids, mapError(err)
}

// ErasePerson replaces an attendee's data, at now, in the attendee and every copy: their
// certificates (snapshots included) and assertions (whose identity salt goes), the search
// rows, the emails of their credentials and to their address, the wallets that claimed their
// credentials, and bulk jobs' errors; it deletes the webhook deliveries, outbox events and
// stored idempotent answers that name them. Revoking their credentials is the caller's.
//
// byAddress is the address of an erasure by address, which erases every attendee of it: the
// emails sent to it go too. An erasure of one attendee ("") replaces only the emails of their
// credentials, since another attendee of the account may share the address.
func (t *Tx) ErasePerson(ctx context.Context, accountID uuid.UUID, a AttendeeToErase, byAddress string, now time.Time) (Erasure, error) {
	erased := ErasedEmail(a.ID)
	out := Erasure{AttendeeID: a.ID}
	if err := t.q.EraseAttendee(ctx, db.EraseAttendeeParams{AccountID: accountID, ID: a.ID, ErasedEmail: erased, Now: now}); err != nil {
		return out, mapError(err)
	}
	if err := t.q.EraseAttendeeSearch(ctx, db.EraseAttendeeSearchParams{ID: a.ID, ErasedEmail: erased}); err != nil {
		return out, mapError(err)
	}
	certs, err := t.q.EraseCertificates(ctx, db.EraseCertificatesParams{AccountID: accountID, AttendeeID: a.ID, ErasedEmail: erased, Now: now})
	if err != nil {
		return out, mapError(err)
	}
	// What names the person in a stored body: their ids and codes, never their address (a
	// substring of others' addresses: ann@x.com is in joann@x.com).
	needles := []string{a.ID.String()}
	certIDs := make([]uuid.UUID, len(certs))
	for i, c := range certs {
		certIDs[i] = c.ID
		out.Certificates = append(out.Certificates, ErasedCredential{ID: c.ID, Code: c.VerificationCode, Status: c.Status})
		needles = append(needles, c.ID.String(), c.VerificationCode)
		t.changed(changefeed.Change{Certificate: c.ID, Code: c.VerificationCode})
	}
	if err := t.q.EraseCertificateSearch(ctx, certIDs); err != nil {
		return out, mapError(err)
	}
	assertions, err := t.q.EraseAssertions(ctx, db.EraseAssertionsParams{AccountID: accountID, AttendeeID: a.ID, ErasedEmail: erased})
	if err != nil {
		return out, mapError(err)
	}
	assertionIDs := make([]uuid.UUID, len(assertions))
	for i, b := range assertions {
		assertionIDs[i] = b.ID
		out.Assertions = append(out.Assertions, ErasedCredential{ID: b.ID, BadgeID: b.BadgeID, Code: b.VerificationCode, Status: b.Status})
		needles = append(needles, b.ID.String(), b.VerificationCode)
		t.changed(changefeed.Change{Code: b.VerificationCode})
	}
	deliveries, err := t.q.EraseEmailDeliveries(ctx, db.EraseEmailDeliveriesParams{AccountID: accountID, ErasedEmail: erased,
		CertificateIds: certIDs, AssertionIds: assertionIDs, Email: byAddress, Now: now})
	if err != nil {
		return out, mapError(err)
	}
	for _, d := range deliveries {
		out.Deliveries = append(out.Deliveries, ErasedDelivery{ID: d.ID, CreatedAt: d.CreatedAt})
	}
	if err := t.q.EraseWalletHolders(ctx, db.EraseWalletHoldersParams{CertificateIds: certIDs, AssertionIds: assertionIDs}); err != nil {
		return out, mapError(err)
	}
	hooks, err := t.q.DeleteWebhookDeliveriesAbout(ctx, db.DeleteWebhookDeliveriesAboutParams{AccountID: accountID, Needles: needles})
	if err != nil {
		return out, mapError(err)
	}
	events, err := t.q.DeleteOutboxEventsAbout(ctx, db.DeleteOutboxEventsAboutParams{AccountID: accountID, Needles: needles})
	if err != nil {
		return out, mapError(err)
	}
	answers, err := t.q.DeleteIdempotentAnswersAbout(ctx, db.DeleteIdempotentAnswersAboutParams{AccountID: accountID, Needles: needles})
	if err != nil {
		return out, mapError(err)
	}
	if err := t.q.EraseBulkErrors(ctx, db.EraseBulkErrorsParams{AccountID: accountID, AttendeeID: a.ID}); err != nil {
		return out, mapError(err)
	}
	if err := t.q.EraseBulkJobErrors(ctx, db.EraseBulkJobErrorsParams{AccountID: accountID, AttendeeKey: a.ID.String()}); err != nil {
		return out, mapError(err)
	}
	out.Rows = 1 + len(certs) + len(assertions) + len(deliveries) + int(hooks+events+answers)
	return out, nil
}

// AssertionsOfAttendee returns every badge assertion issued to an attendee, newest first.
func (d queries) AssertionsOfAttendee(ctx context.Context, accountID, attendeeID uuid.UUID) ([]domain.BadgeAssertion, error) {
	rows, err := d.q.AssertionsOfAttendee(ctx, db.AssertionsOfAttendeeParams{AccountID: accountID, AttendeeID: attendeeID})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, badgeAssertionFrom), nil
}

// EmailsOfAttendee returns the emails of an attendee's certificates and badge assertions,
// newest first.
func (d queries) EmailsOfAttendee(ctx context.Context, accountID, attendeeID uuid.UUID) ([]domain.EmailDelivery, error) {
	rows, err := d.q.EmailsOfAttendee(ctx, db.EmailsOfAttendeeParams{AccountID: accountID, AttendeeID: attendeeID})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), nil
}
