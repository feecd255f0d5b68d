-- +goose Up
-- Secrets sealed at rest (AES-256-GCM, internal/secretbox), and webhook delivery under a lease.

-- A signing secret is kept sealed: it must be read back in clear to sign, so it cannot be a
-- hash. No subscription existed before this migration (the operations answered 501), so the
-- plain column goes without a data migration.
ALTER TABLE webhook_subscriptions DROP COLUMN secret,
    ADD COLUMN secret_sealed bytea NOT NULL;

-- A dispatcher claims a due delivery until leased_until; one that stops while sending lets the
-- lease lapse, and the delivery is due again (the lapsed attempt stays counted).
ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;

-- TOTP secrets are sealed from now on. Plain ones written before this migration stay in
-- totp_secret until the service seals them at its next start; a migration cannot, since the
-- key is not the database's to know.
ALTER TABLE users ADD COLUMN totp_secret_sealed bytea,
    DROP CONSTRAINT users_check,
    ADD CONSTRAINT users_totp_secret_when_enabled
        CHECK (NOT totp_enabled OR totp_secret IS NOT NULL OR totp_secret_sealed IS NOT NULL);

-- +goose Down
-- Fails while a user with two-step sign-in on has only a sealed secret: nothing here can open it.
ALTER TABLE users DROP CONSTRAINT users_totp_secret_when_enabled,
    DROP COLUMN totp_secret_sealed,
    ADD CONSTRAINT users_check CHECK (NOT totp_enabled OR totp_secret IS NOT NULL);
ALTER TABLE webhook_deliveries DROP COLUMN leased_until;
ALTER TABLE webhook_subscriptions DROP COLUMN secret_sealed,
    ADD COLUMN secret text NOT NULL;
