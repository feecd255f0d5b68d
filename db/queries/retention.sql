-- name: GetRetention :one
SELECT * FROM retention_settings WHERE account_id = @account_id;

-- name: LockRetention :one
SELECT * FROM retention_settings WHERE account_id = @account_id FOR UPDATE;

-- name: PutRetention :one
INSERT INTO retention_settings (account_id, email_bodies_days, webhook_payloads_days, audit_log_days,
    pending_audit_log_days, pending_from, updated_at)
VALUES (@account_id, @email_bodies_days, @webhook_payloads_days, @audit_log_days,
    sqlc.narg('pending_audit_log_days'), sqlc.narg('pending_from'), @now::timestamptz)
ON CONFLICT (account_id) DO UPDATE SET email_bodies_days = EXCLUDED.email_bodies_days,
    webhook_payloads_days = EXCLUDED.webhook_payloads_days, audit_log_days = EXCLUDED.audit_log_days,
    pending_audit_log_days = EXCLUDED.pending_audit_log_days, pending_from = EXCLUDED.pending_from,
    updated_at = EXCLUDED.updated_at
RETURNING *;

-- ApplyPendingRetention makes the audit log lowerings whose 30 days have passed take effect.
-- name: ApplyPendingRetention :execrows
UPDATE retention_settings SET audit_log_days = pending_audit_log_days, pending_audit_log_days = NULL,
    pending_from = NULL, updated_at = @now::timestamptz
WHERE pending_from <= @now::timestamptz;

-- PurgeEmailBodies empties the bodies (and errors) of at most batch emails past their
-- account's retention that are no longer queued, and returns their ids.
-- name: PurgeEmailBodies :many
UPDATE email_deliveries d SET body_text = '', last_error = NULL, purged_at = @now::timestamptz
WHERE d.id IN (
    SELECT e.id FROM email_deliveries e LEFT JOIN retention_settings r ON r.account_id = e.account_id
    WHERE e.purged_at IS NULL AND e.status <> 'queued'
      AND e.created_at < sqlc.arg('now')::timestamptz - make_interval(0, 0, 0, coalesce(r.email_bodies_days, 90))
    ORDER BY e.created_at LIMIT @batch)
RETURNING d.id;

-- PurgeWebhookPayloads empties the payloads and answers of at most batch final webhook
-- deliveries past their account's retention.
-- name: PurgeWebhookPayloads :execrows
UPDATE webhook_deliveries d SET payload = ''::bytea, response_body = NULL, purged_at = @now::timestamptz
WHERE d.id IN (
    SELECT w.id FROM webhook_deliveries w LEFT JOIN retention_settings r ON r.account_id = w.account_id
    WHERE w.purged_at IS NULL AND w.status <> 'pending'
      AND w.created_at < sqlc.arg('now')::timestamptz - make_interval(0, 0, 0, coalesce(r.webhook_payloads_days, 30))
    ORDER BY w.created_at LIMIT @batch);

-- PurgeOutboxPayloads empties the payloads of at most batch dispatched events past their
-- account's webhook retention.
-- name: PurgeOutboxPayloads :execrows
UPDATE outbox_events o SET payload = '{}'::jsonb, purged_at = @now::timestamptz
WHERE o.id IN (
    SELECT e.id FROM outbox_events e LEFT JOIN retention_settings r ON r.account_id = e.account_id
    WHERE e.purged_at IS NULL AND e.dispatched_at IS NOT NULL
      AND e.occurred_at < sqlc.arg('now')::timestamptz - make_interval(0, 0, 0, coalesce(r.webhook_payloads_days, 30))
    ORDER BY e.occurred_at LIMIT @batch);

-- PurgeAuditLog deletes at most batch audit log entries past their account's retention.
-- name: PurgeAuditLog :execrows
DELETE FROM audit_log a
WHERE a.id IN (
    SELECT l.id FROM audit_log l LEFT JOIN retention_settings r ON r.account_id = l.account_id
    WHERE l.at < sqlc.arg('now')::timestamptz - make_interval(0, 0, 0, coalesce(r.audit_log_days, 400))
    ORDER BY l.at LIMIT @batch);
