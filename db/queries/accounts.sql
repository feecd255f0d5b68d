-- name: CreateAccount :one
INSERT INTO accounts (id, name, plan, created_at, updated_at)
VALUES (@id, @name, @plan, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: CreateUser :one
INSERT INTO users (id, account_id, email, name, password_hash, role, created_at, updated_at)
VALUES (@id, @account_id, @email, @name, @password_hash, @role, @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: GetAccount :one
SELECT * FROM accounts WHERE id = @id;

-- name: SetAccountPlan :one
UPDATE accounts SET plan = @plan, updated_at = @now::timestamptz
WHERE id = @id
RETURNING *;

-- name: PlanExists :one
SELECT EXISTS (SELECT 1 FROM plans WHERE code = @code);

-- name: FindUserByEmail :one
SELECT * FROM users WHERE email = lower(btrim(@email::text));

-- name: GetUserProfile :one
SELECT u.id, u.account_id, u.email, u.name, u.role, u.totp_enabled, (u.email_verified_at IS NOT NULL)::boolean AS email_verified,
       a.name AS account_name, a.plan AS account_plan
FROM users u JOIN accounts a ON a.id = u.account_id
WHERE u.account_id = @account_id AND u.id = @id;

-- name: GetUser :one
SELECT * FROM users WHERE account_id = @account_id AND id = @id;

-- name: FindAccountOwner :one
SELECT * FROM users WHERE account_id = @account_id AND role = 'owner';
