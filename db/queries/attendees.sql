-- LockEventShared keeps an event from being deleted while attendees are added to it, and
-- serialises imports into one event (so skipDuplicates sees every earlier import).
-- name: LockEventForAttendees :one
SELECT id FROM events WHERE account_id = @account_id AND id = @id FOR NO KEY UPDATE;

-- CreateAttendee adds an attendee and queues it for the search indexer (migration 00037).
-- name: CreateAttendee :one
WITH queued AS (
    INSERT INTO attendee_search_queue (event_id, attendee_id) VALUES (@event_id, @id))
INSERT INTO attendees (id, account_id, event_id, first_name, last_name, email, metadata, created_at, updated_at)
VALUES (@id, @account_id, @event_id, @first_name, @last_name, @email, @metadata, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: GetAttendee :one
SELECT * FROM attendees WHERE account_id = @account_id AND id = @id;

-- ListAttendees is a page of the account's attendees, of one event and with one email
-- (compared trimmed and lower-cased) when those are set.
-- ListAttendees is a page of the account's attendees, of one event and of one email, each
-- when set. Its ORDER BY is the list's default (see ListEvents).
-- name: ListAttendees :many
SELECT * FROM attendees
WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
  AND (sqlc.narg(email)::text IS NULL OR email_normalized = lower(btrim(sqlc.narg(email)::text)))
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- A search (@pattern: a LIKE pattern, lower-cased as attendee_search_text is) is read in two
-- steps (store/search.go): CountAttendeeMatches counts the matches in attendee_search, then the
-- page is read from attendees, by WalkAttendees when matches are common and by
-- SearchAttendees when they are rare or the walk came short.

-- CountAttendeeMatches counts the account's (or an event's) attendees whose searched text
-- matches @pattern: a trigram index scan of attendee_search, whose narrow rows it checks.
-- name: CountAttendeeMatches :one
SELECT count(*) FROM attendee_search
WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
  AND search_text LIKE @pattern::text;

-- WalkAttendees reads the first @walk attendees of the list in its order and keeps those that
-- match: the page, when @walk rows hold it. For a common word, a page is found after a few
-- hundred rows, where reading every match by id would read thousands.
-- name: WalkAttendees :many
SELECT a.* FROM (
    SELECT * FROM attendees
    WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
      AND (sqlc.narg(email)::text IS NULL OR email_normalized = lower(btrim(sqlc.narg(email)::text)))
    ORDER BY created_at DESC, id DESC
    LIMIT @walk) a
WHERE attendee_search_text(a.first_name, a.last_name, a.email) LIKE @pattern::text
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- SearchAttendees reads every match by id (found in attendee_search first: MATERIALIZED keeps
-- PostgreSQL from walking the account in order on the guess that matches come soon) and sorts
-- them.
-- name: SearchAttendees :many
WITH matches AS MATERIALIZED (
    SELECT attendee_id FROM attendee_search
    WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
      AND search_text LIKE @pattern::text)
SELECT a.* FROM attendees a JOIN matches m ON a.id = m.attendee_id
WHERE a.account_id = @account_id
  AND (sqlc.narg(email)::text IS NULL OR a.email_normalized = lower(btrim(sqlc.narg(email)::text)))
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- CountAttendees counts what ListAttendees and a search list: with @pattern, the attendees
-- whose searched text matches it. With an email, the few attendees of that email are read and
-- checked; without one, CountAttendeeMatches counts a search.
-- name: CountAttendees :one
SELECT count(*) FROM attendees
WHERE account_id = @account_id AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id))
  AND (sqlc.narg(email)::text IS NULL OR email_normalized = lower(btrim(sqlc.narg(email)::text)))
  AND (sqlc.narg(pattern)::text IS NULL
       OR attendee_search_text(first_name, last_name, email) LIKE sqlc.narg(pattern)::text);

-- UpdateAttendee changes the fields set, and queues the attendee for the search indexer when a
-- searched one (the names, the email) is set.
-- name: UpdateAttendee :one
WITH queued AS (
    INSERT INTO attendee_search_queue (event_id, attendee_id)
    SELECT a.event_id, a.id FROM attendees a
    WHERE a.account_id = @account_id AND a.id = @id
      AND (sqlc.narg(first_name)::text IS NOT NULL OR sqlc.narg(last_name)::text IS NOT NULL OR sqlc.narg(email)::text IS NOT NULL))
