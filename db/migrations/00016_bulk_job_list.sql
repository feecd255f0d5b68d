-- +goose Up
-- GET /events/{id}/certificates/generate/jobs lists an event's jobs, newest first: one index
-- scan a page.
CREATE INDEX bulk_jobs_event_created_idx ON bulk_jobs (event_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX bulk_jobs_event_created_idx;
