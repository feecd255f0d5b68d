-- name: InsertBulkJob :one
INSERT INTO bulk_jobs (id, account_id, event_id, template_id, send_email, draft, total, created_at)
VALUES (@id, @account_id, @event_id, @template_id, @send_email, @draft, @total, @now::timestamptz)
RETURNING *;

-- name: InsertBulkJobItems :copyfrom
INSERT INTO bulk_job_items (job_id, attendee_id) VALUES (@job_id, @attendee_id);

-- name: ActiveBulkJob :one
SELECT id FROM bulk_jobs WHERE event_id = @event_id AND status IN ('queued', 'running');

-- name: GetBulkJob :one
SELECT * FROM bulk_jobs WHERE account_id = @account_id AND event_id = @event_id AND id = @id;

-- ListBulkJobs is a page of an event's jobs, newest first.
-- name: ListBulkJobs :many
SELECT * FROM bulk_jobs WHERE account_id = @account_id AND event_id = @event_id
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountBulkJobs :one
SELECT count(*) FROM bulk_jobs WHERE account_id = @account_id AND event_id = @event_id;

-- name: GetBulkJobByID :one
SELECT * FROM bulk_jobs WHERE id = @id;

-- name: StartBulkJob :exec
UPDATE bulk_jobs SET status = 'running', started_at = coalesce(started_at, @now::timestamptz)
WHERE id = @id AND status IN ('queued', 'running');

-- name: PendingBulkJobItems :many
SELECT attendee_id FROM bulk_job_items WHERE job_id = @job_id AND outcome IS NULL
ORDER BY attendee_id LIMIT @batch_size;

-- RecordBulkJobItem sets an item's outcome once and counts it on the job, in one statement.
-- name: RecordBulkJobItem :execrows
WITH item AS (
    UPDATE bulk_job_items SET outcome = @outcome::text, certificate_id = sqlc.narg(certificate_id),
        error_code = nullif(@error_code::text, ''), error_message = nullif(@error_message::text, ''), processed_at = @now::timestamptz
    WHERE job_id = @job_id AND attendee_id = @attendee_id AND outcome IS NULL
    RETURNING outcome
)
UPDATE bulk_jobs SET processed = processed + 1,
    issued = issued + (@outcome::text = 'issued')::int,
    skipped = skipped + (@outcome::text = 'skipped')::int,
    failed = failed + (@outcome::text = 'failed')::int,
    errors = CASE WHEN @outcome::text = 'failed' AND jsonb_array_length(errors) < 100
        THEN errors || jsonb_build_array(jsonb_build_object('attendeeId', @attendee_id::uuid, 'code', @error_code::text, 'message', @error_message::text))
        ELSE errors END
WHERE id = @job_id AND EXISTS (SELECT 1 FROM item);

-- RecordIssuedBulkJobItems records the issuance of several items of a job at once (a batch
-- the job issued in one transaction) and counts them on the job, in one statement. An item
-- recorded already is left as it is and not counted. The items are found through the primary
-- key (= ANY); a join with the unnested arrays was planned as a scan of the job's items,
-- a noticeable part of a batch on a 10,000-attendee job (docs/benchmarks.md).
-- name: RecordIssuedBulkJobItems :exec
WITH items AS (
    UPDATE bulk_job_items i SET outcome = 'issued',
        certificate_id = (@certificate_ids::uuid[])[array_position(@attendee_ids::uuid[], i.attendee_id)],
        processed_at = @now::timestamptz
    WHERE i.job_id = @job_id AND i.attendee_id = ANY(@attendee_ids::uuid[]) AND i.outcome IS NULL
    RETURNING i.attendee_id
)
UPDATE bulk_jobs SET processed = processed + (SELECT count(*) FROM items), issued = issued + (SELECT count(*) FROM items)
WHERE id = @job_id;

-- FinishBulkJob records a job's end; no row: it had ended already.
-- name: FinishBulkJob :one
UPDATE bulk_jobs SET status = @status, finished_at = @now::timestamptz WHERE id = @id AND status IN ('queued', 'running')
RETURNING *;

-- AttendeesWithoutValidCertificate lists an event's attendees who hold no valid certificate of
-- the template, oldest first; not those erased at their request, to whom nothing is issued.
-- name: AttendeesWithoutValidCertificate :many
SELECT a.id FROM attendees a
WHERE a.account_id = @account_id AND a.event_id = @event_id AND a.erased_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM certificates c
    WHERE c.attendee_id = a.id AND c.event_id = a.event_id AND c.template_id = @template_id AND c.status = 'issued'
      AND (c.expires_at IS NULL OR c.expires_at > @now::timestamptz))
ORDER BY a.created_at, a.id;

-- CountAttendeesToIssue counts, of the attendees named, those of the event who hold no valid
-- certificate of the template and were not erased: the ones an issuance would charge a credit for.
-- name: CountAttendeesToIssue :one
SELECT count(*) FROM attendees a
WHERE a.account_id = @account_id AND a.event_id = @event_id AND a.id = ANY (@ids::uuid[]) AND a.erased_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM certificates c
    WHERE c.attendee_id = a.id AND c.event_id = a.event_id AND c.template_id = @template_id AND c.status = 'issued'
      AND (c.expires_at IS NULL OR c.expires_at > @now::timestamptz));
