-- name: LockMigrations :exec
-- Serialises migrations across instances starting at once (held by one session).
SELECT pg_advisory_lock(7461029384756102938);

-- name: UnlockMigrations :exec
SELECT pg_advisory_unlock(7461029384756102938);
