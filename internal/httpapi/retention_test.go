package httpapi_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/privacy"
	"github.com/certhub/credentiald/internal/testkit"
)

// The retention: its defaults, its bounds, the owner alone lowering the audit log's (30 days
// later), an admin changing the rest, each change emailed to the owner and audited.
func TestRetentionIsChangedByItsRulesAndTheOwnerIsTold(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	owner := tm.owner.Client
	var r struct {
		Data struct {
			EmailBodiesDays, WebhookPayloadsDays, AuditLogDays int
			PendingAuditLogDays                                *int
			PendingFrom, UpdatedAt                             *time.Time
		}
	}
	res := owner.Get("/api/v1/account/retention")
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res.JSON(t, &r)
	require.Equal(t, 90, r.Data.EmailBodiesDays)
	require.Equal(t, 30, r.Data.WebhookPayloadsDays)
	require.Equal(t, 400, r.Data.AuditLogDays)
	require.Nil(t, r.Data.UpdatedAt)

	for _, bad := range []map[string]any{{"emailBodiesDays": 0, "webhookPayloadsDays": 30, "auditLogDays": 400},
		{"emailBodiesDays": 90, "webhookPayloadsDays": 3651, "auditLogDays": 400},
		{"emailBodiesDays": 90, "webhookPayloadsDays": 30, "auditLogDays": 89}} {
		wantError(t, owner.Put("/api/v1/account/retention", bad), 400, 400, "VALIDATION_ERROR")
	}

	admin := tm.join(t, "admin")
	e := wantError(t, admin.Client.Put("/api/v1/account/retention", map[string]any{"emailBodiesDays": 30, "webhookPayloadsDays": 14,
		"auditLogDays": 100}), 403, 403, "INSUFFICIENT_ROLE")
	require.Equal(t, "owner", e.Error.Required)
	viewer := tm.join(t, "viewer")
	wantError(t, viewer.Client.Get("/api/v1/account/retention"), 403, 403, "INSUFFICIENT_ROLE")
	// An admin changes the rest, and may raise the audit log's.
	res = admin.Client.Put("/api/v1/account/retention", map[string]any{"emailBodiesDays": 30, "webhookPayloadsDays": 14, "auditLogDays": 500})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res.JSON(t, &r)
	require.Equal(t, 30, r.Data.EmailBodiesDays)
	require.Equal(t, 500, r.Data.AuditLogDays, "a raise is at once")
	text := tm.messageTo(t, tm.owner.Email)
	require.Contains(t, text, "Email bodies: 30 days")
	require.Contains(t, text, "Audit log: 500 days")

	// The owner lowers it: it waits 30 days.
	before := time.Now()
	res = owner.Put("/api/v1/account/retention", map[string]any{"emailBodiesDays": 30, "webhookPayloadsDays": 14, "auditLogDays": 100})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res.JSON(t, &r)
	require.Equal(t, 500, r.Data.AuditLogDays)
	require.NotNil(t, r.Data.PendingAuditLogDays)
	require.Equal(t, 100, *r.Data.PendingAuditLogDays)
	require.WithinDuration(t, before.Add(30*24*time.Hour), *r.Data.PendingFrom, time.Minute)
	text = tm.messageTo(t, tm.owner.Email)
	require.Contains(t, text, "Audit log: 500 days, lowered to 100 days from")
	// Setting the current value again undoes it.
	res = owner.Put("/api/v1/account/retention", map[string]any{"emailBodiesDays": 30, "webhookPayloadsDays": 14, "auditLogDays": 500})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	res.JSON(t, &r)
	require.Nil(t, r.Data.PendingAuditLogDays)
	tm.messageTo(t, tm.owner.Email)

	res = owner.Get("/api/v1/audit-log?action=retention.changed")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, 3, strings.Count(string(res.Body), `"action":"retention.changed"`))
}

