package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
)

// OutboundEmail is a message to record for the email worker.
type OutboundEmail struct {
	AccountID        uuid.UUID
	Kind             string // certificate, badge, api_key_created, notice
	CertificateID    *uuid.UUID
	BadgeAssertionID *uuid.UUID
	ToAddress        string
	ToName           string
	FromName         string
	ReplyTo          *string
	Subject          string
	BodyText         string
}

// EmailDelivery is a recorded message and how its delivery went.
type EmailDelivery struct {
	OutboundEmail
	ID            uuid.UUID
	Status        string // queued, sent, failed
	Attempts      int
	LastError     *string
	NextAttemptAt time.Time
	SentAt        *time.Time
	CreatedAt     time.Time
}

func enqueueEmail(ctx context.Context, q *db.Queries, m OutboundEmail) (EmailDelivery, error) {
	row, err := q.EnqueueEmail(ctx, db.EnqueueEmailParams{ID: newID(), AccountID: m.AccountID, Kind: m.Kind,
		CertificateID: m.CertificateID, BadgeAssertionID: m.BadgeAssertionID, ToAddress: m.ToAddress,
		ToName: m.ToName, FromName: m.FromName, ReplyTo: m.ReplyTo, Subject: m.Subject, BodyText: m.BodyText})
	return emailDeliveryFrom(row), err
}

// EnqueueEmail records one message on its own (a caller with a cause to commit alongside uses
// the transaction of that cause instead).
func (s *Store) EnqueueEmail(ctx context.Context, m OutboundEmail) (EmailDelivery, error) {
	d, err := enqueueEmail(ctx, s.q, m)
	return d, mapError(err)
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
func (s *Store) ClaimDueEmails(ctx context.Context, c EmailClaim) ([]EmailDelivery, error) {
	rows, err := s.q.ClaimDueEmails(ctx, db.ClaimDueEmailsParams{LeasedUntil: c.Now.Add(c.Lease), Now: c.Now,
		MaxAttempts: int32(c.MaxAttempts), BatchSize: int32(c.Batch)})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), nil
}

// FailLapsedEmails records as failed, with reason, the messages claimed maxAttempts times whose
// last lease ran out at now with no outcome recorded, and returns them.
func (s *Store) FailLapsedEmails(ctx context.Context, now time.Time, maxAttempts int, reason string) ([]EmailDelivery, error) {
	rows, err := s.q.FailLapsedEmails(ctx, db.FailLapsedEmailsParams{Now: now, MaxAttempts: int32(maxAttempts), LastError: &reason})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), nil
}

// MarkEmailSent records a delivered message. A certificate's delivery email writes the
// certificate.sent event to the outbox in the same transaction.
func (s *Store) MarkEmailSent(ctx context.Context, id uuid.UUID) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		d, err := q.MarkEmailSent(ctx, id)
		if err != nil || d.Kind != "certificate" || d.CertificateID == nil {
			return err
		}
		c, err := q.GetCertificateByID(ctx, *d.CertificateID)
		if err != nil {
			return err
		}
		at := time.Now().UTC()
		if d.SentAt != nil {
			at = d.SentAt.UTC()
		}
		cert := certificateFrom(c, at)
		return (&Tx{q: q}).Outbox(ctx, d.AccountID, "certificate.sent", at, map[string]any{
			"eventType": "certificate.sent", "timestamp": at.Format(time.RFC3339),
			"data": map[string]any{"certificateId": cert.ID, "certificateNumber": cert.Number, "eventId": cert.EventID,
				"attendeeId": cert.AttendeeID, "status": cert.Status, "verificationCode": cert.VerificationCode, "emailDeliveryId": d.ID}})
	})
}

// RetryEmailLater records a temporary failure and when to try again.
func (s *Store) RetryEmailLater(ctx context.Context, id uuid.UUID, reason string, at time.Time) error {
	return mapError(s.q.RetryEmailLater(ctx, db.RetryEmailLaterParams{ID: id, LastError: &reason, NextAttemptAt: at}))
}

