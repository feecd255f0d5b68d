-- Members of an account (users with roles) and their invitations.

-- name: ListMembers :many
SELECT u.id, u.email, u.name, u.role, u.totp_enabled, u.created_at,
       (SELECT max(ss.created_at) FROM sessions ss WHERE ss.user_id = u.id) AS last_sign_in_at
FROM users u
WHERE u.account_id = @account_id
ORDER BY u.created_at DESC, u.id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountMembers :one
SELECT count(*) FROM users WHERE account_id = @account_id;

-- LockMember holds a member while their role changes or they are removed.
-- name: LockMember :one
SELECT * FROM users WHERE account_id = @account_id AND id = @id FOR UPDATE;

-- name: GetMember :one
SELECT u.id, u.email, u.name, u.role, u.totp_enabled, u.created_at,
       (SELECT max(ss.created_at) FROM sessions ss WHERE ss.user_id = u.id) AS last_sign_in_at
FROM users u
WHERE u.account_id = @account_id AND u.id = @id;

-- name: SetMemberRole :exec
UPDATE users SET role = @role, updated_at = @now::timestamptz WHERE account_id = @account_id AND id = @id;

-- name: DeleteMember :execrows
DELETE FROM users WHERE account_id = @account_id AND id = @id AND role <> 'owner';

-- EndUserSessions ends every live session of a user but keep (uuid.Nil: all of them).
-- name: EndUserSessions :execrows
UPDATE sessions SET revoked_at = @now::timestamptz, revoked_reason = @reason
WHERE account_id = @account_id AND user_id = @user_id AND id <> @keep AND revoked_at IS NULL;

-- RevokeKeysOfCreator revokes the live keys a member created holding any scope but those
-- allowed (all of them when allowed is empty), and returns their ids.
-- name: RevokeKeysOfCreator :many
UPDATE api_keys SET deleted_at = @now::timestamptz
WHERE account_id = @account_id AND created_by = @created_by AND deleted_at IS NULL
  AND NOT (scopes <@ @allowed::text[])
RETURNING id;

-- name: CreateInvitation :one
INSERT INTO member_invitations (id, account_id, email, role, token_hash, invited_by, expires_at, created_at)
VALUES (@id, @account_id, @email, @role, @token_hash, @invited_by, @expires_at, @now::timestamptz)
RETURNING *;

-- CountInvitations counts an account's pending invitations at @now, and those created since
-- @since (pending or not).
-- name: CountInvitations :one
SELECT count(*) FILTER (WHERE accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now::timestamptz) AS pending,
       count(*) FILTER (WHERE created_at > @since::timestamptz) AS recent
FROM member_invitations WHERE account_id = @account_id;

-- LockInvitations serialises an account's invitations (@lock_key names the account), so that
-- the limits above hold under concurrency.
-- name: LockInvitations :exec
SELECT pg_advisory_xact_lock(hashtextextended(@lock_key::text, 0));

-- name: ListPendingInvitations :many
SELECT * FROM member_invitations
WHERE account_id = @account_id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now::timestamptz
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountPendingInvitations :one
SELECT count(*) FROM member_invitations
WHERE account_id = @account_id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now::timestamptz;

-- name: RevokeInvitation :execrows
UPDATE member_invitations SET revoked_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now::timestamptz;

-- LockInvitationByToken holds the invitation whose token hashes to @token_hash, pending or not.
-- name: LockInvitationByToken :one
SELECT * FROM member_invitations WHERE token_hash = @token_hash FOR UPDATE;

-- name: AcceptInvitation :exec
UPDATE member_invitations SET accepted_at = @now::timestamptz WHERE id = @id;

-- name: CreateMember :one
INSERT INTO users (id, account_id, email, name, password_hash, role, email_verified_at, created_at, updated_at)
VALUES (@id, @account_id, @email, @name, @password_hash, @role, @now::timestamptz, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: TransferOwnership :exec
UPDATE users SET role = CASE WHEN id = @new_owner THEN 'owner' ELSE 'admin' END, updated_at = @now::timestamptz
WHERE account_id = @account_id AND id IN (@old_owner, @new_owner);

-- SetInvitationToken gives a pending invitation a new token (its email is being sent) and
-- returns it; none when it is no longer pending.
-- name: SetInvitationToken :one
-- Only the invitation of the message's own account and address: a marker that text of
-- another origin (a name) put in a body names nobody else's.
UPDATE member_invitations SET token_hash = @token_hash
WHERE id = @id AND account_id = @account_id AND email = lower(btrim(@email::text))
  AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now::timestamptz
RETURNING *;