UPDATE attendees u SET
    first_name = coalesce(sqlc.narg(first_name), u.first_name),
    last_name  = coalesce(sqlc.narg(last_name), u.last_name),
    email      = coalesce(sqlc.narg(email), u.email),
    metadata   = coalesce(sqlc.narg(metadata), u.metadata),
    updated_at = @now::timestamptz
WHERE u.account_id = @account_id AND u.id = @id
RETURNING *;

-- LockAttendee holds an attendee while it is changed or deleted, so no certificate or badge is
-- issued meanwhile, and tells whether it was erased.
-- name: LockAttendee :one
SELECT id, erased_at FROM attendees WHERE account_id = @account_id AND id = @id FOR UPDATE;

-- UnlinkErasedAttendee lets an erased attendee's credentials go of them (migration 00044),
-- before the attendee is deleted: the credentials stay, revoked (all of an erased person's
-- are); only revoked ones are let go (a draft keeps its link and goes with them; anything else
-- would keep the attendee, whose key then refuses the deletion).
-- name: UnlinkErasedAttendee :exec
WITH certs AS (
    UPDATE certificates c SET attendee_link = NULL
    FROM attendees a WHERE a.account_id = @account_id AND a.id = @id AND a.erased_at IS NOT NULL AND c.attendee_link = a.id
      AND c.status = 'revoked'
)
UPDATE badge_assertions b SET attendee_link = NULL
FROM attendees a WHERE a.account_id = @account_id AND a.id = @id AND a.erased_at IS NOT NULL AND b.attendee_link = a.id
  AND b.status = 'revoked';

-- name: AttendeeHoldings :one
SELECT
    (SELECT count(*) FROM certificates c WHERE c.account_id = @account_id AND c.attendee_id = @id AND c.status <> 'draft') AS certificates,
    (SELECT count(*) FROM badge_assertions b WHERE b.account_id = @account_id AND b.attendee_id = @id) AS badges;

-- name: DeleteDraftCertificatesOfAttendee :many
DELETE FROM certificates WHERE account_id = @account_id AND attendee_id = @id AND status = 'draft'
RETURNING id, verification_code;

-- name: DeleteAttendee :exec
DELETE FROM attendees WHERE account_id = @account_id AND id = @id;

-- An import (store.Tx.ImportAttendees) copies its rows into a temporary table,
-- attendee_import (the shape of migration 00037's table of that name, which the temporary one
-- hides for the transaction), then adds them to the event in one statement, which also queues
-- them for the search indexer: the event's attendees created at @now.

-- name: CreateAttendeeImport :exec
CREATE TEMP TABLE attendee_import (LIKE attendee_import) ON COMMIT DROP;

-- name: CopyAttendeeImport :copyfrom
INSERT INTO attendee_import (ord, id, first_name, last_name, email, metadata) VALUES (@ord, @id, @first_name, @last_name, @email, @metadata);

-- InsertImportedAttendees adds every row of the import.
-- name: InsertImportedAttendees :execrows
WITH queued AS (
    INSERT INTO attendee_search_queue (event_id, created_at) VALUES (@event_id, @now::timestamptz))
INSERT INTO attendees (id, account_id, event_id, first_name, last_name, email, metadata, created_at, updated_at)
SELECT i.id, @account_id, @event_id, i.first_name, i.last_name, i.email, i.metadata, @now::timestamptz, @now::timestamptz
FROM attendee_import i;

-- InsertImportedAttendeesOnce adds the rows of the import whose email (compared as
-- email_normalized is) is neither on the event nor on an earlier row of the file.
-- name: InsertImportedAttendeesOnce :execrows
WITH queued AS (
    INSERT INTO attendee_search_queue (event_id, created_at) VALUES (@event_id, @now::timestamptz))
INSERT INTO attendees (id, account_id, event_id, first_name, last_name, email, metadata, created_at, updated_at)
SELECT i.id, @account_id, @event_id, i.first_name, i.last_name, i.email, i.metadata, @now::timestamptz, @now::timestamptz
FROM (SELECT DISTINCT ON (lower(btrim(f.email))) f.* FROM attendee_import f ORDER BY lower(btrim(f.email)), f.ord) i
WHERE NOT EXISTS (SELECT 1 FROM attendees a WHERE a.event_id = @event_id AND a.email_normalized = lower(btrim(i.email)))
ORDER BY i.ord;

-- name: EventMetadataKeys :many
SELECT DISTINCT k::text AS key FROM attendees, jsonb_object_keys(metadata) AS k
WHERE event_id = @event_id AND created_at <= @until::timestamptz ORDER BY 1;

-- ExportAttendees reads one batch of an event's attendees created at or before @until (the start
-- of the export), oldest first, after a keyset position, with the certificate that best
-- describes each: the valid one, else the newest issued, else a draft.
-- name: ExportAttendees :many
SELECT a.id, a.first_name, a.last_name, a.email, a.metadata, a.created_at,
       coalesce(c.status, '')::text AS certificate_status, c.expires_at AS certificate_expires_at,
       coalesce(c.certificate_number, '')::text AS certificate_number,
       coalesce(c.verification_code, '')::text AS verification_code
FROM attendees a
LEFT JOIN LATERAL (
    SELECT status, expires_at, certificate_number, verification_code FROM certificates
    WHERE certificates.attendee_id = a.id AND certificates.event_id = a.event_id
    ORDER BY (status = 'issued') DESC, (status = 'draft') ASC, issued_at DESC NULLS LAST, created_at DESC
    LIMIT 1
) c ON true
WHERE a.event_id = @event_id AND a.created_at <= @until::timestamptz
  AND (a.created_at, a.id) > (@after_created_at::timestamptz, @after_id::uuid)
ORDER BY a.created_at, a.id
LIMIT @batch_size;

-- The search indexer (store.Store.IndexAttendeeSearch) writes the search rows of the queued
-- attendees, one indexer at a time (the lock below, held to the transaction's end), so that
-- an attendee changed twice in a row is never indexed last from the older read.

-- name: LockAttendeeSearchIndexer :one
SELECT pg_try_advisory_xact_lock('attendee_search_queue'::regclass::oid::bigint) AS locked;

-- IndexQueuedAttendees takes up to @entries entries of the queue, oldest first, and writes
-- the search rows of their attendees as they are now (each once, in id order: the order of
-- their locks); an attendee deleted meanwhile has none. Each entry's attendees are read by
-- their index (LATERAL: the queue's few entries, not a scan of attendees). It answers how many
-- entries it took and how many search rows it wrote.
-- name: IndexQueuedAttendees :one
WITH taken AS (
    DELETE FROM attendee_search_queue q
    WHERE q.id IN (SELECT id FROM attendee_search_queue ORDER BY id LIMIT @entries)
    RETURNING q.event_id, q.attendee_id, q.created_at),
written AS (
    SELECT DISTINCT ON (a.id) a.id, a.account_id, a.event_id, attendee_search_text(a.first_name, a.last_name, a.email) AS search_text
    FROM taken t CROSS JOIN LATERAL (
        SELECT a.id, a.account_id, a.event_id, a.first_name, a.last_name, a.email FROM attendees a
        WHERE a.id = t.attendee_id
        UNION ALL
        SELECT a.id, a.account_id, a.event_id, a.first_name, a.last_name, a.email FROM attendees a
        WHERE t.attendee_id IS NULL AND a.event_id = t.event_id AND a.created_at = t.created_at) a
    ORDER BY a.id),
indexed AS (
    INSERT INTO attendee_search AS s (account_id, attendee_id, event_id, search_text)
    SELECT w.account_id, w.id, w.event_id, w.search_text FROM written w
    ON CONFLICT (attendee_id) DO UPDATE SET search_text = excluded.search_text
    WHERE s.search_text IS DISTINCT FROM excluded.search_text
    RETURNING 1)
SELECT (SELECT count(*) FROM taken)::bigint AS entries, (SELECT count(*) FROM indexed)::bigint AS indexed;

-- CleanAttendeeSearchPending is CleanCertificateSearchPending (maintenance.sql) for the
-- attendees' search index.
-- name: CleanAttendeeSearchPending :one
SELECT gin_clean_pending_list('attendee_search_trgm_idx'::regclass)::bigint AS pages;
