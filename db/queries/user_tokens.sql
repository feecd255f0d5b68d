-- The single-use tokens of a user's links (migration 00039).

-- name: CreateUserToken :one
INSERT INTO user_tokens (id, user_id, purpose, token_hash, expires_at, created_at)
VALUES (@id, @user_id, @purpose, @token_hash, @expires_at, @now::timestamptz)
RETURNING *;

-- CountRecentUserTokens counts a user's tokens of a purpose made since @since.
-- name: CountRecentUserTokens :one
SELECT count(*) FROM user_tokens WHERE user_id = @user_id AND purpose = @purpose AND created_at > @since::timestamptz;

-- SetUserToken gives an unused, unexpired token a new hash (its email is being sent) and
-- returns it; none when it is used or expired.
-- name: SetUserToken :one
-- Only a token of the message's own recipient (a user of its account at its address): a
-- marker that text of another origin (a name) put in a body names nobody else's.
UPDATE user_tokens t SET token_hash = @token_hash
FROM users u
WHERE t.id = @id AND t.used_at IS NULL AND t.expires_at > @now::timestamptz
  AND u.id = t.user_id AND u.account_id = @account_id AND u.email = lower(btrim(@email::text))
RETURNING t.id, t.user_id, t.purpose, t.expires_at;

-- SpendUserToken marks the unused, unexpired token of @purpose whose hash is @token_hash used,
-- and returns it with its user's account; none when there is no such token.
-- name: SpendUserToken :one
UPDATE user_tokens t SET used_at = @now::timestamptz
FROM users u
WHERE t.token_hash = @token_hash AND t.purpose = @purpose AND t.used_at IS NULL AND t.expires_at > @now::timestamptz
  AND u.id = t.user_id
RETURNING t.id, t.user_id, u.account_id;

-- ExpireUserTokens ends a user's other unused tokens of a purpose (a password reset spends them
-- all).
-- name: ExpireUserTokens :exec
UPDATE user_tokens SET used_at = @now::timestamptz WHERE user_id = @user_id AND purpose = @purpose AND used_at IS NULL;

-- name: SetUserPassword :exec
UPDATE users SET password_hash = @password_hash, updated_at = @now::timestamptz WHERE id = @id;

-- name: MarkEmailVerified :exec
UPDATE users SET email_verified_at = coalesce(email_verified_at, @now::timestamptz), updated_at = @now::timestamptz WHERE id = @id;

-- ListLiveSessions lists a user's live sessions, the most recently used first.
-- name: ListLiveSessions :many
SELECT id, created_at, last_used_at, ip, user_agent FROM sessions
WHERE account_id = @account_id AND user_id = @user_id AND revoked_at IS NULL AND expires_at > @now::timestamptz
ORDER BY last_used_at DESC NULLS LAST, created_at DESC, id DESC
LIMIT 100;

-- EndSession ends one live session of a user.
-- name: EndSession :execrows
UPDATE sessions SET revoked_at = @now::timestamptz, revoked_reason = @reason
WHERE account_id = @account_id AND user_id = @user_id AND id = @id AND revoked_at IS NULL AND expires_at > @now::timestamptz;

-- TouchSession records a session's use, at most once a minute.
-- name: TouchSession :exec
UPDATE sessions SET last_used_at = @now::timestamptz
WHERE id = @id AND (last_used_at IS NULL OR last_used_at + interval '1 minute' < @now::timestamptz);
