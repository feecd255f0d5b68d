-- SetPendingTOTPSecret stores a new secret, sealed; a plain one left from before sealing goes.
-- name: SetPendingTOTPSecret :execrows
UPDATE users SET totp_secret = NULL, totp_secret_sealed = @sealed, updated_at = @now::timestamptz
WHERE id = @id AND NOT totp_enabled;

-- AcceptTOTPStep records a time step as used. It affects no row when that step or a later
-- one was already used: RFC 6238 section 5.2, one acceptance per code, also under races.
-- name: AcceptTOTPStep :execrows
UPDATE users SET totp_last_step = @step WHERE id = @id AND totp_last_step < @step;

-- name: EnableTOTP :execrows
UPDATE users SET totp_enabled = true, updated_at = @now::timestamptz
WHERE id = @id AND NOT totp_enabled AND (totp_secret IS NOT NULL OR totp_secret_sealed IS NOT NULL);

-- name: DisableTOTP :execrows
UPDATE users SET totp_enabled = false, totp_secret = NULL, totp_secret_sealed = NULL, updated_at = @now::timestamptz
WHERE id = @id AND totp_enabled;

-- name: DeleteRecoveryCodes :exec
DELETE FROM recovery_codes WHERE user_id = @user_id;

-- name: InsertRecoveryCodes :copyfrom
INSERT INTO recovery_codes (id, user_id, code_hash) VALUES (@id, @user_id, @code_hash);

-- name: UseRecoveryCode :execrows
UPDATE recovery_codes SET used_at = @now::timestamptz
WHERE user_id = @user_id AND code_hash = @code_hash AND used_at IS NULL;

-- TOTP secrets in id order, plain (written before they were sealed) or sealed, for the
-- start-up pass and the operator command that seal them under the current key.
-- name: ListTOTPSecrets :many
SELECT id, totp_secret, totp_secret_sealed FROM users
WHERE id > @after_id AND (totp_secret IS NOT NULL OR totp_secret_sealed IS NOT NULL)
ORDER BY id LIMIT @batch_size;

-- ReplaceTOTPSecret seals a user's secret anew, unless it changed since it was read.
-- name: ReplaceTOTPSecret :execrows
UPDATE users SET totp_secret = NULL, totp_secret_sealed = @new_sealed
WHERE id = @id AND totp_secret IS NOT DISTINCT FROM sqlc.narg(old_plain)
  AND totp_secret_sealed IS NOT DISTINCT FROM sqlc.narg(old_sealed);
