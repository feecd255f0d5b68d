-- Webhook subscriptions, their deliveries, and the fan-out of the outbox into deliveries.

-- LockAccountWebhooks serialises the changes that count an account's subscriptions. FOR NO KEY
-- UPDATE does not block the rows that reference the account (they take KEY SHARE locks).
-- name: LockAccountWebhooks :exec
SELECT id FROM accounts WHERE id = @account_id FOR NO KEY UPDATE;

-- name: CountWebhookSubscriptions :one
SELECT count(*) FROM webhook_subscriptions WHERE account_id = @account_id;

-- name: InsertWebhookSubscription :one
INSERT INTO webhook_subscriptions (id, account_id, url, events, description, secret_sealed, created_at, updated_at)
VALUES (@id, @account_id, @url, @events::text[], sqlc.narg(description), @secret_sealed, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: ListWebhookSubscriptions :many
SELECT * FROM webhook_subscriptions WHERE account_id = @account_id ORDER BY created_at DESC, id DESC;

-- name: GetWebhookSubscription :one
SELECT * FROM webhook_subscriptions WHERE account_id = @account_id AND id = @id;

-- name: LockWebhookSubscription :one
SELECT * FROM webhook_subscriptions WHERE account_id = @account_id AND id = @id FOR UPDATE;

-- LockWebhookSubscriptionByID locks a subscription for a dispatcher, which knows it by id only.
-- name: LockWebhookSubscriptionByID :one
SELECT * FROM webhook_subscriptions WHERE id = @id FOR UPDATE;

-- name: UpdateWebhookSubscription :one
UPDATE webhook_subscriptions
SET url = @url, events = @events::text[], description = sqlc.narg(description), active = @active,
    consecutive_failures = @consecutive_failures, disabled_at = sqlc.narg(disabled_at), updated_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id
RETURNING *;

-- ResetWebhookFailures writes (and locks) the row only when there is a count to reset, so that
-- concurrent successes do not queue on the subscription.
-- name: ResetWebhookFailures :exec
UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = @id AND consecutive_failures <> 0;

-- name: SetWebhookFailures :exec
UPDATE webhook_subscriptions SET consecutive_failures = @consecutive_failures WHERE id = @id;

-- name: SwitchOffWebhookSubscription :exec
UPDATE webhook_subscriptions SET active = false, disabled_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id;

-- name: DeleteWebhookSubscription :execrows
DELETE FROM webhook_subscriptions WHERE account_id = @account_id AND id = @id;

-- FailPendingWebhookDeliveries gives up the pending deliveries of a subscription, except those
-- a dispatcher holds under a live lease: they finish their attempt and are closed then.
-- name: FailPendingWebhookDeliveries :exec
UPDATE webhook_deliveries
SET status = 'failed', error = @error, next_attempt_at = NULL, leased_until = NULL
WHERE subscription_id = @subscription_id AND status = 'pending'
  AND (leased_until IS NULL OR leased_until <= @now::timestamptz);

-- name: InsertWebhookDelivery :one
INSERT INTO webhook_deliveries (id, account_id, subscription_id, outbox_event_id, event_type, payload, next_attempt_at, created_at)
VALUES (@id, @account_id, @subscription_id, sqlc.narg(outbox_event_id), @event_type, @payload, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: ListWebhookDeliveries :many
SELECT * FROM webhook_deliveries WHERE account_id = @account_id AND subscription_id = @subscription_id
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountWebhookDeliveries :one
SELECT count(*) FROM webhook_deliveries WHERE account_id = @account_id AND subscription_id = @subscription_id;

-- ClaimOutboxEvents takes a batch of events not yet dispatched, oldest first, for one
-- dispatcher's transaction; another dispatcher skips them.
-- name: ClaimOutboxEvents :many
SELECT * FROM outbox_events WHERE dispatched_at IS NULL
ORDER BY occurred_at, id
LIMIT @batch_size
FOR UPDATE SKIP LOCKED;

-- OutboxSubscribers pairs each event with the active subscriptions of its account that chose
-- its kind, by name or by a pattern: "*" (every kind), or "certificate.*" and "badge.*" (the
-- kinds before the dot). webhook.test goes only to the subscription it was asked for.
-- name: OutboxSubscribers :many
SELECT e.id AS outbox_event_id, s.id AS subscription_id, s.account_id
FROM outbox_events e
JOIN webhook_subscriptions s ON s.account_id = e.account_id AND s.active
 AND (e.event_type = ANY (s.events)
      OR (e.event_type <> 'webhook.test'
          AND ('*' = ANY (s.events) OR split_part(e.event_type, '.', 1) || '.*' = ANY (s.events))))
WHERE e.id = ANY (@event_ids::uuid[])
ORDER BY e.occurred_at, e.id, s.created_at, s.id;

-- InsertFannedOutDeliveries writes one delivery per (subscription, event); a pair that has one
-- already is skipped, so a fan-out repeated after a failure cannot deliver twice.
-- name: InsertFannedOutDeliveries :execrows
INSERT INTO webhook_deliveries (id, account_id, subscription_id, outbox_event_id, event_type, payload, next_attempt_at, created_at)
SELECT unnest(@ids::uuid[]), unnest(@account_ids::uuid[]), unnest(@subscription_ids::uuid[]), unnest(@outbox_event_ids::uuid[]),
       unnest(@event_types::text[]), unnest(@payloads::bytea[]), @now::timestamptz, @now::timestamptz
ON CONFLICT ON CONSTRAINT webhook_deliveries_subscription_id_outbox_event_id_key DO NOTHING;

-- name: MarkOutboxDispatched :exec
UPDATE outbox_events SET dispatched_at = @now::timestamptz WHERE id = ANY (@ids::uuid[]);

-- ClaimDueWebhookDeliveries takes a batch of due deliveries for one dispatcher. Claiming counts
-- an attempt and holds the delivery until leased_until: a dispatcher that stops while sending
-- lets it become due again after the lease, with that attempt counted (lapsed says so). A
-- delivery claimed max_attempts times is not claimed again; FailLapsedWebhookDeliveries closes
-- it. The subscription's URL and sealed secret come along.
-- name: ClaimDueWebhookDeliveries :many
WITH due AS (
    SELECT d.id, (d.leased_until IS NOT NULL)::boolean AS lapsed
    FROM webhook_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= @now::timestamptz
      AND (d.leased_until IS NULL OR d.leased_until <= @now::timestamptz)
      AND d.attempts < @max_attempts::integer
    ORDER BY d.next_attempt_at, d.id
    LIMIT @batch_size
    FOR UPDATE OF d SKIP LOCKED
), claimed AS (
    UPDATE webhook_deliveries d
    SET attempts = d.attempts + 1, last_attempt_at = @now::timestamptz, leased_until = @leased_until::timestamptz
    FROM due
    WHERE d.id = due.id
    RETURNING d.*
)
SELECT c.*, due.lapsed, s.url, s.secret_sealed
FROM claimed c
JOIN due ON due.id = c.id
JOIN webhook_subscriptions s ON s.id = c.subscription_id
ORDER BY c.next_attempt_at, c.id;

-- FailLapsedWebhookDeliveries closes the deliveries whose last allowed attempt lapsed: claimed
-- max_attempts times, and the lease of the last claim ran out with no outcome recorded.
-- name: FailLapsedWebhookDeliveries :many
UPDATE webhook_deliveries
SET status = 'failed', error = @error, next_attempt_at = NULL, leased_until = NULL
WHERE id IN (
    SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND leased_until <= @now::timestamptz AND attempts >= @max_attempts::integer
    FOR UPDATE SKIP LOCKED
)
RETURNING *;

-- FinishWebhookAttempt records the outcome of the attempt numbered attempt. It changes nothing
-- when the delivery moved on without this attempt (its lease lapsed and another dispatcher
-- claimed it again).
-- name: FinishWebhookAttempt :execrows
UPDATE webhook_deliveries
SET status = @status, next_attempt_at = sqlc.narg(next_attempt_at), leased_until = NULL,
    response_status = sqlc.narg(response_status), response_body = sqlc.narg(response_body),
    error = sqlc.narg(error), duration_ms = sqlc.narg(duration_ms)
WHERE id = @id AND attempts = @attempt AND status = 'pending';

-- Sealed secrets, walked in id order by the operator command that reseals them.
-- name: ListWebhookSecrets :many
SELECT id, secret_sealed FROM webhook_subscriptions WHERE id > @after_id ORDER BY id LIMIT @batch_size;

-- name: ReplaceWebhookSecret :execrows
UPDATE webhook_subscriptions SET secret_sealed = @new_sealed WHERE id = @id AND secret_sealed = @old_sealed;
