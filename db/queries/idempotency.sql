-- ClaimIdempotencyKey records a request under its key at @now, holding the key until
-- locked_until. An expired record is forgotten; the lapsed lease of a request that died is
-- taken over by the same request. Otherwise nothing is written (0 rows) and the caller reads
-- what holds the key.
-- name: ClaimIdempotencyKey :execrows
INSERT INTO idempotency_keys AS k (account_id, key, fingerprint, locked_until, created_at, expires_at)
VALUES (@account_id, @key, @fingerprint, @locked_until::timestamptz, @now::timestamptz, @expires_at::timestamptz)
ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, locked_until = excluded.locked_until,
    response_status = NULL, response_body = NULL, response_headers = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
WHERE k.expires_at <= @now::timestamptz
   OR (k.response_status IS NULL AND k.locked_until <= @now::timestamptz AND k.fingerprint = excluded.fingerprint);

-- name: GetIdempotencyKey :one
SELECT * FROM idempotency_keys WHERE account_id = @account_id AND key = @key;

-- name: CompleteIdempotencyKey :exec
UPDATE idempotency_keys SET locked_until = NULL, response_status = @response_status, response_body = @response_body,
    response_headers = @response_headers
WHERE account_id = @account_id AND key = @key AND fingerprint = @fingerprint AND response_status IS NULL;

-- ReleaseIdempotencyKey forgets a request that did not succeed: a failed request is not remembered.
-- name: ReleaseIdempotencyKey :exec
DELETE FROM idempotency_keys
WHERE account_id = @account_id AND key = @key AND fingerprint = @fingerprint AND response_status IS NULL;

-- name: DeleteExpiredIdempotencyKeys :execrows
DELETE FROM idempotency_keys WHERE expires_at <= @now::timestamptz;
