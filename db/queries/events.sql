-- TemplateUsable reports whether an event of the account may use a template: one of the
-- account's own, or a system template.
-- name: TemplateUsable :one
SELECT EXISTS (
    SELECT 1 FROM templates WHERE id = @id AND (account_id = @account_id::uuid OR account_id IS NULL)
);

-- name: CreateEvent :one
INSERT INTO events (id, account_id, name, description, event_date, location, template_id, certificate_validity_days,
                    locale, created_at, updated_at)
VALUES (@id, @account_id, @name, sqlc.narg(description), @event_date, sqlc.narg(location), @template_id,
        sqlc.narg(certificate_validity_days), @locale, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: GetEvent :one
SELECT * FROM events WHERE account_id = @account_id AND id = @id;

-- ListEvents is a page of the account's events, those whose name matches @pattern (a LIKE
-- pattern, compared lower-cased as events_name_trgm_idx indexes it) when it is set. Its ORDER
-- BY is the list's default; the store puts the order asked in its place (store/lists.go).
-- name: ListEvents :many
SELECT * FROM events WHERE account_id = @account_id
  AND (sqlc.narg(pattern)::text IS NULL OR lower(name COLLATE "und-x-icu") LIKE sqlc.narg(pattern)::text)
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountEvents :one
SELECT count(*) FROM events WHERE account_id = @account_id
  AND (sqlc.narg(pattern)::text IS NULL OR lower(name COLLATE "und-x-icu") LIKE sqlc.narg(pattern)::text);

-- name: UpdateEvent :one
UPDATE events SET name = @name, description = sqlc.narg(description), event_date = @event_date,
    location = sqlc.narg(location), template_id = @template_id,
    certificate_validity_days = sqlc.narg(certificate_validity_days), locale = @locale, updated_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id
RETURNING *;

-- name: UpdateEventRegistration :one
UPDATE events SET registration_enabled = @enabled, registration_opens_at = sqlc.narg(opens_at),
    registration_closes_at = sqlc.narg(closes_at), registration_capacity = sqlc.narg(capacity),
    registration_message = sqlc.narg(message), updated_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id
RETURNING *;

-- LockEvent holds an event while it is deleted, so that no certificate is issued meanwhile.
-- name: LockEvent :one
SELECT id FROM events WHERE account_id = @account_id AND id = @id FOR UPDATE;

-- CountIssuedCertificatesOfEvent counts the certificates other than drafts that the event's
-- attendees hold, but for erased people's: those no longer hold the event.
-- name: CountIssuedCertificatesOfEvent :one
SELECT count(*) FROM certificates c JOIN attendees a ON a.id = c.attendee_link
WHERE c.account_id = @account_id AND c.event_id = @event_id AND c.status <> 'draft' AND a.erased_at IS NULL;

-- UnlinkErasedOfEvent lets the credentials of the event's erased attendees go of them (migration
-- 00044), before the event and its attendees are deleted: the credentials stay, revoked (all
-- of an erased person's are); only revoked ones are let go (a draft keeps its link and goes with
-- the event; anything else would keep the attendee, whose key then refuses the deletion).
-- name: UnlinkErasedOfEvent :exec
WITH erased AS (
    SELECT e.id FROM attendees e WHERE e.account_id = @account_id AND e.event_id = @event_id AND e.erased_at IS NOT NULL
), certs AS (
    UPDATE certificates c SET attendee_link = NULL WHERE c.attendee_link IN (SELECT id FROM erased) AND c.status = 'revoked'
)
UPDATE badge_assertions b SET attendee_link = NULL WHERE b.attendee_link IN (SELECT id FROM erased) AND b.status = 'revoked';

-- name: DeleteDraftCertificatesOfEvent :many
DELETE FROM certificates WHERE account_id = @account_id AND event_id = @event_id AND status = 'draft'
RETURNING id, verification_code;

-- name: DeleteEvent :exec
DELETE FROM events WHERE account_id = @account_id AND id = @id;
