// Package retention holds the rules of how long an account keeps what it no longer needs
// (email bodies, webhook payloads, its audit log) and the periodic job that purges past them.
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/store"
)

// Limits and timings.
const (
	MinDays, MaxDays = 1, 3650
	MinAuditLogDays  = 90
	// LoweringWait is how long a lowering of the audit log's retention waits before it takes
	// effect: time to notice it, and undo it, before entries go.
	LoweringWait = 30 * 24 * time.Hour
	// PurgeEvery is the purge job's period; each pass purges at most purgeBatch rows of each
	// kind, so that a first pass over years of data does not hold the database long.
	PurgeEvery = time.Hour
	purgeBatch = 5000
)

// Service applies the rules of retention.
type Service struct {
	store   *store.Store
	siteURL string
	now     func() time.Time
}

// New returns the service; siteURL is where its emails lead, now its clock (nil: the
// system's).
func New(st *store.Store, siteURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, siteURL: strings.TrimRight(siteURL, "/"), now: now}
}

// Get returns the account's retention.
func (s *Service) Get(ctx context.Context, p auth.Principal) (domain.Retention, error) {
	return s.store.GetRetention(ctx, p.AccountID)
}

// Put changes the account's retention. Only the owner lowers the audit log's, and a lowering
// takes effect after LoweringWait (a raise, at once, and it cancels a lowering that waits).
// The change is audited and emailed to the owner.
func (s *Service) Put(ctx context.Context, p auth.Principal, want domain.Retention) (domain.Retention, error) {
	var details []apperr.Detail
	for _, f := range []struct {
		field    string
		days, lo int
	}{{"emailBodiesDays", want.EmailBodiesDays, MinDays}, {"webhookPayloadsDays", want.WebhookPayloadsDays, MinDays},
		{"auditLogDays", want.AuditLogDays, MinAuditLogDays}} {
		if f.days < f.lo || f.days > MaxDays {
			details = append(details, apperr.Detail{Field: f.field, Message: fmt.Sprintf("must be %d to %d days", f.lo, MaxDays)})
		}
	}
	if len(details) > 0 {
		return domain.Retention{}, &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Retention, error) {
		cur, err := tx.LockRetention(ctx, p.AccountID)
		if err != nil {
			return cur, err
		}
		// What the audit log keeps once any lowering that waits has taken effect.
		effective := cur.AuditLogDays
		if cur.PendingAuditLogDays != nil {
			effective = *cur.PendingAuditLogDays
		}
		next := domain.Retention{EmailBodiesDays: want.EmailBodiesDays, WebhookPayloadsDays: want.WebhookPayloadsDays,
			AuditLogDays: cur.AuditLogDays, PendingAuditLogDays: cur.PendingAuditLogDays, PendingFrom: cur.PendingFrom}
		switch {
		case want.AuditLogDays == effective:
		case want.AuditLogDays < cur.AuditLogDays:
			if p.Role != auth.RoleOwner {
				return cur, &apperr.Error{Code: apperr.InsufficientRole, Required: auth.RoleOwner,
					Message: "Only the account's owner may lower how long the audit log is kept."}
			}
			from := now.Add(LoweringWait)
			next.PendingAuditLogDays, next.PendingFrom = &want.AuditLogDays, &from
		default: // a raise, or a lowering that waits made smaller: at once
			next.AuditLogDays, next.PendingAuditLogDays, next.PendingFrom = want.AuditLogDays, nil, nil
		}
		saved, err := tx.PutRetention(ctx, p.AccountID, next, now)
		if err != nil {
			return saved, err
		}
		summary := fmt.Sprintf("email bodies %d days, webhook payloads %d days, audit log %d days", saved.EmailBodiesDays,
			saved.WebhookPayloadsDays, saved.AuditLogDays)
		if saved.PendingAuditLogDays != nil {
			summary += fmt.Sprintf(" (%d days from %s)", *saved.PendingAuditLogDays, saved.PendingFrom.UTC().Format(time.DateOnly))
		}
		audit.Describe(ctx, "retention", p.AccountID.String(), summary)
		return saved, s.tellOwner(ctx, tx, p, saved, now)
	})
}

