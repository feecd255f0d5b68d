-- +goose Up
-- Email, webhook deliveries and the outbox's fan-out are River jobs now (see internal/jobs):
-- River claims, leases and schedules them, so the indexes the hand-rolled claims read go.
-- email_deliveries.next_attempt_at and webhook_deliveries.next_attempt_at stay (the API shows
-- them); webhook_deliveries.leased_until now marks an attempt in flight until its end.
DROP INDEX outbox_events_pending_idx;
DROP INDEX webhook_deliveries_due_idx;
DROP INDEX email_deliveries_due_idx;

-- Work left by the previous version gets its job, numbered from the attempts already made, so
-- that the caps still hold: queued messages, pending deliveries (one claimed when the process
-- stopped keeps leased_until, and its next attempt counts that one as lapsed), events not yet
-- fanned out. Bulk jobs move to their own queue. A new database has none of it, and River's
-- tables come after this migration there: the block runs only when they exist.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('river_job') IS NULL THEN
        RETURN;
    END IF;
    INSERT INTO river_job (kind, args, queue, max_attempts, attempt, scheduled_at, state)
    SELECT 'email_send', jsonb_build_object('deliveryId', id), 'email', 9, least(attempts, 8), next_attempt_at,
           (CASE WHEN next_attempt_at > now() THEN 'scheduled' ELSE 'available' END)::river_job_state
    FROM email_deliveries WHERE status = 'queued';
    INSERT INTO river_job (kind, args, queue, max_attempts, attempt, scheduled_at, state)
    SELECT 'webhook_deliver', jsonb_build_object('deliveryId', id), 'webhooks', 6, least(attempts, 5),
           coalesce(greatest(next_attempt_at, leased_until), now()),
           (CASE WHEN coalesce(greatest(next_attempt_at, leased_until), now()) > now() THEN 'scheduled' ELSE 'available' END)::river_job_state
    FROM webhook_deliveries WHERE status = 'pending';
    INSERT INTO river_job (kind, args, queue, max_attempts)
    SELECT 'webhook_fan_out', jsonb_build_object('outboxEventIds', jsonb_build_array(id)), 'webhooks', 25
    FROM outbox_events WHERE dispatched_at IS NULL;
    UPDATE river_job SET queue = 'bulk'
    WHERE kind = 'bulk_generate_certificates' AND queue = 'default' AND finalized_at IS NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
CREATE INDEX outbox_events_pending_idx ON outbox_events (occurred_at) WHERE dispatched_at IS NULL;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX email_deliveries_due_idx ON email_deliveries (next_attempt_at) WHERE status = 'queued';
