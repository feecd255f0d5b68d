-- name: CountJobsByQueueAndState :many
-- River's jobs by queue and state (river_job_counts in the migrations: sqlc does not know
-- River's tables).
SELECT queue::text AS queue, state::text AS state, jobs::bigint AS jobs FROM river_job_counts();
