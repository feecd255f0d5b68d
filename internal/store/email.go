package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
)

// EnqueueEmail records a message, due at now, and queues the job that sends it. A message
// with a cause is recorded in the transaction of that cause.
func (t *Tx) EnqueueEmail(ctx context.Context, m domain.OutboundEmail, now time.Time) (domain.EmailDelivery, error) {
	row, err := t.q.EnqueueEmail(ctx, db.EnqueueEmailParams{ID: newID(), AccountID: m.AccountID, Kind: m.Kind,
		CertificateID: m.CertificateID, BadgeAssertionID: m.BadgeAssertionID, ToAddress: m.ToAddress,
		ToName: m.ToName, FromName: m.FromName, ReplyTo: m.ReplyTo, Subject: m.Subject, BodyText: m.BodyText, Locale: localeOr(m.Locale), Now: now})
	if err != nil {
		return domain.EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(row), t.InsertJob(ctx, jobs.SendEmail{DeliveryID: row.ID})
}

// EnqueueEmail records a message and its job in a transaction of their own (see Tx.EnqueueEmail).
func (s *Store) EnqueueEmail(ctx context.Context, m domain.OutboundEmail, now time.Time) (domain.EmailDelivery, error) {
	return InTx(ctx, s, func(tx *Tx) (domain.EmailDelivery, error) { return tx.EnqueueEmail(ctx, m, now) })
}

// EmailByID returns a message, whatever its account.
func (d queries) EmailByID(ctx context.Context, id uuid.UUID) (domain.EmailDelivery, error) {
	row, err := d.q.GetEmailDeliveryByID(ctx, id)
	if err != nil {
		return domain.EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(row), nil
}

// MarkEmailSent records a queued message delivered at now by its attempt numbered attempt, and
// returns it; ErrNotFound when it is no longer queued.
func (d queries) MarkEmailSent(ctx context.Context, id uuid.UUID, attempt int, now time.Time) (domain.EmailDelivery, error) {
	row, err := d.q.MarkEmailSent(ctx, db.MarkEmailSentParams{ID: id, Attempts: int32(attempt), Now: now})
	if err != nil {
		return domain.EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(row), nil
}

// RetryEmailLater records, at now, the temporary failure of a queued message's attempt
// numbered attempt, and when to try again.
func (d queries) RetryEmailLater(ctx context.Context, id uuid.UUID, attempt int, reason string, at, now time.Time) error {
	return mapError(d.q.RetryEmailLater(ctx, db.RetryEmailLaterParams{ID: id, Attempts: int32(attempt), LastError: &reason,
		NextAttemptAt: at, Now: now}))
}

// MarkEmailFailed records, at now, a queued message that will not be delivered, after attempts
// attempts.
func (d queries) MarkEmailFailed(ctx context.Context, id uuid.UUID, attempts int, reason string, now time.Time) error {
	return mapError(d.q.MarkEmailFailed(ctx, db.MarkEmailFailedParams{ID: id, Attempts: int32(attempts), LastError: &reason, Now: now}))
}

// FindEmailDelivery returns a message of the account.
func (d queries) FindEmailDelivery(ctx context.Context, accountID, id uuid.UUID) (domain.EmailDelivery, error) {
	r, err := d.q.GetEmailDelivery(ctx, db.GetEmailDeliveryParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(r), nil
}

func emailDeliveryFrom(r db.EmailDelivery) domain.EmailDelivery {
	return domain.EmailDelivery{
		OutboundEmail: domain.OutboundEmail{AccountID: r.AccountID, Kind: r.Kind, CertificateID: r.CertificateID,
			BadgeAssertionID: r.BadgeAssertionID, ToAddress: r.ToAddress, ToName: r.ToName, FromName: r.FromName,
			ReplyTo: r.ReplyTo, Subject: r.Subject, BodyText: r.BodyText, Locale: r.Locale},
		ID: r.ID, Status: domain.EmailDeliveryStatus(r.Status), Attempts: int(r.Attempts), LastError: r.LastError,
		NextAttemptAt: r.NextAttemptAt, SentAt: r.SentAt, CreatedAt: r.CreatedAt,
	}
}

// ListCredentialEmails returns a page of the account's certificate and badge deliveries,
// in p's order, and their total.
func (d queries) ListCredentialEmails(ctx context.Context, accountID uuid.UUID, f domain.EmailFilter, p domain.Page) ([]domain.EmailDelivery, int, error) {
	q, err := d.list(emailOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.ListCredentialEmails(ctx, db.ListCredentialEmailsParams{AccountID: accountID, EventID: f.EventID,
		CertificateID: f.CertificateID, Status: (*string)(f.Status), PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	n, err := q.CountCredentialEmails(ctx, db.CountCredentialEmailsParams{AccountID: accountID, EventID: f.EventID,
		CertificateID: f.CertificateID, Status: (*string)(f.Status)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), int(n), nil
}
