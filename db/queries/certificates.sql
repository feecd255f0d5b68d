-- LockAttendeeForIssue holds an attendee while a certificate is issued to them: concurrent
-- issuances for one attendee run one after the other.
-- name: LockAttendeeForIssue :one
SELECT a.*, e.name AS event_name, e.event_date, e.location AS event_location, e.description AS event_description,
       e.certificate_validity_days, e.template_id AS event_template_id
FROM attendees a JOIN events e ON e.id = a.event_id
WHERE a.account_id = @account_id AND a.id = @attendee_id
FOR UPDATE OF a;

-- LockAttendees locks the attendees named, in id order, as LockAttendeeForIssue locks one: a
-- transaction that issues for several (a job's batch) takes them all before the account's hot
-- rows, so it never holds those rows while waiting for an attendee that a single issuance
-- holds (which waits for the hot rows in turn).
-- name: LockAttendees :exec
SELECT a.id FROM attendees a WHERE a.account_id = @account_id AND a.id = ANY(@ids::uuid[]) ORDER BY a.id FOR UPDATE;

-- LockIssueSource reads what a certificate is made from in one round trip: the attendee,
-- locked as LockAttendeeForIssue locks it, with its event, the template (the account's or a
-- system one), the account's branding (its columns NULL when the account has none) and name. No
-- row: the attendee or the template is missing (LockAttendeeForIssue tells which).
-- name: LockIssueSource :one
SELECT a.*, e.name AS event_name, e.event_date, e.location AS event_location, e.description AS event_description,
       e.certificate_validity_days, e.template_id AS event_template_id,
       sqlc.embed(t),
       b.account_id AS branding_account_id, b.issuer_name AS branding_issuer_name, b.website AS branding_website,
       b.logo AS branding_logo, b.primary_color AS branding_primary_color, b.email_from_name AS branding_email_from_name,
       b.email_reply_to AS branding_email_reply_to, b.updated_at AS branding_updated_at, b.signatories AS branding_signatories,
       acc.name AS account_name
FROM attendees a JOIN events e ON e.id = a.event_id
JOIN accounts acc ON acc.id = a.account_id
JOIN templates t ON t.id = @template_id AND (t.account_id = a.account_id OR t.account_id IS NULL)
LEFT JOIN branding b ON b.account_id = a.account_id
WHERE a.account_id = @account_id AND a.id = @attendee_id
FOR UPDATE OF a;

-- CurrentCertificatesFor marks the key's issued certificate past its expiry as expired (so
-- that a new one can be issued: at most one issued certificate per attendee, event and
-- template) and returns what is current after that: the issued certificate and the draft, if
-- any. One statement, one round trip: its SELECT sees the rows as they were before the
-- UPDATE, so the certificates it expired are left out by id.
-- name: CurrentCertificatesFor :many
WITH expired AS (
    UPDATE certificates SET status = 'expired', updated_at = @now::timestamptz
    WHERE attendee_id = @attendee_id AND event_id = @event_id AND template_id = @template_id
      AND status = 'issued' AND expires_at IS NOT NULL AND expires_at <= @now::timestamptz
    RETURNING id
)
SELECT cur.* FROM certificates cur
WHERE cur.attendee_id = @attendee_id AND cur.event_id = @event_id AND cur.template_id = @template_id
  AND cur.status IN ('issued', 'draft') AND cur.id NOT IN (SELECT expired.id FROM expired);

-- SpendCredits takes n credits of the account's month, all or none: no row comes back when
-- fewer than n are left. The conflicting row is locked and re-checked, so concurrent spends
-- never pass the limit.
-- name: SpendCredits :one
INSERT INTO credit_usage AS u (account_id, period, used)
SELECT a.id, @period::date, @n::integer FROM accounts a JOIN plans p ON p.code = a.plan
WHERE a.id = @account_id AND coalesce(p.monthly_credits, 2147483647) >= @n::integer
ON CONFLICT (account_id, period) DO UPDATE SET used = u.used + @n::integer
WHERE u.used <= (SELECT coalesce(p.monthly_credits, 2147483647) FROM accounts a JOIN plans p ON p.code = a.plan WHERE a.id = u.account_id) - @n::integer
RETURNING used;

