-- name: CreateAPIKey :one
INSERT INTO api_keys (id, account_id, created_by, name, scopes, prefix, key_hash, expires_at, created_at)
VALUES (@id, @account_id, @created_by, @name, @scopes, @prefix, @key_hash, @expires_at, @now::timestamptz)
RETURNING *;

-- name: ListActiveAPIKeys :many
SELECT * FROM api_keys
WHERE account_id = @account_id AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > @now::timestamptz)
ORDER BY created_at DESC, id DESC;

-- name: DeleteAPIKey :execrows
UPDATE api_keys SET deleted_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id AND deleted_at IS NULL;

-- name: FindActiveAPIKeyByHash :one
SELECT id, account_id, scopes, last_used_at, expires_at FROM api_keys
WHERE key_hash = @key_hash AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > @now::timestamptz);

-- TouchAPIKey records a use, at most once a minute per key so that busy keys cost no write
-- per request.
-- name: TouchAPIKey :exec
UPDATE api_keys SET last_used_at = @now::timestamptz
WHERE id = @id AND (last_used_at IS NULL OR last_used_at + interval '1 minute' < @now::timestamptz);
