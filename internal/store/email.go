package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// EnqueueEmail records a message for the email worker, due at now. A message with a cause is
// recorded in the transaction of that cause.
func (d queries) EnqueueEmail(ctx context.Context, m domain.OutboundEmail, now time.Time) (domain.EmailDelivery, error) {
	row, err := d.q.EnqueueEmail(ctx, db.EnqueueEmailParams{ID: newID(), AccountID: m.AccountID, Kind: m.Kind,
		CertificateID: m.CertificateID, BadgeAssertionID: m.BadgeAssertionID, ToAddress: m.ToAddress,
		ToName: m.ToName, FromName: m.FromName, ReplyTo: m.ReplyTo, Subject: m.Subject, BodyText: m.BodyText, Now: now})
	if err != nil {
		return domain.EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(row), nil
}

// EmailClaim is what a worker claims: up to Batch messages due at Now, each for Lease. A
// message claimed MaxAttempts times is not claimed again.
type EmailClaim struct {
	Now         time.Time
	Batch       int
	Lease       time.Duration
	MaxAttempts int
}

// ClaimDueEmails takes due messages, counting an attempt on each: a worker that dies leaves
// them due again once the lease has passed, and that attempt stays counted.
func (d queries) ClaimDueEmails(ctx context.Context, c EmailClaim) ([]domain.EmailDelivery, error) {
	rows, err := d.q.ClaimDueEmails(ctx, db.ClaimDueEmailsParams{LeasedUntil: c.Now.Add(c.Lease), Now: c.Now,
		MaxAttempts: int32(c.MaxAttempts), BatchSize: int32(c.Batch)})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), nil
}

// FailLapsedEmails records as failed, with reason, the messages claimed maxAttempts times whose
// last lease ran out at now with no outcome recorded, and returns them.
func (d queries) FailLapsedEmails(ctx context.Context, now time.Time, maxAttempts int, reason string) ([]domain.EmailDelivery, error) {
	rows, err := d.q.FailLapsedEmails(ctx, db.FailLapsedEmailsParams{Now: now, MaxAttempts: int32(maxAttempts), LastError: &reason})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), nil
}

// MarkEmailSent records a message delivered at now and returns it.
func (d queries) MarkEmailSent(ctx context.Context, id uuid.UUID, now time.Time) (domain.EmailDelivery, error) {
	row, err := d.q.MarkEmailSent(ctx, db.MarkEmailSentParams{ID: id, Now: now})
	if err != nil {
		return domain.EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(row), nil
}

// RetryEmailLater records, at now, a temporary failure and when to try again.
func (d queries) RetryEmailLater(ctx context.Context, id uuid.UUID, reason string, at, now time.Time) error {
	return mapError(d.q.RetryEmailLater(ctx, db.RetryEmailLaterParams{ID: id, LastError: &reason, NextAttemptAt: at, Now: now}))
}

// MarkEmailFailed records, at now, a message that will not be delivered.
func (d queries) MarkEmailFailed(ctx context.Context, id uuid.UUID, reason string, now time.Time) error {
	return mapError(d.q.MarkEmailFailed(ctx, db.MarkEmailFailedParams{ID: id, LastError: &reason, Now: now}))
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
			ReplyTo: r.ReplyTo, Subject: r.Subject, BodyText: r.BodyText},
		ID: r.ID, Status: domain.EmailDeliveryStatus(r.Status), Attempts: int(r.Attempts), LastError: r.LastError,
		NextAttemptAt: r.NextAttemptAt, SentAt: r.SentAt, CreatedAt: r.CreatedAt,
	}
}

// ListCredentialEmails returns a page of the account's certificate and badge deliveries,
// newest first, and their total.
func (d queries) ListCredentialEmails(ctx context.Context, accountID uuid.UUID, f domain.EmailFilter, p domain.Page) ([]domain.EmailDelivery, int, error) {
	rows, err := d.q.ListCredentialEmails(ctx, db.ListCredentialEmailsParams{AccountID: accountID, EventID: f.EventID,
		CertificateID: f.CertificateID, Status: (*string)(f.Status), PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	n, err := d.q.CountCredentialEmails(ctx, db.CountCredentialEmailsParams{AccountID: accountID, EventID: f.EventID,
		CertificateID: f.CertificateID, Status: (*string)(f.Status)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), int(n), nil
}
