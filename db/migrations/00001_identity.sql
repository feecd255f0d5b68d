-- +goose Up
-- Accounts, their users, sessions, API keys and branding.

CREATE TABLE plans (
    code            text PRIMARY KEY,
    monthly_credits integer CHECK (monthly_credits >= 0) -- NULL: unlimited
);
INSERT INTO plans (code, monthly_credits) VALUES
    ('free', 12), ('pro', 1000), ('business', 10000), ('unlimited', NULL);

CREATE TABLE accounts (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    plan       text NOT NULL DEFAULT 'free' REFERENCES plans (code),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id          uuid NOT NULL REFERENCES accounts (id),
    email               text NOT NULL CHECK (email = lower(btrim(email))),
    name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    password_hash       text NOT NULL,
    role                text NOT NULL CHECK (role IN ('owner', 'member')),
    totp_secret         text,
    totp_enabled        boolean NOT NULL DEFAULT false,
    -- RFC 6238 section 5.2: the last accepted time step; a code is accepted once only.
    totp_last_step      bigint NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_key UNIQUE (email),
    CONSTRAINT users_account_id_id_key UNIQUE (account_id, id),
    CHECK (NOT totp_enabled OR totp_secret IS NOT NULL)
);
-- One owner per account.
CREATE UNIQUE INDEX users_one_owner_per_account ON users (account_id) WHERE role = 'owner';

CREATE TABLE recovery_codes (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  bytea NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT recovery_codes_user_id_code_hash_key UNIQUE (user_id, code_hash)
);

-- Ed25519 keys that sign access tokens. A retired key keeps verifying until its tokens expire.
CREATE TABLE signing_keys (
    kid         text PRIMARY KEY,
    private_key bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    retired_at  timestamptz
);

CREATE TABLE sessions (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id        uuid NOT NULL,
    user_id           uuid NOT NULL,
    -- When the password (and code) sign-in that began the session happened; refreshes keep it.
    authenticated_at  timestamptz NOT NULL,
    expires_at        timestamptz NOT NULL,
    revoked_at        timestamptz,
    revoked_reason    text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id) ON DELETE CASCADE
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);

-- Every refresh token ever handed out; a rotated one presented again revokes its session.
CREATE TABLE refresh_tokens (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    session_id  uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    token_hash  bytea NOT NULL,
    expires_at  timestamptz NOT NULL,
    rotated_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT refresh_tokens_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX refresh_tokens_session_id_idx ON refresh_tokens (session_id);

CREATE TABLE api_keys (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id   uuid NOT NULL REFERENCES accounts (id),
    created_by   uuid NOT NULL REFERENCES users (id),
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    scopes       text[] NOT NULL CHECK (cardinality(scopes) > 0),
    prefix       text NOT NULL,
    key_hash     bytea NOT NULL,
    expires_at   timestamptz,
    last_used_at timestamptz,
    deleted_at   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_keys_account_id_idx ON api_keys (account_id, created_at DESC);

CREATE TABLE branding (
    account_id      uuid PRIMARY KEY REFERENCES accounts (id),
    issuer_name     text,
    website         text,
    logo            text,
    primary_color   text CHECK (primary_color ~ '^#[0-9A-Fa-f]{6}$'),
    email_from_name text,
    email_reply_to  text,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE branding, api_keys, refresh_tokens, sessions, signing_keys, recovery_codes, users, accounts, plans;
