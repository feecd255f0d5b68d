-- +goose Up
-- Retention (issue 51): how long an account keeps email bodies, webhook payloads and its audit
-- log; a periodic job purges past them. An account without a row keeps the defaults.
CREATE TABLE retention_settings (
    account_id             uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    email_bodies_days      integer NOT NULL DEFAULT 90 CHECK (email_bodies_days BETWEEN 1 AND 3650),
    webhook_payloads_days  integer NOT NULL DEFAULT 30 CHECK (webhook_payloads_days BETWEEN 1 AND 3650),
    audit_log_days         integer NOT NULL DEFAULT 400 CHECK (audit_log_days BETWEEN 90 AND 3650),
    -- A lowering of audit_log_days waits 30 days before it takes effect.
    pending_audit_log_days integer CHECK (pending_audit_log_days BETWEEN 90 AND 3650),
    pending_from           timestamptz,
    updated_at             timestamptz NOT NULL,
    CHECK ((pending_audit_log_days IS NULL) = (pending_from IS NULL))
);

-- When an email's body, or a webhook delivery's payload, was purged.
ALTER TABLE email_deliveries ADD COLUMN purged_at timestamptz;
ALTER TABLE webhook_deliveries ADD COLUMN purged_at timestamptz;
ALTER TABLE outbox_events ADD COLUMN purged_at timestamptz;
CREATE INDEX email_deliveries_unpurged_idx ON email_deliveries (created_at) WHERE purged_at IS NULL;
CREATE INDEX webhook_deliveries_unpurged_idx ON webhook_deliveries (created_at) WHERE purged_at IS NULL;
CREATE INDEX outbox_events_unpurged_idx ON outbox_events (occurred_at) WHERE purged_at IS NULL;
CREATE INDEX audit_log_at_idx ON audit_log (at);

-- The email that tells the owner a retention changed.
ALTER TABLE email_deliveries DROP CONSTRAINT email_deliveries_kind_check;
ALTER TABLE email_deliveries ADD CONSTRAINT email_deliveries_kind_check CHECK (kind IN ('certificate', 'badge',
    'api_key_created', 'notice', 'invitation', 'invitation_existing', 'password_reset', 'password_changed',
    'email_verification', 'retention_changed'));

-- +goose Down
DELETE FROM email_deliveries WHERE kind = 'retention_changed';
ALTER TABLE email_deliveries DROP CONSTRAINT email_deliveries_kind_check;
ALTER TABLE email_deliveries ADD CONSTRAINT email_deliveries_kind_check CHECK (kind IN ('certificate', 'badge',
    'api_key_created', 'notice', 'invitation', 'invitation_existing', 'password_reset', 'password_changed',
    'email_verification'));
DROP INDEX audit_log_at_idx;
ALTER TABLE outbox_events DROP COLUMN purged_at;
ALTER TABLE webhook_deliveries DROP COLUMN purged_at;
ALTER TABLE email_deliveries DROP COLUMN purged_at;
DROP TABLE retention_settings;
