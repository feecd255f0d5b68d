-- +goose Up
-- River's jobs are inserted through River's client only (store.Tx.InsertJobs, River's
-- InsertManyTx), never by SQL of ours: the functions of migrations 00020, 00021 and 00028
-- wrote River's private table (river_job) and sent its notification from PL/pgSQL, so a River
-- upgrade that changed its table would have broken issuance at run time, while River's own
-- migrations, which run at every start, kept their client in step. An issuance now knows, from
-- its reads, whether an active subscription takes its events, and inserts their fan-out job
-- with River's client in its transaction (docs/decisions/issuance-executor.md).
DROP FUNCTION IF EXISTS queue_outbox_fan_out(text, text, smallint, integer, uuid[], jsonb);
DROP FUNCTION IF EXISTS queue_outbox_fan_out(text, text, smallint, integer, uuid[]);
DROP FUNCTION IF EXISTS queue_river_jobs(text, text, smallint, jsonb[], jsonb);
DROP FUNCTION IF EXISTS queue_river_jobs(text, text, smallint, jsonb[]);

-- +goose Down
-- The previous release queues its fan-out jobs with these (migration 00028's forms).
-- +goose StatementBegin
CREATE FUNCTION queue_river_jobs(job_kind text, job_queue text, job_max_attempts smallint, job_args jsonb[], job_metadata jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(job_args) > 0 THEN
        INSERT INTO river_job (kind, queue, max_attempts, args, metadata)
        SELECT job_kind, job_queue, job_max_attempts, a, coalesce(job_metadata, '{}') FROM unnest(job_args) AS a;
        PERFORM pg_notify(current_schema() || '.river_insert', json_build_object('queue', job_queue)::text);
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION queue_outbox_fan_out(job_kind text, job_queue text, job_max_attempts smallint, batch integer, ids uuid[], job_metadata jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    event_id uuid;
BEGIN
    FOREACH event_id IN ARRAY coalesce(ids, '{}') LOOP
        IF EXISTS (SELECT 1 FROM outbox_events e WHERE e.id = event_id AND e.dispatched_at IS NULL) THEN
            PERFORM queue_river_jobs(job_kind, job_queue, job_max_attempts, coalesce(array_agg(j.args), '{}'), job_metadata)
            FROM (SELECT jsonb_build_object('outboxEventIds', jsonb_agg(p.id ORDER BY p.occurred_at, p.id)) AS args
                  FROM (SELECT e.id, e.occurred_at, (row_number() OVER (ORDER BY e.occurred_at, e.id) - 1) / queue_outbox_fan_out.batch AS chunk
                        FROM outbox_events e WHERE e.id = ANY (queue_outbox_fan_out.ids) AND e.dispatched_at IS NULL) p
                  GROUP BY p.chunk) j;
            RETURN;
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd
