-- +goose Up
-- Templates, events with their registration settings, and attendees.

CREATE TABLE templates (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- NULL for the read-only system templates shared by every account.
    account_id  uuid REFERENCES accounts (id),
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    description text,
    active      boolean NOT NULL DEFAULT true,
    page_size   text NOT NULL DEFAULT 'A4' CHECK (page_size IN ('A4', 'LETTER')),
    orientation text NOT NULL DEFAULT 'landscape' CHECK (orientation IN ('landscape', 'portrait')),
    layout      jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_account_id_idx ON templates (account_id, created_at DESC);

CREATE TABLE events (
    id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id                uuid NOT NULL REFERENCES accounts (id),
    name                      text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    description               text,
    event_date                timestamptz NOT NULL,
    location                  text,
    template_id               uuid NOT NULL REFERENCES templates (id),
    certificate_validity_days integer CHECK (certificate_validity_days > 0),
    registration_enabled      boolean NOT NULL DEFAULT false,
    registration_opens_at     timestamptz,
    registration_closes_at    timestamptz,
    registration_capacity     integer CHECK (registration_capacity > 0),
    registration_message      text,
    created_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT events_account_id_id_key UNIQUE (account_id, id)
);
CREATE INDEX events_account_id_idx ON events (account_id, created_at DESC);

CREATE TABLE attendees (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id       uuid NOT NULL,
    event_id         uuid NOT NULL,
    first_name       text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 100),
    last_name        text NOT NULL CHECK (length(last_name) BETWEEN 1 AND 100),
    email            text NOT NULL,
    email_normalized text GENERATED ALWAYS AS (lower(btrim(email))) STORED,
    metadata         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT attendees_account_id_id_key UNIQUE (account_id, id),
    FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id) ON DELETE CASCADE
);
CREATE INDEX attendees_account_id_idx ON attendees (account_id, created_at DESC);
CREATE INDEX attendees_event_id_idx ON attendees (event_id, created_at DESC);
CREATE INDEX attendees_event_email_idx ON attendees (event_id, email_normalized);

-- +goose Down
DROP TABLE attendees, events, templates;