// tellOwner queues the email that tells the account's owner what its retention is now, in the
// account's language.
func (s *Service) tellOwner(ctx context.Context, tx *store.Tx, p auth.Principal, r domain.Retention, now time.Time) error {
	owner, err := tx.FindAccountOwner(ctx, p.AccountID)
	if err != nil {
		return err
	}
	b, err := tx.FindBranding(ctx, p.AccountID)
	if err != nil {
		return err
	}
	pr, err := tx.FindProfile(ctx, p.AccountID, owner.ID)
	if err != nil {
		return err
	}
	lang := locale.Default
	if b.DefaultLocale != nil {
		lang = locale.Or(*b.DefaultLocale, locale.Default)
	}
	audit := locale.Text(lang, "email.retentionChanged.days", map[string]any{"Days": r.AuditLogDays})
	if r.PendingAuditLogDays != nil {
		audit = locale.Text(lang, "email.retentionChanged.pending", map[string]any{"Days": r.AuditLogDays,
			"Pending": *r.PendingAuditLogDays, "From": r.PendingFrom.UTC().Format(time.DateOnly)})
	}
	fields := map[string]any{"Name": owner.Name, "Account": pr.Account.Name, "By": p.Name, "At": now.UTC().Format("2006-01-02 15:04 UTC"),
		"EmailDays": r.EmailBodiesDays, "WebhookDays": r.WebhookPayloadsDays, "AuditDays": audit, "Link": s.siteURL + "/app/"}
	_, err = tx.EnqueueEmail(ctx, domain.OutboundEmail{AccountID: p.AccountID, Kind: "retention_changed", ToAddress: owner.Email,
		ToName: owner.Name, FromName: pr.Account.Name, Subject: locale.Text(lang, "email.retentionChanged.subject", fields),
		BodyText: locale.Text(lang, "email.retentionChanged.body", fields), Locale: lang}, now)
	return err
}

// Purge runs one pass of the purge: lowerings whose wait is over take effect, then what is past
// each account's retention goes. The bodies of purged emails are also deleted from the outbox
// folder (by a job of their own).
func (s *Service) Purge(ctx context.Context) (store.Purged, error) {
	return store.InTx(ctx, s.store, func(tx *store.Tx) (store.Purged, error) {
		p, err := tx.PurgeRetention(ctx, s.now(), purgeBatch)
		if err != nil || len(p.EmailBodies) == 0 {
			return p, err
		}
		return p, tx.InsertJob(ctx, jobs.EraseEmailFiles{DeliveryIDs: p.EmailBodies})
	})
}

// PurgeJob is the periodic job that purges, every PurgeEvery and at start.
func (s *Service) PurgeJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(PurgeEvery), func() (river.JobArgs, *river.InsertOpts) {
		return jobs.PurgeRetention{}, nil
	}, &river.PeriodicJobOpts{RunOnStart: true})
}

// PurgeWorker is the River worker of the purge job; a failure is logged by River and the next
// pass tries again.
func (s *Service) PurgeWorker(logger *slog.Logger) river.Worker[jobs.PurgeRetention] {
	return &purgeWorker{s: s, logger: logger}
}

type purgeWorker struct {
	river.WorkerDefaults[jobs.PurgeRetention]
	s      *Service
	logger *slog.Logger
}

func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[jobs.PurgeRetention]) error {
	p, err := w.s.Purge(ctx)
	if err != nil {
		return fmt.Errorf("purging past retention: %w", err)
	}
	if p.PendingApplied+len(p.EmailBodies)+p.WebhookPayloads+p.OutboxPayloads+p.AuditEntries > 0 {
		w.logger.InfoContext(ctx, "purged past retention", "lowerings_applied", p.PendingApplied, "email_bodies", len(p.EmailBodies),
			"webhook_payloads", p.WebhookPayloads, "event_payloads", p.OutboxPayloads, "audit_entries", p.AuditEntries)
	}
	return nil
}
