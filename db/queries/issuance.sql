-- The statements of an issuance's pipeline (internal/store/pipeline.go): declared as batch
-- queries, so that the store queues them, with their parameters, into one pgx.Batch that
-- travels in one round trip while the account's hot rows (its credit row, its number counter,
-- the day's analytics rows) are held. Each statement stands on its own: the rules that tie them
-- together are internal/issuance's, in Go. A statement's failure aborts the transaction, so the
-- later ones of the batch do nothing; a statement that finds nothing to do answers no row and
-- the caller rolls the transaction back (CREDIT_LIMIT, a draft no longer a draft).

-- PipelineSpendCredits takes n credits of the account's month, all or none: no row comes back
-- when fewer than n are left. The conflicting row is locked and re-checked, so concurrent
-- spends never pass the limit.
-- name: PipelineSpendCredits :batchone
INSERT INTO credit_usage AS u (account_id, period, used)
SELECT a.id, @period::date, @n::integer FROM accounts a JOIN plans p ON p.code = a.plan
WHERE a.id = @account_id AND coalesce(p.monthly_credits, 2147483647) >= @n::integer
ON CONFLICT (account_id, period) DO UPDATE SET used = u.used + @n::integer
WHERE u.used <= (SELECT coalesce(p.monthly_credits, 2147483647) FROM accounts a JOIN plans p ON p.code = a.plan WHERE a.id = u.account_id) - @n::integer
RETURNING used;

-- PipelineInsertCertificate stores a new certificate or draft numbered with the account's next
-- number (@number_prefix, then the number zero-padded to @number_digits), taken by moving the
-- account's counter on in the same statement, under @verification_code, reserved before
-- (ReserveNewCertificateCode, or RegisterVerificationCodes).
-- name: PipelineInsertCertificate :batchone
WITH counter AS (
    INSERT INTO certificate_counters AS c (account_id, last_number) VALUES (@account_id, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_number = c.last_number + 1
    RETURNING last_number
)
INSERT INTO certificates (id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code,
    status, recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at, expires_at, created_at, updated_at)
SELECT @id, @account_id, @event_id, @attendee_id, @template_id,
    @number_prefix::text || lpad(counter.last_number::text, greatest(@number_digits::integer, length(counter.last_number::text)), '0'),
    @verification_code, @status, @recipient_first_name, @recipient_last_name, @recipient_email, @snapshot,
    sqlc.narg(issued_at), sqlc.narg(expires_at), @now::timestamptz, @now::timestamptz
FROM counter
RETURNING *;

-- PipelineIssueDraft turns a draft into the issued certificate, keeping its number and code;
-- no row when it is no longer a draft.
-- name: PipelineIssueDraft :batchone
UPDATE certificates SET status = 'issued', recipient_first_name = @recipient_first_name,
    recipient_last_name = @recipient_last_name, recipient_email = @recipient_email, snapshot = @snapshot,
    issued_at = @issued_at, expires_at = sqlc.narg(expires_at), updated_at = @now::timestamptz
WHERE id = @id AND status = 'draft'
RETURNING *;

-- PipelineInsertStatusEntry gives an issued credential its entry in the account's open status
-- list (the lowest that is not full) at the first of the random @candidates that is free: the
-- others conflict with it on credential_id. No row: no open list, or every candidate taken (the
-- caller draws the entry the long way after the batch, credentials.AssignStatus).
-- name: PipelineInsertStatusEntry :batchmany
INSERT INTO verifiable_credentials (credential_id, kind, account_id, list, status_index, salt, claims, signed_at)
SELECT @credential_id, @kind, @account_id, l.list, candidate, @salt, sqlc.narg(claims)::jsonb, @now::timestamptz
FROM (SELECT s.list FROM status_lists s WHERE s.account_id = @account_id AND s.full_at IS NULL ORDER BY s.list LIMIT 1) l,
     unnest(@candidates::integer[]) AS candidate
ON CONFLICT DO NOTHING
RETURNING list;

-- PipelineInsertCertificateEvent writes an outbox event about a certificate written earlier in
-- the same batch (inserted, or a draft issued): @payload with the certificate's number, which
-- only its row knows by then, set at the fixed path data.certificateNumber (the field every
-- certificate event carries, see certificates.eventData); dispatched already when no active
-- subscription takes its kind (as InsertOutboxEvent).
-- name: PipelineInsertCertificateEvent :batchexec
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at, dispatched_at)
SELECT @id, c.account_id, @event_type::text,
    jsonb_set(@payload::jsonb, '{data,certificateNumber}', to_jsonb(c.certificate_number)), @occurred_at::timestamptz,
    CASE WHEN webhook_subscribed(c.account_id, @event_type::text) THEN NULL ELSE @occurred_at::timestamptz END
FROM certificates c WHERE c.id = @certificate_id;

-- PipelineInsertOutboxEvents is InsertOutboxEvents in a pipeline: several events of one
-- account and kind, in the order given.
-- name: PipelineInsertOutboxEvents :batchexec
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at, dispatched_at)
SELECT unnest(@ids::uuid[]), @account_id, @event_type, unnest(@payloads::jsonb[]), @occurred_at,
       CASE WHEN webhook_subscribed(@account_id, @event_type) THEN NULL ELSE @occurred_at::timestamptz END;

-- PipelineQueueOutboxFanOut is QueueOutboxFanOut (certificates.sql) in a pipeline, after the
-- statements that record its events.
-- name: PipelineQueueOutboxFanOut :batchexec
SELECT queue_outbox_fan_out(@job_kind::text, @job_queue::text, @job_max_attempts::smallint, @batch::integer, @ids::uuid[], @job_metadata::jsonb);

-- PipelineCountIssued is CountIssued (analytics.sql) in a pipeline: the day's counters, in key
-- order.
-- name: PipelineCountIssued :batchexec
INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, issued)
SELECT account_id, day, event_id, kind, sum(n)::integer
FROM (SELECT unnest(@account_ids::uuid[]) AS account_id, unnest(@days::date[]) AS day, unnest(@event_ids::uuid[]) AS event_id,
             unnest(@kinds::text[]) AS kind, unnest(@counts::integer[]) AS n) AS c
GROUP BY account_id, day, event_id, kind
ORDER BY account_id, day, event_id, kind
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET issued = d.issued + excluded.issued;
