-- name: CreateAccount :one
INSERT INTO accounts (id, name, plan)
VALUES (@id, @name, @plan)
RETURNING *;

-- name: CreateUser :one
INSERT INTO users (id, account_id, email, name, password_hash, role)
VALUES (@id, @account_id, @email, @name, @password_hash, @role)
RETURNING *;

-- name: GetAccount :one
SELECT * FROM accounts WHERE id = @id;

-- name: SetAccountPlan :one
UPDATE accounts SET plan = @plan, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PlanExists :one
SELECT EXISTS (SELECT 1 FROM plans WHERE code = @code);

-- name: FindUserByEmail :one
SELECT * FROM users WHERE email = lower(btrim(@email::text));
