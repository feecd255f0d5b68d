-- name: CreateSession :one
INSERT INTO sessions (id, account_id, user_id, authenticated_at, expires_at, ip, user_agent, method, last_used_at, created_at)
VALUES (@id, @account_id, @user_id, @authenticated_at, @expires_at, @ip, @user_agent, @method, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: CreateRefreshToken :exec
INSERT INTO refresh_tokens (id, session_id, token_hash, expires_at, created_at)
VALUES (@id, @session_id, @token_hash, @expires_at, @now::timestamptz);

-- LockRefreshToken finds a refresh token and its session, holding the token's row until the
-- transaction ends: of two refreshes with one token, the second sees the first's rotation.
-- name: LockRefreshToken :one
SELECT rt.id, rt.session_id, rt.expires_at, rt.rotated_at,
       s.account_id, s.user_id, s.revoked_at AS session_revoked_at, s.expires_at AS session_expires_at
FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id
WHERE rt.token_hash = @token_hash
FOR UPDATE OF rt;

-- name: RotateRefreshToken :exec
UPDATE refresh_tokens SET rotated_at = @now::timestamptz WHERE id = @id;

-- name: ExtendSession :exec
UPDATE sessions SET expires_at = @expires_at WHERE id = @id AND revoked_at IS NULL;

-- name: RevokeSession :execrows
UPDATE sessions SET revoked_at = @now::timestamptz, revoked_reason = @reason
WHERE id = @id AND revoked_at IS NULL;

-- ActiveSession is the check behind every access token: the session must still be live.
-- name: ActiveSession :one
SELECT s.id, s.account_id, s.user_id, s.authenticated_at, s.last_used_at, u.role, u.name,
       (u.email_verified_at IS NOT NULL)::boolean AS email_verified FROM sessions s
JOIN users u ON u.account_id = s.account_id AND u.id = s.user_id
WHERE s.id = @id AND s.account_id = @account_id AND s.user_id = @user_id
  AND s.revoked_at IS NULL AND s.expires_at > @now::timestamptz;

-- name: InsertSigningKey :execrows
INSERT INTO signing_keys (kid, private_key, created_at) VALUES (@kid, @private_key, @now::timestamptz)
ON CONFLICT DO NOTHING;

-- name: ActivateSigningKey :exec
UPDATE signing_keys SET retired_at = NULL WHERE kid = @kid;

-- name: RetireSigningKeys :exec
UPDATE signing_keys SET retired_at = @now::timestamptz WHERE retired_at IS NULL AND kid <> @keep_kid;

-- VerifyingSigningKeys are the active key and those retired after the given time (tokens
-- they signed may still be unexpired).
-- name: VerifyingSigningKeys :many
SELECT * FROM signing_keys WHERE retired_at IS NULL OR retired_at > @retired_after::timestamptz
ORDER BY created_at DESC;