// The purge: an email body, a final webhook delivery's payload and audit entries past the
// account's retention go (the email's outbox file too); what is within it stays; a lowering
// whose 30 days passed takes effect.
func TestThePurgeRemovesWhatIsPastRetention(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	event := acct.Event(t, env, "Retention Days")
	old := acct.Attendee(t, event, "Olga", "Old", "olga.old@example.org")
	fresh := acct.Attendee(t, event, "Fred", "Fresh", "fred.fresh@example.org")
	require.Equal(t, 201, acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://hooks.example.org/in",
		"events": []string{"*"}}).StatusCode)
	for _, a := range []any{old, fresh} {
		res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": event,
			"attendeeId": a, "sendEmail": true})
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	}
	_, err := runEmail(t, env)
	require.NoError(t, err)
	outbox := filepath.Join(env.Config.DataDir, "outbox")
	require.Len(t, filesHolding(t, outbox, []string{"olga.old@example.org"}, ""), 1)
	_, _ = runWebhooks(t, env) // the deliveries fail (no such receiver) and wait for a retry

	// Olga's email, every webhook delivery and the audit log's first entries are old.
	testkit.SQL(t, env, `UPDATE email_deliveries SET created_at = now() - interval '91 days' WHERE to_address = 'olga.old@example.org'`)
	testkit.SQL(t, env, `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, created_at = now() - interval '31 days'`)
	testkit.SQL(t, env, `UPDATE outbox_events SET occurred_at = now() - interval '31 days' WHERE dispatched_at IS NOT NULL`)
	testkit.SQL(t, env, `UPDATE audit_log SET at = now() - interval '401 days' WHERE action = 'event.created'`)
	var audited int
	testkit.QueryRow(t, env, `SELECT count(*) FROM audit_log`, nil, &audited)

	p, err := env.Service.Retention.Purge(context.Background())
	require.NoError(t, err)
	require.Len(t, p.EmailBodies, 1)
	require.Positive(t, p.WebhookPayloads)
	require.Equal(t, 1, p.AuditEntries)

	var body, freshBody string
	testkit.QueryRow(t, env, `SELECT body_text FROM email_deliveries WHERE to_address = 'olga.old@example.org'`, nil, &body)
	testkit.QueryRow(t, env, `SELECT body_text FROM email_deliveries WHERE to_address = 'fred.fresh@example.org'`, nil, &freshBody)
	require.Empty(t, body)
	require.Contains(t, freshBody, "Fred", "within the retention: kept")
	var payloads int
	testkit.QueryRow(t, env, `SELECT count(*) FROM webhook_deliveries WHERE length(payload) > 0`, nil, &payloads)
	require.Zero(t, payloads)
	var left int
	testkit.QueryRow(t, env, `SELECT count(*) FROM audit_log`, nil, &left)
	require.Equal(t, audited-1, left)
	// The email's file goes by the files job.
	jobsRun := testkit.ServiceJobs(t, env)
	testkit.AddJobWorker(jobsRun, privacy.FilesWorker(outbox))
	require.Len(t, jobsRun.WorkDue(jobs.EraseEmailFiles{}.Kind()), 1, "the files job")
	require.Empty(t, filesHolding(t, outbox, []string{"olga.old@example.org"}, ""))
	entries, _ := os.ReadDir(outbox)
	require.NotEmpty(t, entries, "Fred's email stays")

	// A lowering whose 30 days passed takes effect at the next pass.
	res := acct.Client.Put("/api/v1/account/retention", map[string]any{"emailBodiesDays": 90, "webhookPayloadsDays": 30, "auditLogDays": 90})
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	testkit.SQL(t, env, `UPDATE retention_settings SET pending_from = now() - interval '1 second'`)
	p, err = env.Service.Retention.Purge(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, p.PendingApplied)
	var r struct{ Data struct{ AuditLogDays int } }
	acct.Client.Get("/api/v1/account/retention").JSON(t, &r)
	require.Equal(t, 90, r.Data.AuditLogDays)
}
