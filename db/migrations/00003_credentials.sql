-- +goose Up
-- Certificates, badges and their assertions, verification codes and monthly credits.

-- One registry of public verification codes, so a code names one credential of either kind.
CREATE TABLE verification_codes (
    code       text PRIMARY KEY CHECK (code = upper(code)),
    kind       text NOT NULL CHECK (kind IN ('certificate', 'badge_assertion')),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Per-account counter behind human certificate numbers (CERT-2026-000042).
CREATE TABLE certificate_counters (
    account_id  uuid PRIMARY KEY REFERENCES accounts (id),
    last_number bigint NOT NULL DEFAULT 0
);

CREATE TABLE certificates (
    id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id             uuid NOT NULL,
    event_id               uuid NOT NULL,
    attendee_id            uuid NOT NULL,
    template_id            uuid NOT NULL REFERENCES templates (id),
    certificate_number     text NOT NULL,
    verification_code      text NOT NULL REFERENCES verification_codes (code),
    -- 'expired' is written when an expired certificate is superseded; readers also derive it from expires_at.
    status                 text NOT NULL CHECK (status IN ('draft', 'issued', 'expired', 'revoked')),
    recipient_first_name   text NOT NULL,
    recipient_last_name    text NOT NULL,
    recipient_email        text NOT NULL,
    -- The template, recipient, event and issuer data the PDF is rendered from; changes only on regenerate.
    snapshot               jsonb NOT NULL,
    recipient_token_hash   bytea,
    issued_at              timestamptz,
    expires_at             timestamptz,
    revoked_at             timestamptz,
    revocation_reason      text,
    revocation_reason_code text CHECK (revocation_reason_code IN ('issued_in_error', 'superseded', 'fraud', 'other', 'deleted_by_issuer')),
    first_viewed_at        timestamptz,
    first_verified_at      timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT certificates_account_id_id_key UNIQUE (account_id, id),
    CONSTRAINT certificates_account_id_certificate_number_key UNIQUE (account_id, certificate_number),
    CONSTRAINT certificates_verification_code_key UNIQUE (verification_code),
    FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id),
    FOREIGN KEY (account_id, attendee_id) REFERENCES attendees (account_id, id),
    CHECK ((status = 'draft') = (issued_at IS NULL)),
    CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);
-- The invariant "at most one valid certificate per attendee, event and template", held by the database.
CREATE UNIQUE INDEX certificates_one_issued ON certificates (attendee_id, event_id, template_id) WHERE status = 'issued';
CREATE UNIQUE INDEX certificates_one_draft ON certificates (attendee_id, event_id, template_id) WHERE status = 'draft';
CREATE INDEX certificates_event_id_idx ON certificates (event_id, created_at DESC);

CREATE TABLE badges (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id         uuid NOT NULL REFERENCES accounts (id),
    name               text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    description        text,
    criteria_narrative text,
    criteria_url       text,
    image              text,
    tags               text[] NOT NULL DEFAULT '{}',
    validity_days      integer CHECK (validity_days > 0),
    status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
    retired_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT badges_account_id_id_key UNIQUE (account_id, id),
    CHECK ((status = 'retired') = (retired_at IS NOT NULL))
);
CREATE INDEX badges_account_id_idx ON badges (account_id, created_at DESC);

CREATE TABLE badge_assertions (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id           uuid NOT NULL,
    badge_id             uuid NOT NULL,
    attendee_id          uuid NOT NULL,
    verification_code    text NOT NULL REFERENCES verification_codes (code),
    recipient_first_name text NOT NULL,
    recipient_last_name  text NOT NULL,
    recipient_email      text NOT NULL,
    status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
    issued_at            timestamptz NOT NULL DEFAULT now(),
    expires_at           timestamptz,
    revoked_at           timestamptz,
    revocation_reason    text,
    first_verified_at    timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT badge_assertions_badge_id_attendee_id_key UNIQUE (badge_id, attendee_id),
    CONSTRAINT badge_assertions_verification_code_key UNIQUE (verification_code),
    FOREIGN KEY (account_id, badge_id) REFERENCES badges (account_id, id),
    FOREIGN KEY (account_id, attendee_id) REFERENCES attendees (account_id, id)
);
CREATE INDEX badge_assertions_badge_id_idx ON badge_assertions (badge_id, issued_at DESC);

-- Credits used per account and calendar month (UTC); spent in the transaction that issues.
CREATE TABLE credit_usage (
    account_id uuid NOT NULL REFERENCES accounts (id),
    period     date NOT NULL CHECK (extract(day FROM period) = 1),
    used       integer NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (account_id, period)
);

-- +goose Down
DROP TABLE credit_usage, badge_assertions, badges, certificates, certificate_counters, verification_codes;
