-- +goose Up
-- Idempotency records, bulk jobs, the outbox, webhooks, email deliveries and analytics counters.

CREATE TABLE idempotency_keys (
    account_id      uuid NOT NULL REFERENCES accounts (id),
    key             text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    -- Method, path and canonical body.
    fingerprint     bytea NOT NULL,
    -- A request in flight holds the key until locked_until; a process that dies lets it lapse.
    locked_until    timestamptz,
    response_status integer,
    response_body   bytea,
    response_headers jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (account_id, key),
    CHECK ((response_status IS NULL) = (locked_until IS NOT NULL))
);
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

CREATE TABLE bulk_jobs (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id  uuid NOT NULL,
    event_id    uuid NOT NULL,
    template_id uuid NOT NULL REFERENCES templates (id),
    status      text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
    send_email  boolean NOT NULL,
    draft       boolean NOT NULL,
    total       integer NOT NULL DEFAULT 0 CHECK (total >= 0),
    processed   integer NOT NULL DEFAULT 0 CHECK (processed >= 0),
    issued      integer NOT NULL DEFAULT 0 CHECK (issued >= 0),
    skipped     integer NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    failed      integer NOT NULL DEFAULT 0 CHECK (failed >= 0),
    errors      jsonb NOT NULL DEFAULT '[]',
    created_at  timestamptz NOT NULL DEFAULT now(),
    started_at  timestamptz,
    finished_at timestamptz,
    CONSTRAINT bulk_jobs_account_id_id_key UNIQUE (account_id, id),
    FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id) ON DELETE CASCADE
);
-- At most one queued or running job per event.
CREATE UNIQUE INDEX bulk_jobs_one_active_per_event ON bulk_jobs (event_id) WHERE status IN ('queued', 'running');

-- The attendees of a job and what became of each: a restarted job resumes from here.
CREATE TABLE bulk_job_items (
    job_id         uuid NOT NULL REFERENCES bulk_jobs (id) ON DELETE CASCADE,
    attendee_id    uuid NOT NULL,
    outcome        text CHECK (outcome IN ('issued', 'skipped', 'failed')),
    certificate_id uuid REFERENCES certificates (id),
    error_code     text,
    error_message  text,
    processed_at   timestamptz,
    PRIMARY KEY (job_id, attendee_id)
);

-- Side effects written in the transaction of their cause, carried out by workers afterwards.
CREATE TABLE outbox_events (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id    uuid NOT NULL REFERENCES accounts (id),
    event_type    text NOT NULL CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed',
                                                      'certificate.downloaded', 'certificate.revoked', 'webhook.test')),
    payload       jsonb NOT NULL,
    occurred_at   timestamptz NOT NULL DEFAULT now(),
    dispatched_at timestamptz
);
CREATE INDEX outbox_events_pending_idx ON outbox_events (occurred_at) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_subscriptions (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id           uuid NOT NULL REFERENCES accounts (id),
    url                  text NOT NULL,
    events               text[] NOT NULL CHECK (cardinality(events) > 0),
    description          text,
    -- The HMAC key must be usable to sign, so it cannot be stored as a one-way hash.
    secret               text NOT NULL,
    active               boolean NOT NULL DEFAULT true,
    consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    disabled_at          timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_subscriptions_account_id_id_key UNIQUE (account_id, id)
);

CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id      uuid NOT NULL,
    subscription_id uuid NOT NULL,
    outbox_event_id uuid REFERENCES outbox_events (id),
    event_type      text NOT NULL,
    payload         bytea NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 5),
    last_attempt_at timestamptz,
    next_attempt_at timestamptz,
    response_status integer,
    response_body   text,
    error           text,
    duration_ms     integer,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_deliveries_subscription_id_outbox_event_id_key UNIQUE (subscription_id, outbox_event_id),
    FOREIGN KEY (account_id, subscription_id) REFERENCES webhook_subscriptions (account_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC);

CREATE TABLE email_deliveries (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id         uuid NOT NULL REFERENCES accounts (id),
    kind               text NOT NULL CHECK (kind IN ('certificate', 'badge', 'api_key_created', 'notice')),
    certificate_id     uuid REFERENCES certificates (id),
    badge_assertion_id uuid REFERENCES badge_assertions (id),
    to_address         text NOT NULL,
    subject            text NOT NULL,
    body_text          text NOT NULL,
    status             text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    attempts           integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error         text,
    next_attempt_at    timestamptz NOT NULL DEFAULT now(),
    sent_at            timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_deliveries_due_idx ON email_deliveries (next_attempt_at) WHERE status = 'queued';
CREATE INDEX email_deliveries_account_idx ON email_deliveries (account_id, created_at DESC);

-- Daily figures per account and event; the dashboard and event analytics add them up.
CREATE TABLE analytics_daily (
    account_id    uuid NOT NULL REFERENCES accounts (id),
    event_id      uuid NOT NULL,
    day           date NOT NULL,
    issued        integer NOT NULL DEFAULT 0,
    badges_issued integer NOT NULL DEFAULT 0,
    views         integer NOT NULL DEFAULT 0,
    shares        integer NOT NULL DEFAULT 0,
    downloads     integer NOT NULL DEFAULT 0,
    verifications integer NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, event_id, day)
);

-- +goose Down
DROP TABLE analytics_daily, email_deliveries, webhook_deliveries, webhook_subscriptions, outbox_events, bulk_job_items, bulk_jobs, idempotency_keys;
