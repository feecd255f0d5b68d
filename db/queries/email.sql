-- name: EnqueueEmail :one
INSERT INTO email_deliveries (id, account_id, kind, certificate_id, badge_assertion_id,
                              to_address, to_name, from_name, reply_to, subject, body_text,
                              locale, next_attempt_at, created_at, updated_at)
VALUES (@id, @account_id, @kind, sqlc.narg(certificate_id), sqlc.narg(badge_assertion_id),
        @to_address, @to_name, @from_name, sqlc.narg(reply_to), @subject, @body_text,
        @locale, @now::timestamptz, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: GetEmailDeliveryByID :one
SELECT * FROM email_deliveries WHERE id = @id;

-- The outcomes of an attempt (numbered attempts) change only a message still queued: a job
-- run again after its outcome was recorded changes nothing.
-- name: MarkEmailSent :one
UPDATE email_deliveries SET status = 'sent', attempts = @attempts, sent_at = @now::timestamptz, last_error = NULL,
    updated_at = @now::timestamptz
WHERE id = @id AND status = 'queued'
RETURNING *;

-- name: GetCertificateByID :one
SELECT * FROM certificates WHERE id = @id;

-- name: RetryEmailLater :exec
UPDATE email_deliveries SET attempts = @attempts, last_error = @last_error, next_attempt_at = @next_attempt_at,
    updated_at = @now::timestamptz
WHERE id = @id AND status = 'queued';

-- name: MarkEmailFailed :exec
UPDATE email_deliveries SET status = 'failed', attempts = @attempts, last_error = @last_error, updated_at = @now::timestamptz
WHERE id = @id AND status = 'queued';

-- name: GetEmailDelivery :one
SELECT * FROM email_deliveries WHERE account_id = @account_id AND id = @id;

-- ListCredentialEmails lists the deliveries of certificates and badges (not account notices),
-- newest first, with the contract's filters. A badge's email belongs to its recipient's event.
-- name: ListCredentialEmails :many
SELECT d.* FROM email_deliveries d LEFT JOIN certificates c ON c.id = d.certificate_id
LEFT JOIN badge_assertions b ON b.id = d.badge_assertion_id LEFT JOIN attendees ba ON ba.id = b.attendee_id
WHERE d.account_id = @account_id AND d.kind IN ('certificate', 'badge')
  AND (sqlc.narg(event_id)::uuid IS NULL OR coalesce(c.event_id, ba.event_id) = sqlc.narg(event_id))
  AND (sqlc.narg(certificate_id)::uuid IS NULL OR d.certificate_id = sqlc.narg(certificate_id))
  AND (sqlc.narg(status)::text IS NULL OR d.status = sqlc.narg(status))
ORDER BY d.created_at DESC, d.id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountCredentialEmails :one
SELECT count(*) FROM email_deliveries d LEFT JOIN certificates c ON c.id = d.certificate_id
LEFT JOIN badge_assertions b ON b.id = d.badge_assertion_id LEFT JOIN attendees ba ON ba.id = b.attendee_id
WHERE d.account_id = @account_id AND d.kind IN ('certificate', 'badge')
  AND (sqlc.narg(event_id)::uuid IS NULL OR coalesce(c.event_id, ba.event_id) = sqlc.narg(event_id))
  AND (sqlc.narg(certificate_id)::uuid IS NULL OR d.certificate_id = sqlc.narg(certificate_id))
  AND (sqlc.narg(status)::text IS NULL OR d.status = sqlc.narg(status));

-- SendableCertificates lists an event's valid certificates (all, or those named), each with
-- whether it was already emailed (sent, or queued to be).
-- name: SendableCertificates :many
SELECT c.*, EXISTS (
    SELECT 1 FROM email_deliveries d WHERE d.certificate_id = c.id AND d.status IN ('sent', 'queued')
) AS emailed
FROM certificates c
WHERE c.account_id = @account_id AND c.event_id = @event_id AND c.status = 'issued'
  AND (c.expires_at IS NULL OR c.expires_at > @now::timestamptz)
  AND (sqlc.narg(ids)::uuid[] IS NULL OR c.id = ANY (sqlc.narg(ids)::uuid[]))
ORDER BY c.created_at, c.id
FOR UPDATE OF c;
