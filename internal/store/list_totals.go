package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// The totals of the attendee and certificate lists that no search or narrow filter asks for
// are read from the rows migration 00025's triggers keep (list_totals), not counted: counting
// the 200,000 certificates of a large account takes 20-30 ms whatever the plan. A list with a
// search or another filter counts its rows, which its indexes bound.

// wholeAccount is the event under which list_totals keeps an account's totals.
var wholeAccount = uuid.Nil

// storedStatuses are the certificate statuses a status filter lists, as stored.
var storedStatuses = map[domain.CertificateStatus][]string{
	domain.CertificateDraft:   {domain.StoredCertificateDraft},
	domain.CertificateRevoked: {domain.StoredCertificateRevoked},
	domain.CertificateValid:   {domain.StoredCertificateIssued},
	domain.CertificateExpired: {domain.StoredCertificateExpired},
}

var allCertificateStatuses = []string{domain.StoredCertificateDraft, domain.StoredCertificateIssued,
	domain.StoredCertificateExpired, domain.StoredCertificateRevoked}

// attendeeTotal counts the attendees f lets through (q counts them when it must: a list's
// queries), from list_totals when f is at most an event.
func (d queries) attendeeTotal(ctx context.Context, q *db.Queries, accountID uuid.UUID, f domain.AttendeeFilter, pattern *string) (int64, error) {
	if f.Email != nil || pattern != nil {
		return q.CountAttendees(ctx, db.CountAttendeesParams{AccountID: accountID, EventID: f.EventID, Email: f.Email, Pattern: pattern})
	}
	return d.q.SumListTotal(ctx, db.SumListTotalParams{AccountID: accountID, List: "attendees", EventID: eventOrAccount(f.EventID), Statuses: []string{""}})
}

// certificateTotal counts the certificates arg lets through, from list_totals when it filters
// by no more than an event and a status. Issued certificates past their expiry are stored as
// issued and listed as expired: those are counted by their index and moved across.
func (d queries) certificateTotal(ctx context.Context, q *db.Queries, arg db.CountCertificatesParams) (int64, error) {
	if arg.AttendeeID != nil || arg.TemplateID != nil || arg.IssuedFrom != nil || arg.IssuedBefore != nil || arg.Pattern != nil {
		return q.CountCertificates(ctx, arg)
	}
	statuses := allCertificateStatuses
	if arg.Status != nil {
		statuses = storedStatuses[domain.CertificateStatus(*arg.Status)]
	}
	n, err := d.q.SumListTotal(ctx, db.SumListTotalParams{AccountID: arg.AccountID, List: "certificates", EventID: eventOrAccount(arg.EventID), Statuses: statuses})
	if err != nil || arg.Status == nil {
		return n, err
	}
	var sign int64
	switch domain.CertificateStatus(*arg.Status) {
	case domain.CertificateValid:
		sign = -1
	case domain.CertificateExpired:
		sign = 1
	default:
		return n, nil
	}
	past, err := d.q.CountCertificatesPastExpiry(ctx, db.CountCertificatesPastExpiryParams{AccountID: arg.AccountID, Now: arg.Now, EventID: arg.EventID})
	return n + sign*past, err
}

func eventOrAccount(event *uuid.UUID) uuid.UUID {
	if event == nil {
		return wholeAccount
	}
	return *event
}
