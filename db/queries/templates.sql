-- name: CreateTemplate :one
INSERT INTO templates (id, account_id, name, description, page_size, orientation, layout)
VALUES (@id, sqlc.narg(account_id), @name, sqlc.narg(description), @page_size, @orientation, @layout)
RETURNING *;