-- name: CreditFigures :one
SELECT a.plan, p.monthly_credits AS monthly_limit,
       coalesce((SELECT used FROM credit_usage u WHERE u.account_id = a.id AND u.period = @period::date), 0)::integer AS used
FROM accounts a JOIN plans p ON p.code = a.plan
WHERE a.id = @account_id;

-- InsertCertificate stores a new certificate or draft, numbered with the account's next number
-- (@number_prefix, then the number zero-padded to @number_digits) by moving the account's
-- counter on, under the verification code @verification_code, which it reserves in the
-- registry. For an issued certificate the same statement spends one credit of the month
-- @credit_period (the conditional upsert of SpendCredits), writes the outbox event
-- @event_payload with the number set at the path @event_number_at, counts the certificate in
-- the day's analytics (its event's row, a hot row too), and gives its verifiable credential
-- its entry: the first of the random @status_candidates that is free in the account's open
-- status list, with the salt @status_salt (status_assigned false: the account has no open
-- list, or every candidate was taken; the caller draws the entry the long way).
-- No row comes back when the code is taken (then nothing is written) or no credit is left
-- (then the code and the counter were written: roll the transaction back); the caller tells
-- which by the credit figures. The counter and the credit rows are taken by
-- every issuance of the account and held until the commit: one statement that takes both and
-- does everything else, in one round trip, holds them for the shortest time.
-- name: InsertCertificate :one
WITH code AS (
    INSERT INTO verification_codes (code, kind, created_at) VALUES (@verification_code, 'certificate', @now::timestamptz)
    ON CONFLICT DO NOTHING
    RETURNING code
), counter AS (
    INSERT INTO certificate_counters AS c (account_id, last_number) SELECT @account_id, 1 FROM code
    ON CONFLICT (account_id) DO UPDATE SET last_number = c.last_number + 1
    RETURNING last_number
), credit AS (
    INSERT INTO credit_usage AS u (account_id, period, used)
    SELECT a.id, sqlc.narg(credit_period)::date, 1 FROM accounts a JOIN plans p ON p.code = a.plan
    WHERE sqlc.narg(credit_period)::date IS NOT NULL AND a.id = @account_id AND coalesce(p.monthly_credits, 2147483647) >= 1
      AND EXISTS (SELECT 1 FROM code)
    ON CONFLICT (account_id, period) DO UPDATE SET used = u.used + 1
    WHERE u.used <= (SELECT coalesce(p.monthly_credits, 2147483647) FROM accounts a JOIN plans p ON p.code = a.plan WHERE a.id = u.account_id) - 1
    RETURNING used
), cert AS (
    INSERT INTO certificates (id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code,
        status, recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at, expires_at, created_at, updated_at)
    SELECT @id, @account_id, @event_id, @attendee_id, @template_id,
        @number_prefix::text || lpad(counter.last_number::text, greatest(@number_digits::integer, length(counter.last_number::text)), '0'),
        code.code, @status, @recipient_first_name, @recipient_last_name, @recipient_email, @snapshot,
        sqlc.narg(issued_at), sqlc.narg(expires_at), @now::timestamptz, @now::timestamptz
    FROM counter, code
    WHERE sqlc.narg(credit_period)::date IS NULL OR EXISTS (SELECT 1 FROM credit)
    RETURNING *
), entry AS (
    INSERT INTO verifiable_credentials (credential_id, kind, account_id, list, status_index, salt, signed_at)
    SELECT cert.id, 'certificate', cert.account_id, l.list, candidate, @status_salt::text, @now::timestamptz
    FROM cert,
         (SELECT s.list FROM status_lists s WHERE s.account_id = @account_id AND s.full_at IS NULL ORDER BY s.list LIMIT 1) l,
         unnest(@status_candidates::integer[]) AS candidate
    WHERE cert.issued_at IS NOT NULL
    -- the first free candidate is taken; the rest conflict with it on credential_id
    ON CONFLICT DO NOTHING
    RETURNING list
), event AS (
    INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at)
    SELECT @outbox_id, cert.account_id, @event_type::text,
        jsonb_set(sqlc.narg(event_payload)::jsonb, @event_number_at::text[], to_jsonb(cert.certificate_number)), @now::timestamptz
    FROM cert
    WHERE sqlc.narg(event_payload)::jsonb IS NOT NULL
), counted AS (
    INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, issued)
    SELECT cert.account_id, (cert.issued_at AT TIME ZONE 'UTC')::date, cert.event_id, 'certificate', 1
    FROM cert
    WHERE cert.issued_at IS NOT NULL
    ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET issued = d.issued + excluded.issued
)
SELECT cert.*, EXISTS (SELECT 1 FROM entry) AS status_assigned FROM cert;

