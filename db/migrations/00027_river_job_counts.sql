-- +goose Up
-- river_job_counts counts River's jobs by queue and state, for the operator's metrics
-- (credentiald_jobs, read at each scrape). River's tables are created by River's own
-- migrations, after ours on a new database, and sqlc does not know them: PL/pgSQL resolves the
-- table when the function runs, and a database without it yet counts nothing. One GROUP BY
-- over River's (state, queue, ...) fetching index: an index-only scan, whose cost grows with
-- the jobs River keeps (finished ones until its cleaner deletes them, a day by default).
-- +goose StatementBegin
CREATE FUNCTION river_job_counts() RETURNS TABLE (queue text, state text, jobs bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF to_regclass('river_job') IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT j.queue::text, j.state::text, count(*) FROM river_job j GROUP BY j.queue, j.state;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION river_job_counts();
