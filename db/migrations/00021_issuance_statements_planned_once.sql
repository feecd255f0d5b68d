-- +goose Up
-- Two statements of every issuance were planned again at each execution (found with
-- pg_stat_statements and perf on the PostgreSQL backends, issue 28: most of the PostgreSQL CPU
-- an issuance had gained over the single-statement issuance; figures in docs/benchmarks.md).
--
-- webhook_subscribed was a SQL function whose body has a subquery: PostgreSQL cannot inline
-- it, so every statement that calls it (each outbox event's insert) parsed, analysed and
-- planned its body again. In PL/pgSQL its query is prepared once a session.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION webhook_subscribed(account uuid, event_type text) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM webhook_subscriptions s
                   WHERE s.account_id = webhook_subscribed.account AND s.active
                     AND webhook_takes(s.events, webhook_subscribed.event_type));
END
$$;
-- +goose StatementEnd

-- queue_outbox_fan_out is the statement that queues the webhook fan-out jobs of outbox events
-- (QueueOutboxFanOut): those of the events that wait for one (not recorded dispatched), batch
-- events a job, in the order they occurred; nothing when none waits. As a prepared statement
-- it was planned at every execution: with the events' ids known, a custom plan costs a fourth
-- of the generic one (which counts ten ids), so plan_cache_mode auto never chose the generic
-- plan; and every issuance paid for starting its plan of a dozen nodes, though most events wait
-- for nothing. Here each event is first looked up by its id alone (a plan prepared once a
-- session: the generic plan is the custom one), and the jobs are built only when one waits.
-- +goose StatementBegin
CREATE FUNCTION queue_outbox_fan_out(job_kind text, job_queue text, job_max_attempts smallint, batch integer, ids uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    event_id uuid;
BEGIN
    FOREACH event_id IN ARRAY coalesce(ids, '{}') LOOP
        IF EXISTS (SELECT 1 FROM outbox_events e WHERE e.id = event_id AND e.dispatched_at IS NULL) THEN
            PERFORM queue_river_jobs(job_kind, job_queue, job_max_attempts, coalesce(array_agg(j.args), '{}'))
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

-- +goose Down
DROP FUNCTION queue_outbox_fan_out(text, text, smallint, integer, uuid[]);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION webhook_subscribed(account uuid, event_type text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT EXISTS (SELECT 1 FROM webhook_subscriptions s
                   WHERE s.account_id = account AND s.active AND webhook_takes(s.events, event_type))
$$;
-- +goose StatementEnd
