-- name: GetSSOConfig :one
SELECT * FROM sso_configs WHERE account_id = @account_id;

-- name: UpsertSSOConfig :one
INSERT INTO sso_configs (account_id, issuer, client_id, client_secret_sealed, default_role, enforced, created_at, updated_at)
VALUES (@account_id, @issuer, @client_id, @client_secret_sealed, @default_role, @enforced, @now::timestamptz, @now::timestamptz)
ON CONFLICT (account_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
    client_secret_sealed = EXCLUDED.client_secret_sealed, default_role = EXCLUDED.default_role,
    enforced = EXCLUDED.enforced, updated_at = EXCLUDED.updated_at
RETURNING *;

-- name: DeleteSSOConfig :execrows
DELETE FROM sso_configs WHERE account_id = @account_id;

-- name: SSOEnforced :one
SELECT EXISTS (SELECT 1 FROM sso_configs WHERE account_id = @account_id AND enforced)::boolean;

-- SSOEnforcedShared reads whether the account enforces single sign-on, holding its provider's
-- row (FOR SHARE) until the transaction ends: a password session begun in that transaction is
-- either seen by a concurrent switch to enforced, which then ends it, or sees the switch.
-- name: SSOEnforcedShared :many
SELECT enforced FROM sso_configs WHERE account_id = @account_id FOR SHARE;

-- EndPasswordSessions ends the password sessions of every member of the account but the owner.
-- name: EndPasswordSessions :execrows
UPDATE sessions s SET revoked_at = @now::timestamptz, revoked_reason = @reason
FROM users u
WHERE s.account_id = @account_id AND u.account_id = s.account_id AND u.id = s.user_id
  AND u.role <> 'owner' AND s.method = 'password' AND s.revoked_at IS NULL;

-- name: ListSSODomains :many
SELECT * FROM sso_domains WHERE account_id = @account_id ORDER BY domain;

-- name: CountSSODomains :one
SELECT count(*) FROM sso_domains WHERE account_id = @account_id;

-- name: InsertSSODomain :one
INSERT INTO sso_domains (account_id, domain, token, verified_at, created_at)
VALUES (@account_id, @domain, @token, sqlc.narg('verified_at'), @now::timestamptz)
RETURNING *;

-- name: GetSSODomain :one
SELECT * FROM sso_domains WHERE account_id = @account_id AND domain = @domain;

-- name: VerifySSODomain :one
UPDATE sso_domains SET verified_at = coalesce(verified_at, @now::timestamptz)
WHERE account_id = @account_id AND domain = @domain
RETURNING *;

-- name: DeleteSSODomain :execrows
DELETE FROM sso_domains WHERE account_id = @account_id AND domain = @domain;

-- DomainOwner is the account that verified the domain (none when no account did).
-- name: DomainOwner :one
SELECT account_id FROM sso_domains WHERE domain = @domain AND verified_at IS NOT NULL;

-- name: CreateSSOFlow :exec
INSERT INTO sso_flows (state_hash, account_id, nonce, code_verifier, reauth, expires_at, created_at)
VALUES (@state_hash, @account_id, @nonce, @code_verifier, @reauth, @expires_at, @now::timestamptz);

-- LockSSOFlowByCode holds a flow by its one-time code's hash until the transaction ends.
-- name: LockSSOFlowByCode :one
SELECT * FROM sso_flows WHERE code_hash = @code_hash FOR UPDATE;

-- ConsumeSSOState spends the state of a flow that is live and was not called back yet, once.
-- name: ConsumeSSOState :one
UPDATE sso_flows SET called_back_at = @now::timestamptz
WHERE state_hash = @state_hash AND called_back_at IS NULL AND expires_at > @now::timestamptz
RETURNING *;

-- name: SSOFlowCalledBack :exec
UPDATE sso_flows SET user_id = sqlc.narg('user_id'), issuer = @issuer, subject = @subject, email = @email,
    name = @name, code_hash = @code_hash, code_expires_at = @code_expires_at
WHERE state_hash = @state_hash;

-- name: SSOFlowUsed :exec
UPDATE sso_flows SET used_at = @now::timestamptz WHERE state_hash = @state_hash;

-- name: DeleteExpiredSSOFlows :execrows
DELETE FROM sso_flows WHERE expires_at < @before::timestamptz;

-- name: FindSSOLink :one
SELECT * FROM sso_links WHERE issuer = @issuer AND subject = @subject;

-- name: CreateSSOLink :exec
INSERT INTO sso_links (issuer, subject, account_id, user_id, created_at)
VALUES (@issuer, @subject, @account_id, @user_id, @now::timestamptz);

-- LockPendingInvitationByEmail holds the newest pending invitation of an address into the
-- account: single sign-on's first sign-in of that address accepts it.
-- name: LockPendingInvitationByEmail :one
SELECT * FROM member_invitations
WHERE account_id = @account_id AND email = @email AND accepted_at IS NULL AND revoked_at IS NULL
  AND expires_at > @now::timestamptz
ORDER BY created_at DESC LIMIT 1
FOR UPDATE;

-- name: SSOSecrets :many
SELECT account_id, client_secret_sealed FROM sso_configs ORDER BY account_id;

-- ReplaceSSOSecret reseals a client secret unless it changed meanwhile.
-- name: ReplaceSSOSecret :execrows
UPDATE sso_configs SET client_secret_sealed = @sealed
WHERE account_id = @account_id AND client_secret_sealed = @previous;

-- name: SSOLinkOfUser :one
SELECT * FROM sso_links WHERE user_id = @user_id;

-- DeleteSSOLinksOfOtherIssuers unlinks the account's members from every provider but issuer.
-- name: DeleteSSOLinksOfOtherIssuers :execrows
DELETE FROM sso_links WHERE account_id = @account_id AND issuer <> @issuer;
