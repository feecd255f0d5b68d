-- +goose Up
-- The sign-in lifecycle (issue 51): password resets, address verification, and sessions a
-- member can see and end.

-- Where a session began and when it was last used (written at most once a minute).
ALTER TABLE sessions ADD COLUMN ip text, ADD COLUMN user_agent text, ADD COLUMN last_used_at timestamptz;
UPDATE sessions SET last_used_at = created_at;

-- The single-use tokens of a user's links: a password reset (valid an hour) and an address
-- verification (a day). Only their hash is kept; the link's token is made as its email is
-- sent, so it never rests in the recorded body either.
CREATE TABLE user_tokens (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    text NOT NULL CHECK (purpose IN ('password_reset', 'email_verification')),
    token_hash bytea NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL,
    CONSTRAINT user_tokens_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX user_tokens_user_purpose_idx ON user_tokens (user_id, purpose, created_at DESC);

-- +goose Down
DROP TABLE user_tokens;
ALTER TABLE sessions DROP COLUMN ip, DROP COLUMN user_agent, DROP COLUMN last_used_at;
