-- name: SetPendingTOTPSecret :execrows
UPDATE users SET totp_secret = @secret, updated_at = @now::timestamptz
WHERE id = @id AND NOT totp_enabled;

-- AcceptTOTPStep records a time step as used. It affects no row when that step or a later
-- one was already used: RFC 6238 section 5.2, one acceptance per code, also under races.
-- name: AcceptTOTPStep :execrows
UPDATE users SET totp_last_step = @step WHERE id = @id AND totp_last_step < @step;

-- name: EnableTOTP :execrows
UPDATE users SET totp_enabled = true, updated_at = @now::timestamptz
WHERE id = @id AND NOT totp_enabled AND totp_secret IS NOT NULL;

-- name: DisableTOTP :execrows
UPDATE users SET totp_enabled = false, totp_secret = NULL, updated_at = @now::timestamptz
WHERE id = @id AND totp_enabled;

-- name: DeleteRecoveryCodes :exec
DELETE FROM recovery_codes WHERE user_id = @user_id;

-- name: InsertRecoveryCodes :copyfrom
INSERT INTO recovery_codes (id, user_id, code_hash) VALUES (@id, @user_id, @code_hash);

-- name: UseRecoveryCode :execrows
UPDATE recovery_codes SET used_at = @now::timestamptz
WHERE user_id = @user_id AND code_hash = @code_hash AND used_at IS NULL;
