-- +goose Up
-- An account's members with roles, their invitations, and the audit log (issue 51).
--
-- Roles, each including the one below: viewer, issuer, admin, owner (exactly one an account).
-- Every member before this migration was 'member', which becomes 'issuer'.
ALTER TABLE users DROP CONSTRAINT users_role_check;
UPDATE users SET role = 'issuer' WHERE role = 'member';
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('viewer', 'issuer', 'admin', 'owner'));

-- Whether the address was shown to reach the user; those that exist now count as verified.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
UPDATE users SET email_verified_at = created_at;

-- A key records who created it, by id while the member exists and by name for ever: removing
-- a member revokes their keys and deletes the user, whose email is then free again.
ALTER TABLE api_keys ADD COLUMN created_by_name text;
UPDATE api_keys k SET created_by_name = u.name FROM users u WHERE u.id = k.created_by;
UPDATE api_keys SET created_by_name = '' WHERE created_by_name IS NULL;
ALTER TABLE api_keys ALTER COLUMN created_by_name SET NOT NULL;
ALTER TABLE api_keys ALTER COLUMN created_by DROP NOT NULL;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_created_by_fkey;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_by_fkey
    FOREIGN KEY (created_by) REFERENCES users (id) ON DELETE SET NULL;

-- The account's own emails about its members: invitations, and (with the sign-in lifecycle)
-- password resets and changes and address verification. Their links' tokens never rest in the
-- recorded body: a marker stands there, filled as the message is sent.
ALTER TABLE email_deliveries DROP CONSTRAINT email_deliveries_kind_check;
ALTER TABLE email_deliveries ADD CONSTRAINT email_deliveries_kind_check CHECK (kind IN ('certificate', 'badge',
    'api_key_created', 'notice', 'invitation', 'invitation_existing', 'password_reset', 'password_changed',
    'email_verification'));

-- An invitation into an account. Its token is kept only as a hash; an invitation is pending
-- until it is accepted, revoked or past expires_at.
CREATE TABLE member_invitations (
    id          uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    email       text NOT NULL CHECK (email = lower(btrim(email))),
    role        text NOT NULL CHECK (role IN ('viewer', 'issuer', 'admin')),
    token_hash  bytea NOT NULL,
    invited_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL,
    CONSTRAINT member_invitations_token_hash_key UNIQUE (token_hash),
    CONSTRAINT member_invitations_account_id_id_key UNIQUE (account_id, id)
);
CREATE INDEX member_invitations_account_created_idx ON member_invitations (account_id, created_at DESC, id DESC);

-- The audit log: one entry a change, written in the transaction of the change. Actors are kept
-- by id and by a snapshot of their name (members are deleted; their entries stay until
-- retention). Summaries name resources by id and hold no personal data of recipients.
CREATE TABLE audit_log (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id),
    at            timestamptz NOT NULL,
    actor_type    text NOT NULL CHECK (actor_type IN ('user', 'apiKey', 'system')),
    actor_id      uuid,
    actor_name    text NOT NULL,
    action        text NOT NULL,
    resource_type text,
    resource_id   text,
    ip            text,
    user_agent    text,
    summary       text NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_account_at_idx ON audit_log (account_id, at DESC, id DESC);
CREATE INDEX audit_log_account_resource_idx ON audit_log (account_id, resource_type, resource_id, at DESC);

-- +goose Down
DROP TABLE audit_log;
DELETE FROM email_deliveries WHERE kind IN ('invitation', 'invitation_existing', 'password_reset', 'password_changed',
    'email_verification');
ALTER TABLE email_deliveries DROP CONSTRAINT email_deliveries_kind_check;
ALTER TABLE email_deliveries ADD CONSTRAINT email_deliveries_kind_check CHECK (kind IN ('certificate', 'badge',
    'api_key_created', 'notice'));
DROP TABLE member_invitations;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_created_by_fkey;
DELETE FROM api_keys WHERE created_by IS NULL;
ALTER TABLE api_keys ALTER COLUMN created_by SET NOT NULL;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_by_fkey FOREIGN KEY (created_by) REFERENCES users (id);
ALTER TABLE api_keys DROP COLUMN created_by_name;
ALTER TABLE users DROP COLUMN email_verified_at;
ALTER TABLE users DROP CONSTRAINT users_role_check;
UPDATE users SET role = 'member' WHERE role <> 'owner';
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('owner', 'member'));
