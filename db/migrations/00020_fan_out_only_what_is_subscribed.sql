-- +goose Up
-- An outbox event is fanned out to webhooks only when its account has an active subscription
-- that takes its kind when it is recorded: the statement that records it says so, and an event
-- nobody subscribes to is recorded dispatched (at its occurrence) with no fan-out job. The job
-- of one that is subscribed is queued by the same round trip that records it
-- (queue_river_jobs), so an issuance pays no River round trip of its own.

-- webhook_takes says whether a subscription that chose events takes events of event_type: by
-- name, or by a pattern, "*" (every kind) or "certificate.*" and "badge.*" (the kinds before the
-- dot); webhook.test goes only to the subscription it was asked for.
-- +goose StatementBegin
CREATE FUNCTION webhook_takes(events text[], event_type text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT event_type = ANY (events)
        OR (event_type <> 'webhook.test' AND ('*' = ANY (events) OR split_part(event_type, '.', 1) || '.*' = ANY (events)))
$$;
-- +goose StatementEnd

-- webhook_subscribed says whether the account has an active subscription that takes event_type.
-- +goose StatementBegin
CREATE FUNCTION webhook_subscribed(account uuid, event_type text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT EXISTS (SELECT 1 FROM webhook_subscriptions s
                   WHERE s.account_id = account AND s.active AND webhook_takes(s.events, event_type))
$$;
-- +goose StatementEnd

-- queue_river_jobs queues River jobs of one kind, one per element of job_args, and wakes River's
-- producers of the queue as River's own insert does (a notification on its insert topic, which
-- PostgreSQL sends at commit). This is River's documented way for another client to insert jobs
-- (its Ruby, Python and Java clients write river_job the same way); the columns it leaves out
-- take River's defaults (available now, priority 1). River's tables are created by River's own
-- migrations, after ours on a new database: PL/pgSQL resolves them when the function first runs.
-- +goose StatementBegin
CREATE FUNCTION queue_river_jobs(job_kind text, job_queue text, job_max_attempts smallint, job_args jsonb[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(job_args) > 0 THEN
        INSERT INTO river_job (kind, queue, max_attempts, args)
        SELECT job_kind, job_queue, job_max_attempts, a FROM unnest(job_args) AS a;
        PERFORM pg_notify(current_schema() || '.river_insert', json_build_object('queue', job_queue)::text);
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION queue_river_jobs(text, text, smallint, jsonb[]);
DROP FUNCTION webhook_subscribed(uuid, text);
DROP FUNCTION webhook_takes(text[], text);
