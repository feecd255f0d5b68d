-- name: LockMigrations :exec
-- Serialises migrations across instances starting at once (held by one session).
SELECT pg_advisory_lock(7461029384756102938);

-- name: UnlockMigrations :exec
SELECT pg_advisory_unlock(7461029384756102938);

-- DatabaseFingerprint digests every row of every table of the public schema, found in the
-- catalogue, so that a table added later is covered without a change here: the service's
-- tables, River's jobs (a refused request must not queue a job) and goose's. Tests compare it
-- before and after a refused request to show that nothing changed. What moves with no request
-- at all is left out: River's own bookkeeping (river_leader, river_client, river_queue, which
-- leader election and the queues write while a client runs) and the periodic jobs River's
-- leader inserts (metadata periodic); so is what a request may move without changing anything:
-- api_keys.last_used_at and sessions.last_used_at, which authentication itself moves. Rows are digested in the order of
-- their own digests, so no table needs a key for it; query_to_xml runs the statement built for
-- each table.
-- name: DatabaseFingerprint :one
WITH tables AS (
    SELECT c.relname::text AS name,
           CASE WHEN c.relname IN ('api_keys', 'sessions') THEN ARRAY['last_used_at'] ELSE ARRAY[]::text[] END AS ignored,
           CASE c.relname WHEN 'river_job' THEN 'WHERE NOT coalesce((x.metadata->>''periodic'')::boolean, false)' ELSE '' END AS kept
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
      AND (c.relname NOT LIKE 'river\_%' OR c.relname = 'river_job')
)
SELECT md5(string_agg(t.name || ':' || d.digest, '|' ORDER BY t.name))::text AS fingerprint
FROM tables t
CROSS JOIN LATERAL (
    SELECT (xpath('/row/d/text()', query_to_xml(format(
        'SELECT md5(coalesce(string_agg(r, '','' ORDER BY r), '''')) AS d'
        ' FROM (SELECT md5((to_jsonb(x) - %L::text[])::text) AS r FROM public.%I x %s) AS digests',
        t.ignored, t.name, t.kept), false, true, '')))[1]::text AS digest
) d;

-- CleanCertificateSearchPending merges the pending entries of the certificates' trigram search
-- index into the index proper (see migration 00033), and answers how many pending pages it
-- emptied. It takes the index's cleanup lock: a merge already running elsewhere is waited for.
-- Only the index's owner (the role that ran the migrations) may.
-- name: CleanCertificateSearchPending :one
SELECT gin_clean_pending_list('certificate_search_trgm_idx'::regclass)::bigint AS pages;