// MarkEmailFailed records a message that will not be delivered.
func (s *Store) MarkEmailFailed(ctx context.Context, id uuid.UUID, reason string) error {
	return mapError(s.q.MarkEmailFailed(ctx, db.MarkEmailFailedParams{ID: id, LastError: &reason}))
}

// FindEmailDelivery returns a message of the account.
func (s *Store) FindEmailDelivery(ctx context.Context, accountID, id uuid.UUID) (EmailDelivery, error) {
	r, err := s.q.GetEmailDelivery(ctx, db.GetEmailDeliveryParams{AccountID: accountID, ID: id})
	if err != nil {
		return EmailDelivery{}, mapError(err)
	}
	return emailDeliveryFrom(r), nil
}

func emailDeliveryFrom(r db.EmailDelivery) EmailDelivery {
	return EmailDelivery{
		OutboundEmail: OutboundEmail{AccountID: r.AccountID, Kind: r.Kind, CertificateID: r.CertificateID,
			BadgeAssertionID: r.BadgeAssertionID, ToAddress: r.ToAddress, ToName: r.ToName, FromName: r.FromName,
			ReplyTo: r.ReplyTo, Subject: r.Subject, BodyText: r.BodyText},
		ID: r.ID, Status: r.Status, Attempts: int(r.Attempts), LastError: r.LastError,
		NextAttemptAt: r.NextAttemptAt, SentAt: r.SentAt, CreatedAt: r.CreatedAt,
	}
}

// EmailFilter narrows a list of credential deliveries.
type EmailFilter struct {
	EventID, CertificateID *uuid.UUID
	Status                 *string
}

// ListCredentialEmails returns a page of the account's certificate and badge deliveries,
// newest first, and their total.
func (s *Store) ListCredentialEmails(ctx context.Context, accountID uuid.UUID, f EmailFilter, p Page) ([]EmailDelivery, int, error) {
	rows, err := s.q.ListCredentialEmails(ctx, db.ListCredentialEmailsParams{AccountID: accountID, EventID: f.EventID,
		CertificateID: f.CertificateID, Status: f.Status, PageSize: p.limit(), PageOffset: p.offset()})
	if err != nil {
		return nil, 0, mapError(err)
	}
	n, err := s.q.CountCredentialEmails(ctx, db.CountCredentialEmailsParams{AccountID: accountID, EventID: f.EventID,
		CertificateID: f.CertificateID, Status: f.Status})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, emailDeliveryFrom), int(n), nil
}

// SendCertificates records, in one transaction, the delivery email of each valid certificate
// of an event (or of those named), skipping those already emailed when onlyUnsent is set.
func (s *Store) SendCertificates(ctx context.Context, accountID, eventID uuid.UUID, ids []uuid.UUID, onlyUnsent bool, now time.Time,
	record func(ctx context.Context, tx *Tx, c Certificate) (EmailDelivery, error)) (queued, skipped int, err error) {
	err = s.WithTx(ctx, func(q *db.Queries) error {
		rows, err := q.SendableCertificates(ctx, db.SendableCertificatesParams{AccountID: accountID, EventID: eventID, Now: now, Ids: ids})
		if err != nil {
			return err
		}
		if ids != nil {
			skipped = len(ids) - len(rows)
		}
		for _, r := range rows {
			if onlyUnsent && r.Emailed {
				skipped++
				continue
			}
			c := certificateFrom(db.Certificate{ID: r.ID, AccountID: r.AccountID, EventID: r.EventID, AttendeeID: r.AttendeeID,
				TemplateID: r.TemplateID, CertificateNumber: r.CertificateNumber, VerificationCode: r.VerificationCode, Status: r.Status,
				RecipientFirstName: r.RecipientFirstName, RecipientLastName: r.RecipientLastName, RecipientEmail: r.RecipientEmail,
				Snapshot: r.Snapshot, IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}, now)
			if _, err := record(ctx, &Tx{q: q}, c); err != nil {
				return err
			}
			queued++
		}
		return nil
	})
	return queued, skipped, err
}
