-- The audit log (migration 00038).

-- name: InsertAuditEntry :exec
INSERT INTO audit_log (id, account_id, at, actor_type, actor_id, actor_name, action, resource_type, resource_id, ip, user_agent, summary)
VALUES (@id, @account_id, @at, @actor_type, @actor_id, @actor_name, @action, @resource_type, @resource_id, @ip, @user_agent, @summary);

-- ListAuditEntries reads an account's entries, newest first, with optional filters.
-- name: ListAuditEntries :many
SELECT * FROM audit_log
WHERE account_id = @account_id
  AND (sqlc.narg(action)::text IS NULL OR action = sqlc.narg(action))
  AND (sqlc.narg(actor_id)::uuid IS NULL OR actor_id = sqlc.narg(actor_id))
  AND (sqlc.narg(resource_type)::text IS NULL OR resource_type = sqlc.narg(resource_type))
  AND (sqlc.narg(resource_id)::text IS NULL OR resource_id = sqlc.narg(resource_id))
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR at >= sqlc.narg(from_at))
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR at < sqlc.narg(to_at))
ORDER BY at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountAuditEntries :one
SELECT count(*) FROM audit_log
WHERE account_id = @account_id
  AND (sqlc.narg(action)::text IS NULL OR action = sqlc.narg(action))
  AND (sqlc.narg(actor_id)::uuid IS NULL OR actor_id = sqlc.narg(actor_id))
  AND (sqlc.narg(resource_type)::text IS NULL OR resource_type = sqlc.narg(resource_type))
  AND (sqlc.narg(resource_id)::text IS NULL OR resource_id = sqlc.narg(resource_id))
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR at >= sqlc.narg(from_at))
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR at < sqlc.narg(to_at));
