-- +goose Up
-- Secrets sealed at rest (AES-256-GCM, internal/secretbox).

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
