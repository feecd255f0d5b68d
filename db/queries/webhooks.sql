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

-- LockOutboxEvents takes the events of a fan-out job not yet dispatched, locked until the
-- transaction ends: a second fan-out of the same events waits, then finds them dispatched.
-- name: LockOutboxEvents :many
SELECT * FROM outbox_events WHERE id = ANY (@ids::uuid[]) AND dispatched_at IS NULL
ORDER BY occurred_at, id
FOR UPDATE;

-- OutboxSubscribers pairs each event with the active subscriptions of its account that take
-- its kind (webhook_takes: by name or by a pattern).
-- name: OutboxSubscribers :many
SELECT e.id AS outbox_event_id, s.id AS subscription_id, s.account_id
FROM outbox_events e
JOIN webhook_subscriptions s ON s.account_id = e.account_id AND s.active AND webhook_takes(s.events, e.event_type)
WHERE e.id = ANY (@event_ids::uuid[])
ORDER BY e.occurred_at, e.id, s.created_at, s.id;

-- InsertFannedOutDeliveries writes one delivery per (subscription, event); a pair that has one
-- already is skipped, so a fan-out repeated after a failure cannot deliver twice. It returns the
-- ids of those it wrote.
-- name: InsertFannedOutDeliveries :many
INSERT INTO webhook_deliveries (id, account_id, subscription_id, outbox_event_id, event_type, payload, next_attempt_at, created_at)
SELECT unnest(@ids::uuid[]), unnest(@account_ids::uuid[]), unnest(@subscription_ids::uuid[]), unnest(@outbox_event_ids::uuid[]),
       unnest(@event_types::text[]), unnest(@payloads::bytea[]), @now::timestamptz, @now::timestamptz
ON CONFLICT ON CONSTRAINT webhook_deliveries_subscription_id_outbox_event_id_key DO NOTHING
RETURNING id;

-- name: MarkOutboxDispatched :exec
UPDATE outbox_events SET dispatched_at = @now::timestamptz WHERE id = ANY (@ids::uuid[]);

-- StartWebhookAttempt records that the attempt numbered attempt of a pending delivery begins
-- (its job runs): attempts, last_attempt_at, and leased_until, the end of the attempt's time
-- (an attempt past it lapsed: its process stopped). It returns the delivery, what it was before
-- (its attempts, whether an attempt was in flight), and the subscription's URL and sealed
-- secret; nothing when the delivery is no longer pending
-- (failed when its subscription was switched off, or deleted with it).
-- queued_at is when its event occurred (when the delivery was made, for one without an event):
-- the operator's metrics measure a delivery's wait from it.
-- name: StartWebhookAttempt :one
WITH prev AS (
    SELECT d.id, d.attempts AS previous_attempts, (d.leased_until IS NOT NULL)::boolean AS previous_in_flight
    FROM webhook_deliveries d
    WHERE d.id = @id AND d.status = 'pending'
    FOR UPDATE
), started AS (
    UPDATE webhook_deliveries d
    SET attempts = @attempt::integer, last_attempt_at = @now::timestamptz, leased_until = @leased_until::timestamptz
    FROM prev
    WHERE d.id = prev.id
    RETURNING d.*
)
SELECT c.*, prev.previous_attempts, prev.previous_in_flight, s.url, s.secret_sealed,
       coalesce(e.occurred_at, c.created_at)::timestamptz AS queued_at
FROM started c
JOIN prev ON prev.id = c.id
JOIN webhook_subscriptions s ON s.id = c.subscription_id
LEFT JOIN outbox_events e ON e.id = c.outbox_event_id;

-- FinishWebhookAttempt records the outcome of the attempt numbered attempt. It changes nothing
-- when the delivery moved on without this attempt (it was closed meanwhile).
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

-- WebhookSubscribed says whether an active subscription of the account takes events of
-- @event_type: an issuance reads it before its writes, and its plan records the events pending
-- (and queues their fan-out job) or dispatched already.
-- name: WebhookSubscribed :one
SELECT webhook_subscribed(@account_id, @event_type::text)::boolean AS subscribed;
