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

-- LockIssueSources reads what certificates are made from, for some of the account's attendees,
-- each with the template asked for it (@attendee_ids[i] with @template_ids[i]), in one
-- statement: the attendee, locked as LockAttendeeForIssue locks it (the attendees in id order,
-- as LockAttendees locks them), with its event, the template (the account's or a system one),
-- the account's branding (its columns NULL when the account has none) and name. An attendee
-- or template missing has no row (LockAttendeeForIssue tells which). Sent in one batch with the
-- CurrentCertificatesFor and ReserveNewCertificateCode of each (store.Tx.ReadIssuances).
-- name: LockIssueSources :many
SELECT a.*, e.name AS event_name, e.event_date, e.location AS event_location, e.description AS event_description,
       e.certificate_validity_days, e.template_id AS event_template_id, e.locale AS event_locale,
       sqlc.embed(t),
       b.account_id AS branding_account_id, b.issuer_name AS branding_issuer_name, b.website AS branding_website,
       b.logo AS branding_logo, b.primary_color AS branding_primary_color, b.email_from_name AS branding_email_from_name,
       b.email_reply_to AS branding_email_reply_to, b.updated_at AS branding_updated_at, b.signatories AS branding_signatories,
       acc.name AS account_name
FROM (SELECT unnest(@attendee_ids::uuid[]) AS attendee_id, unnest(@template_ids::uuid[]) AS template_id) k
JOIN attendees a ON a.id = k.attendee_id
JOIN events e ON e.id = a.event_id
JOIN accounts acc ON acc.id = a.account_id
JOIN templates t ON t.id = k.template_id AND (t.account_id = a.account_id OR t.account_id IS NULL)
LEFT JOIN branding b ON b.account_id = a.account_id
WHERE a.account_id = @account_id
ORDER BY a.id
FOR UPDATE OF a;

-- CurrentCertificatesFor reads the key's issued certificate and its draft, if any: what is
-- current of it, but for an issued certificate past its expiry (lapsed), which the caller tells
-- apart by the issuance's time and which does not block a new one (at most one issued
-- certificate per attendee, event and template: the issuance marks the lapsed one expired, in
-- its writes, after the account's credit row, IssuanceExpireCertificates). Only the
-- account's attendee's (the EXISTS, once per statement: an account_id condition on
-- certificates led PostgreSQL's generic plan to the account's index, much slower). It shares
-- its round trip with ReserveNewCertificateCode, queued after it, and with LockIssueSources
-- (store.Tx.ReadIssuances).
-- name: CurrentCertificatesFor :many
SELECT cur.* FROM certificates cur
WHERE cur.attendee_id = @attendee_id AND cur.event_id = @event_id AND cur.template_id = @template_id
  AND cur.status IN ('issued', 'draft')
  AND EXISTS (SELECT 1 FROM attendees a WHERE a.id = @attendee_id AND a.account_id = @account_id);

-- ReserveNewCertificateCode reserves @code for the key's new certificate, in the batch of
-- CurrentCertificatesFor: only when the key has no current certificate (no draft, and no issued
-- one but lapsed at @now), the one case in which certificates.Issue inserts a new one;
-- otherwise the key's certificate keeps its own code, or none is issued, and nothing is
-- reserved. No row: the key has a current certificate, or the code was taken (the caller tells
-- which from CurrentCertificatesFor's answer). The key is held by its attendee's lock, taken
-- before, so no certificate of it appears in between.
-- name: ReserveNewCertificateCode :one
INSERT INTO verification_codes (code, kind, created_at)
SELECT @code::text, 'certificate', @now::timestamptz
WHERE NOT EXISTS (
    SELECT 1 FROM certificates cur
    WHERE cur.attendee_id = @attendee_id AND cur.event_id = @event_id AND cur.template_id = @template_id
      AND (cur.status = 'draft' OR (cur.status = 'issued' AND (cur.expires_at IS NULL OR cur.expires_at > @now::timestamptz)))
)
ON CONFLICT DO NOTHING
RETURNING code;

-- name: CreditFigures :one
SELECT a.plan, p.monthly_credits AS monthly_limit,
       coalesce((SELECT used FROM credit_usage u WHERE u.account_id = a.id AND u.period = @period::date), 0)::integer AS used
FROM accounts a JOIN plans p ON p.code = a.plan
WHERE a.id = @account_id;

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

-- ListCertificates is a page of the account's certificates as the API shows them (without
-- their snapshots, like GetCertificateRecord), with the filters that are set: an event, an
-- attendee, a template; a status as the API names it, at now: valid (issued, not past its
-- expiry), expired (marked so, or issued and past its expiry), revoked or draft; issued at
-- or after issued_from and before issued_before. Its ORDER BY is the list's default (see
-- ListEvents). CountCertificates counts them, and with @pattern those whose searched text
-- (certificate_search_text) matches it, as a search lists them.
-- name: ListCertificates :many
SELECT id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code, status,
       recipient_first_name, recipient_last_name, recipient_email, issued_at, expires_at, revoked_at,
       revocation_reason, revocation_reason_code, created_at, updated_at
