-- name: CreateAPIKey :one
INSERT INTO api_keys (id, account_id, created_by, created_by_name, name, scopes, prefix, key_hash, expires_at, created_at)
VALUES (@id, @account_id, @created_by, @created_by_name, @name, @scopes, @prefix, @key_hash, @expires_at, @now::timestamptz)
RETURNING *;

-- ListActiveAPIKeys lists an account's live keys; with @created_by set, only that member's.
-- name: ListActiveAPIKeys :many
SELECT * FROM api_keys
WHERE account_id = @account_id AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > @now::timestamptz)
  AND (sqlc.narg(created_by)::uuid IS NULL OR created_by = sqlc.narg(created_by))
ORDER BY created_at DESC, id DESC;

-- DeleteAPIKey revokes a key; with @created_by set, only one that member created.
-- name: DeleteAPIKey :execrows
UPDATE api_keys SET deleted_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id AND deleted_at IS NULL
  AND (sqlc.narg(created_by)::uuid IS NULL OR created_by = sqlc.narg(created_by));

-- name: FindActiveAPIKeyByHash :one
SELECT id, account_id, name, scopes, last_used_at, expires_at FROM api_keys
WHERE key_hash = @key_hash AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > @now::timestamptz);

-- TouchAPIKey records a use, at most once a minute per key so that busy keys cost no write
-- per request.
-- name: TouchAPIKey :exec
UPDATE api_keys SET last_used_at = @now::timestamptz
WHERE id = @id AND (last_used_at IS NULL OR last_used_at + interval '1 minute' < @now::timestamptz);
