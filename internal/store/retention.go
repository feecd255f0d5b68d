package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

func retentionFrom(r db.RetentionSetting) domain.Retention {
	out := domain.Retention{EmailBodiesDays: int(r.EmailBodiesDays), WebhookPayloadsDays: int(r.WebhookPayloadsDays),
		AuditLogDays: int(r.AuditLogDays), PendingFrom: r.PendingFrom, UpdatedAt: &r.UpdatedAt}
	if r.PendingAuditLogDays != nil {
		d := int(*r.PendingAuditLogDays)
		out.PendingAuditLogDays = &d
	}
	return out
}

// LockRetention returns the account's retention, holding it until the transaction ends; the
// defaults when it never changed.
func (d queries) LockRetention(ctx context.Context, accountID uuid.UUID) (domain.Retention, error) {
	r, err := d.q.LockRetention(ctx, accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.DefaultRetention, nil
	} else if err != nil {
		return domain.Retention{}, mapError(err)
	}
	return retentionFrom(r), nil
}

// GetRetention returns the account's retention; the defaults when it never changed.
func (d queries) GetRetention(ctx context.Context, accountID uuid.UUID) (domain.Retention, error) {
	r, err := d.q.GetRetention(ctx, accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.DefaultRetention, nil
	} else if err != nil {
		return domain.Retention{}, mapError(err)
	}
	return retentionFrom(r), nil
}

// PutRetention stores the account's retention, changed at now.
func (d queries) PutRetention(ctx context.Context, accountID uuid.UUID, r domain.Retention, now time.Time) (domain.Retention, error) {
	var pending *int32
	if r.PendingAuditLogDays != nil {
		p := int32(*r.PendingAuditLogDays)
		pending = &p
	}
	row, err := d.q.PutRetention(ctx, db.PutRetentionParams{AccountID: accountID, EmailBodiesDays: int32(r.EmailBodiesDays),
		WebhookPayloadsDays: int32(r.WebhookPayloadsDays), AuditLogDays: int32(r.AuditLogDays), PendingAuditLogDays: pending,
		PendingFrom: r.PendingFrom, Now: now})
	if err != nil {
		return domain.Retention{}, mapError(err)
	}
	return retentionFrom(row), nil
}

// Purged is what one pass of the retention purge did.
type Purged struct {
	PendingApplied, WebhookPayloads, OutboxPayloads, AuditEntries int
	EmailBodies                                                   []uuid.UUID // the emails whose bodies were emptied
}

// PurgeRetention applies the audit log lowerings whose wait is over, then purges, at most
// batch of each kind, what is past its account's retention at now: email bodies (of emails no
// longer queued), payloads of final webhook deliveries and of dispatched events, audit log
// entries.
func (d queries) PurgeRetention(ctx context.Context, now time.Time, batch int) (Purged, error) {
	var p Purged
	n, err := d.q.ApplyPendingRetention(ctx, now)
	if err != nil {
		return p, mapError(err)
	}
	p.PendingApplied = int(n)
	if p.EmailBodies, err = d.q.PurgeEmailBodies(ctx, db.PurgeEmailBodiesParams{Now: now, Batch: int32(batch)}); err != nil {
		return p, mapError(err)
	}
	if n, err = d.q.PurgeWebhookPayloads(ctx, db.PurgeWebhookPayloadsParams{Now: now, Batch: int32(batch)}); err != nil {
		return p, mapError(err)
	}
	p.WebhookPayloads = int(n)
	if n, err = d.q.PurgeOutboxPayloads(ctx, db.PurgeOutboxPayloadsParams{Now: now, Batch: int32(batch)}); err != nil {
		return p, mapError(err)
	}
	p.OutboxPayloads = int(n)
	if n, err = d.q.PurgeAuditLog(ctx, db.PurgeAuditLogParams{Now: now, Batch: int32(batch)}); err != nil {
		return p, mapError(err)
	}
	p.AuditEntries = int(n)
	return p, nil
}