FROM certificates
WHERE account_id = @account_id
  AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
  AND (sqlc.narg(attendee_id)::uuid IS NULL OR attendee_id = sqlc.narg(attendee_id))
  AND (sqlc.narg(template_id)::uuid IS NULL OR template_id = sqlc.narg(template_id))
  AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
        WHEN 'valid' THEN status = 'issued' AND (expires_at IS NULL OR expires_at > @now::timestamptz)
        WHEN 'expired' THEN status = 'expired' OR (status = 'issued' AND expires_at <= @now::timestamptz)
        ELSE status = sqlc.narg(status)::text END)
  AND (sqlc.narg(issued_from)::timestamptz IS NULL OR issued_at >= sqlc.narg(issued_from)::timestamptz)
  AND (sqlc.narg(issued_before)::timestamptz IS NULL OR issued_at < sqlc.narg(issued_before)::timestamptz)
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- A search is read in two steps, as the attendees' are (store/search.go): the matches are
-- counted, in certificate_search alone when no filter but the event is set
-- (CountCertificateMatches), and the page is read from certificates, along its order
-- (WalkCertificates) or by id (SearchCertificates).

-- name: CountCertificateMatches :one
SELECT count(*) FROM certificate_search
WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
  AND search_text LIKE @pattern::text;

-- name: WalkCertificates :many
SELECT id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code, status,
       recipient_first_name, recipient_last_name, recipient_email, issued_at, expires_at, revoked_at,
       revocation_reason, revocation_reason_code, created_at, updated_at
FROM (
    SELECT id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code, status,
           recipient_first_name, recipient_last_name, recipient_email, issued_at, expires_at, revoked_at,
           revocation_reason, revocation_reason_code, created_at, updated_at
    FROM certificates
    WHERE account_id = @account_id
      AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
      AND (sqlc.narg(attendee_id)::uuid IS NULL OR attendee_id = sqlc.narg(attendee_id))
      AND (sqlc.narg(template_id)::uuid IS NULL OR template_id = sqlc.narg(template_id))
      AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
            WHEN 'valid' THEN status = 'issued' AND (expires_at IS NULL OR expires_at > @now::timestamptz)
            WHEN 'expired' THEN status = 'expired' OR (status = 'issued' AND expires_at <= @now::timestamptz)
            ELSE status = sqlc.narg(status)::text END)
      AND (sqlc.narg(issued_from)::timestamptz IS NULL OR issued_at >= sqlc.narg(issued_from)::timestamptz)
      AND (sqlc.narg(issued_before)::timestamptz IS NULL OR issued_at < sqlc.narg(issued_before)::timestamptz)
    ORDER BY created_at DESC, id DESC
    LIMIT @walk) c
WHERE certificate_search_text(c.certificate_number, c.verification_code, c.recipient_first_name, c.recipient_last_name,
                              c.recipient_email) LIKE @pattern::text
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: SearchCertificates :many
WITH matches AS MATERIALIZED (
    SELECT certificate_id FROM certificate_search
    WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
      AND search_text LIKE @pattern::text)
SELECT c.id, c.account_id, c.event_id, c.attendee_id, c.template_id, c.certificate_number, c.verification_code, c.status,
       c.recipient_first_name, c.recipient_last_name, c.recipient_email, c.issued_at, c.expires_at, c.revoked_at,
       c.revocation_reason, c.revocation_reason_code, c.created_at, c.updated_at
FROM certificates c JOIN matches m ON c.id = m.certificate_id
WHERE c.account_id = @account_id
  AND (sqlc.narg(event_id)::uuid IS NULL OR c.event_id = sqlc.narg(event_id))
  AND (sqlc.narg(attendee_id)::uuid IS NULL OR c.attendee_id = sqlc.narg(attendee_id))
  AND (sqlc.narg(template_id)::uuid IS NULL OR c.template_id = sqlc.narg(template_id))
  AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
        WHEN 'valid' THEN c.status = 'issued' AND (c.expires_at IS NULL OR c.expires_at > @now::timestamptz)
        WHEN 'expired' THEN c.status = 'expired' OR (c.status = 'issued' AND c.expires_at <= @now::timestamptz)
        ELSE c.status = sqlc.narg(status)::text END)
  AND (sqlc.narg(issued_from)::timestamptz IS NULL OR c.issued_at >= sqlc.narg(issued_from)::timestamptz)
  AND (sqlc.narg(issued_before)::timestamptz IS NULL OR c.issued_at < sqlc.narg(issued_before)::timestamptz)
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- CountCertificates counts with every filter; a search's matches are found in
-- certificate_search, and the filters checked on their rows.
-- name: CountCertificates :one
SELECT count(*) FROM certificates c
WHERE c.account_id = @account_id
  AND (sqlc.narg(event_id)::uuid IS NULL OR c.event_id = sqlc.narg(event_id))
  AND (sqlc.narg(attendee_id)::uuid IS NULL OR c.attendee_id = sqlc.narg(attendee_id))
  AND (sqlc.narg(template_id)::uuid IS NULL OR c.template_id = sqlc.narg(template_id))
  AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
        WHEN 'valid' THEN c.status = 'issued' AND (c.expires_at IS NULL OR c.expires_at > @now::timestamptz)
        WHEN 'expired' THEN c.status = 'expired' OR (c.status = 'issued' AND c.expires_at <= @now::timestamptz)
        ELSE c.status = sqlc.narg(status)::text END)
  AND (sqlc.narg(issued_from)::timestamptz IS NULL OR c.issued_at >= sqlc.narg(issued_from)::timestamptz)
  AND (sqlc.narg(issued_before)::timestamptz IS NULL OR c.issued_at < sqlc.narg(issued_before)::timestamptz)
  AND (sqlc.narg(pattern)::text IS NULL
       OR c.id IN (SELECT certificate_id FROM certificate_search s
                   WHERE s.account_id = @account_id AND s.search_text LIKE sqlc.narg(pattern)::text));

