-- +goose Up
-- Single sign-on with OpenID Connect (issue 51): an account's provider, the domains whose
-- addresses sign in through it, the users linked to a provider's subject, and the flows in
-- progress.

CREATE TABLE sso_configs (
    account_id           uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    issuer               text NOT NULL,
    client_id            text NOT NULL,
    -- The client secret, sealed with the secrets key (like TOTP and webhook secrets).
    client_secret_sealed bytea NOT NULL,
    default_role         text NOT NULL CHECK (default_role IN ('viewer', 'issuer')),
    enforced             boolean NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL
);

-- A domain is claimed by any number of accounts, and verified by one at most.
CREATE TABLE sso_domains (
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    domain      text NOT NULL CHECK (domain = lower(domain)),
    token       text NOT NULL,
    verified_at timestamptz,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, domain)
);
CREATE UNIQUE INDEX sso_domains_verified_key ON sso_domains (domain) WHERE verified_at IS NOT NULL;

-- A user signs in by single sign-on as the provider's (issuer, subject) they were linked to.
CREATE TABLE sso_links (
    issuer     text NOT NULL,
    subject    text NOT NULL,
    account_id uuid NOT NULL,
    user_id    uuid NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (issuer, subject),
    CONSTRAINT sso_links_user_key UNIQUE (user_id),
    FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id) ON DELETE CASCADE
);

-- A flow from GET /auth/sso/start to POST /auth/sso/exchange. The browser's cookie holds the
-- hash of state, which is all that binds the three steps to it; the one-time code of the
-- exchange is kept hashed too.
CREATE TABLE sso_flows (
    state_hash     bytea PRIMARY KEY,
    account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    nonce          text NOT NULL,
    code_verifier  text NOT NULL,
    -- Asked to sign the person in again: the ID token's auth_time must be recent.
    reauth         boolean NOT NULL DEFAULT false,
    expires_at     timestamptz NOT NULL,
    -- Set by the callback: the identity the provider vouched for (its address and name, kept
    -- until the flow expires), the user it is (none when the exchange makes a member), the
    -- one-time code.
    called_back_at timestamptz,
    user_id        uuid REFERENCES users (id) ON DELETE CASCADE,
    issuer         text,
    subject        text,
    email          text,
    name           text,
    code_hash      bytea UNIQUE,
    code_expires_at timestamptz,
    used_at        timestamptz,
    created_at     timestamptz NOT NULL
);
CREATE INDEX sso_flows_expires_idx ON sso_flows (expires_at);

-- How a session began: single sign-on sessions survive turning enforcement on.
ALTER TABLE sessions ADD COLUMN method text NOT NULL DEFAULT 'password' CHECK (method IN ('password', 'sso'));

-- +goose Down
ALTER TABLE sessions DROP COLUMN method;
DROP TABLE sso_flows;
DROP TABLE sso_links;
DROP TABLE sso_domains;
DROP TABLE sso_configs;