-- IssueDraft turns a draft into the issued certificate, keeping its number and code.
-- name: IssueDraft :one
UPDATE certificates SET status = 'issued', recipient_first_name = @recipient_first_name,
    recipient_last_name = @recipient_last_name, recipient_email = @recipient_email, snapshot = @snapshot,
    issued_at = @issued_at, expires_at = sqlc.narg(expires_at), updated_at = @now::timestamptz
WHERE id = @id AND status = 'draft'
RETURNING *;

-- name: GetCertificate :one
SELECT * FROM certificates WHERE account_id = @account_id AND id = @id;

-- name: LockCertificate :one
SELECT * FROM certificates WHERE account_id = @account_id AND id = @id FOR UPDATE;

-- GetCertificateRecord is GetCertificate without what the certificate is rendered from (the
-- snapshot, a compressed document of some kilobytes): what the API shows of it.
-- name: GetCertificateRecord :one
SELECT id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code, status,
       recipient_first_name, recipient_last_name, recipient_email, issued_at, expires_at, revoked_at,
       revocation_reason, revocation_reason_code, created_at, updated_at
FROM certificates WHERE account_id = @account_id AND id = @id;

-- ListEventCertificates is a page of an event's certificates as the API shows them (without
-- their snapshots, like GetCertificateRecord), of one status as the API names it when status
-- is set: valid (issued, not past its expiry at now), expired (marked so, or issued and past
-- its expiry), revoked or draft.
-- name: ListEventCertificates :many
SELECT id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code, status,
       recipient_first_name, recipient_last_name, recipient_email, issued_at, expires_at, revoked_at,
       revocation_reason, revocation_reason_code, created_at, updated_at
FROM certificates WHERE account_id = @account_id AND event_id = @event_id
  AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
        WHEN 'valid' THEN status = 'issued' AND (expires_at IS NULL OR expires_at > @now::timestamptz)
        WHEN 'expired' THEN status = 'expired' OR (status = 'issued' AND expires_at <= @now::timestamptz)
        ELSE status = sqlc.narg(status)::text END)
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountEventCertificates :one
SELECT count(*) FROM certificates WHERE account_id = @account_id AND event_id = @event_id
  AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
        WHEN 'valid' THEN status = 'issued' AND (expires_at IS NULL OR expires_at > @now::timestamptz)
        WHEN 'expired' THEN status = 'expired' OR (status = 'issued' AND expires_at <= @now::timestamptz)
        ELSE status = sqlc.narg(status)::text END);

-- name: RevokeCertificate :one
UPDATE certificates SET status = 'revoked', revoked_at = @revoked_at, revocation_reason = sqlc.narg(reason),
    revocation_reason_code = @reason_code, updated_at = @now::timestamptz
WHERE id = @id AND status IN ('issued', 'expired')
RETURNING *;

-- name: DeleteDraftCertificate :exec
DELETE FROM certificates WHERE id = @id AND status = 'draft';

-- name: ReplaceSnapshot :one
UPDATE certificates SET snapshot = @snapshot, recipient_first_name = @recipient_first_name,
    recipient_last_name = @recipient_last_name, recipient_email = @recipient_email, updated_at = @now::timestamptz
WHERE id = @id
RETURNING *;

-- name: SetRecipientToken :exec
UPDATE certificates SET recipient_token_hash = @token_hash WHERE id = @id;

-- name: InsertOutboxEvent :exec
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at)
VALUES (@id, @account_id, @event_type, @payload, @occurred_at);

-- InsertOutboxEvents writes several events of one account and kind in one statement (the
-- assertions of one issuance, or of a retired badge), in the order given.
-- name: InsertOutboxEvents :exec
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at)
SELECT unnest(@ids::uuid[]), @account_id, @event_type, unnest(@payloads::jsonb[]), @occurred_at;

-- name: ListOutboxEvents :many
SELECT * FROM outbox_events WHERE account_id = @account_id ORDER BY occurred_at, id;