-- CountCertificatesOwnRows counts a search of a small list on its own rows: the list's index
-- reads them all and each is checked, so that what it costs is the account's size, never the
-- matches other accounts have in certificate_search's trigram index.
-- name: CountCertificatesOwnRows :one
SELECT count(*) FROM certificates c
WHERE c.account_id = @account_id
  AND (sqlc.narg(event_id)::uuid IS NULL OR c.event_id = sqlc.narg(event_id))
  AND (sqlc.narg(attendee_id)::uuid IS NULL OR c.attendee_id = sqlc.narg(attendee_id))
  AND (sqlc.narg(template_id)::uuid IS NULL OR c.template_id = sqlc.narg(template_id))
  AND (sqlc.narg(status)::text IS NULL OR CASE sqlc.narg(status)::text
        WHEN 'valid' THEN c.status = 'issued' AND (c.expires_at IS NULL OR c.expires_at > @now::timestamptz)
        WHEN 'expired' THEN c.status = 'expired' OR (c.status = 'issued' AND c.expires_at <= @now::timestamptz)
        ELSE c.status = sqlc.narg(status)::text END)
  AND (sqlc.narg(issued_from)::timestamptz IS NULL OR c.issued_at >= sqlc.narg(issued_from)::timestamptz)
  AND (sqlc.narg(issued_before)::timestamptz IS NULL OR c.issued_at < sqlc.narg(issued_before)::timestamptz)
  AND certificate_search_text(c.certificate_number, c.verification_code, c.recipient_first_name, c.recipient_last_name,
                              c.recipient_email) LIKE @pattern::text;

-- name: RevokeCertificate :one
UPDATE certificates SET status = 'revoked', revoked_at = @revoked_at, revocation_reason = sqlc.narg(reason),
    revocation_reason_code = @reason_code, updated_at = @now::timestamptz
WHERE id = @id AND status IN ('issued', 'expired')
RETURNING *;

-- name: DeleteDraftCertificate :many
DELETE FROM certificates WHERE id = @id AND status = 'draft' RETURNING verification_code;

-- name: ReplaceSnapshot :one
UPDATE certificates SET snapshot = @snapshot, recipient_first_name = @recipient_first_name,
    recipient_last_name = @recipient_last_name, recipient_email = @recipient_email, updated_at = @now::timestamptz
WHERE id = @id
RETURNING *;

-- name: SetRecipientToken :one
UPDATE certificates SET recipient_token_hash = @token_hash WHERE id = @id RETURNING verification_code;

-- InsertOutboxEvent records an event; one that no active subscription takes is recorded
-- dispatched, at its occurrence (it is never fanned out). It answers whether the event waits
-- for its fan-out (pending): the store then queues the fan-out job through River's client.
-- name: InsertOutboxEvent :one
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at, dispatched_at)
VALUES (@id, @account_id, @event_type, @payload, @occurred_at,
        CASE WHEN webhook_subscribed(@account_id, @event_type) THEN NULL ELSE @occurred_at::timestamptz END)
RETURNING (dispatched_at IS NULL)::boolean AS pending;

-- InsertOutboxEvents writes several events of one account and kind in one statement (the
-- assertions of one issuance, or of a retired badge), in the order given, dispatched already
-- when no active subscription takes their kind (as InsertOutboxEvent). It answers whether they
-- wait for their fan-out (all of them do, or none).
-- name: InsertOutboxEvents :one
WITH written AS (
    INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at, dispatched_at)
    SELECT unnest(@ids::uuid[]), @account_id, @event_type, unnest(@payloads::jsonb[]), @occurred_at,
           CASE WHEN webhook_subscribed(@account_id, @event_type) THEN NULL ELSE @occurred_at::timestamptz END
    RETURNING dispatched_at
)
SELECT coalesce(bool_or(dispatched_at IS NULL), false)::boolean AS pending FROM written;

-- name: ListOutboxEvents :many
SELECT * FROM outbox_events WHERE account_id = @account_id ORDER BY occurred_at, id;
