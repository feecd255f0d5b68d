-- Erasure of a person (store.Tx.ErasePerson). Every statement replaces the person's data with
-- '[erased]' and the address erased+<attendee id>@invalid, or deletes what only repeats it.

-- name: LockAttendeeForErasure :one
SELECT id, email_normalized, erased_at FROM attendees WHERE account_id = @account_id AND id = @id FOR UPDATE;

-- name: AttendeesOfEmail :many
SELECT id FROM attendees WHERE account_id = @account_id AND email_normalized = lower(btrim(@email::text)) ORDER BY id;

-- name: EraseAttendee :exec
UPDATE attendees SET first_name = '[erased]', last_name = '[erased]', email = @erased_email, metadata = '{}',
    erased_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id;

-- name: EraseAttendeeSearch :exec
UPDATE attendee_search SET search_text = lower('[erased] [erased] ' || @erased_email::text) WHERE attendee_id = @id;

-- EraseCertificates replaces the recipient in an attendee's certificates and their snapshots
-- (the metadata copied there included), and answers them.
-- name: EraseCertificates :many
UPDATE certificates SET recipient_first_name = '[erased]', recipient_last_name = '[erased]', recipient_email = @erased_email,
    snapshot = jsonb_set(snapshot - 'metadata', '{recipient}',
        jsonb_build_object('firstName', '[erased]', 'lastName', '[erased]', 'email', @erased_email::text)),
    recipient_token_hash = NULL, updated_at = @now::timestamptz,
    -- A certificate revoked before is erased too: its files go, its name is withheld.
    revocation_reason_code = CASE WHEN status = 'revoked' THEN 'erased' ELSE revocation_reason_code END
WHERE account_id = @account_id AND attendee_id = @attendee_id
RETURNING id, verification_code, status;

-- name: EraseCertificateSearch :exec
UPDATE certificate_search s SET search_text = lower(c.certificate_number || ' ' || c.verification_code || ' [erased] [erased] ' || c.recipient_email)
FROM certificates c
WHERE c.id = s.certificate_id AND s.certificate_id = ANY(@ids::uuid[]);

-- name: EraseAssertions :many
UPDATE badge_assertions SET recipient_first_name = '[erased]', recipient_last_name = '[erased]', recipient_email = @erased_email,
    recipient_salt = NULL,
    revocation_reason_code = CASE WHEN status = 'revoked' THEN 'erased' ELSE revocation_reason_code END
WHERE account_id = @account_id AND attendee_id = @attendee_id
RETURNING id, badge_id, verification_code, status;

-- EraseEmailDeliveries replaces the person in the emails of their credentials and, when @email
-- is set (an erasure by address, which erases every attendee of it), those sent to their
-- address, and answers the messages (whose files the erasure job deletes).
-- name: EraseEmailDeliveries :many
-- A message still queued is not sent: it fails, saying why.
UPDATE email_deliveries SET to_address = @erased_email, to_name = '[erased]', subject = '[erased]', body_text = '[erased]',
    status = CASE WHEN status = 'queued' THEN 'failed' ELSE status END,
    last_error = CASE WHEN status = 'queued' THEN 'not sent: its recipient was erased at their request'
                      WHEN last_error IS NULL THEN NULL ELSE '[erased]' END,
    updated_at = @now::timestamptz
WHERE account_id = @account_id
  AND (certificate_id = ANY(@certificate_ids::uuid[]) OR badge_assertion_id = ANY(@assertion_ids::uuid[])
       OR (@email::text <> '' AND lower(btrim(to_address)) = lower(btrim(@email::text))))
RETURNING id, created_at;

-- name: EraseWalletHolders :exec
UPDATE wallet_offers SET holder = NULL
WHERE certificate_id = ANY(@certificate_ids::uuid[]) OR badge_assertion_id = ANY(@assertion_ids::uuid[]);

-- DeleteWebhookDeliveriesAbout deletes the deliveries whose body names any of @needles (the
-- person's attendee, certificate and assertion ids, and their address).
-- name: DeleteWebhookDeliveriesAbout :execrows
DELETE FROM webhook_deliveries d
WHERE d.account_id = @account_id
  AND EXISTS (SELECT 1 FROM unnest(@needles::text[]) n WHERE position(convert_to(n, 'UTF8') IN d.payload) > 0);

-- name: DeleteOutboxEventsAbout :execrows
DELETE FROM outbox_events e
WHERE e.account_id = @account_id
  AND EXISTS (SELECT 1 FROM unnest(@needles::text[]) n WHERE position(n IN e.payload::text) > 0)
  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.outbox_event_id = e.id);

-- name: DeleteIdempotentAnswersAbout :execrows
DELETE FROM idempotency_keys k
WHERE k.account_id = @account_id AND k.response_body IS NOT NULL
  AND EXISTS (SELECT 1 FROM unnest(@needles::text[]) n WHERE position(convert_to(n, 'UTF8') IN k.response_body) > 0);

-- name: EraseBulkErrors :exec
UPDATE bulk_job_items i SET error_message = '[erased]'
FROM bulk_jobs j
WHERE j.id = i.job_id AND j.account_id = @account_id AND i.attendee_id = @attendee_id AND i.error_message IS NOT NULL;

-- name: EraseBulkJobErrors :exec
UPDATE bulk_jobs j SET errors = (
    SELECT coalesce(jsonb_agg(CASE WHEN e->>'attendeeId' = @attendee_key::text THEN jsonb_set(e, '{message}', '"[erased]"') ELSE e END), '[]'::jsonb)
    FROM jsonb_array_elements(j.errors) e)
WHERE j.account_id = @account_id AND position(@attendee_key::text IN j.errors::text) > 0;

-- name: AssertionsOfAttendee :many
SELECT * FROM badge_assertions WHERE account_id = @account_id AND attendee_id = @attendee_id
ORDER BY issued_at DESC, id DESC;

-- EmailsOfAttendee are the emails of an attendee's certificates and badge assertions.
-- name: EmailsOfAttendee :many
SELECT d.* FROM email_deliveries d
WHERE d.account_id = @account_id
  AND (d.certificate_id IN (SELECT c.id FROM certificates c WHERE c.account_id = @account_id AND c.attendee_id = @attendee_id)
    OR d.badge_assertion_id IN (SELECT b.id FROM badge_assertions b WHERE b.account_id = @account_id AND b.attendee_id = @attendee_id))
ORDER BY d.created_at DESC, d.id DESC;
