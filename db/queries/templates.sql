-- name: CreateTemplate :one
INSERT INTO templates (id, account_id, name, description, active, page_size, orientation, layout, created_at, updated_at)
VALUES (@id, sqlc.narg(account_id), @name, sqlc.narg(description), @active, @page_size, @orientation, @layout,
        @now::timestamptz, @now::timestamptz)
RETURNING *;

-- UpsertSystemTemplate writes a system template under its fixed id.
-- name: UpsertSystemTemplate :exec
INSERT INTO templates (id, account_id, name, description, active, page_size, orientation, layout)
VALUES (@id, NULL, @name, @description, true, @page_size, @orientation, @layout)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description,
    page_size = excluded.page_size, orientation = excluded.orientation, layout = excluded.layout,
    updated_at = now()
WHERE templates.account_id IS NULL AND (templates.name, templates.description, templates.page_size, templates.orientation, templates.layout)
    IS DISTINCT FROM (excluded.name, excluded.description, excluded.page_size, excluded.orientation, excluded.layout);

-- GetTemplate returns one of the account's templates or a system template.
-- name: GetTemplate :one
SELECT * FROM templates WHERE id = @id AND (account_id = @account_id::uuid OR account_id IS NULL);

-- ListTemplates is a page of the account's templates, searched by name as ListEvents.
-- name: ListTemplates :many
SELECT * FROM templates
WHERE account_id = @account_id AND (sqlc.narg(active)::boolean IS NULL OR active = sqlc.narg(active))
  AND (sqlc.narg(pattern)::text IS NULL OR lower(name COLLATE "und-x-icu") LIKE sqlc.narg(pattern)::text)
ORDER BY created_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountTemplates :one
SELECT count(*) FROM templates
WHERE account_id = @account_id AND (sqlc.narg(active)::boolean IS NULL OR active = sqlc.narg(active))
  AND (sqlc.narg(pattern)::text IS NULL OR lower(name COLLATE "und-x-icu") LIKE sqlc.narg(pattern)::text);

-- name: ListSystemTemplates :many
SELECT * FROM templates WHERE account_id IS NULL ORDER BY name;

-- name: LockTemplate :one
SELECT * FROM templates WHERE id = @id AND (account_id = @account_id::uuid OR account_id IS NULL) FOR UPDATE;

-- name: UpdateTemplate :one
UPDATE templates SET name = @name, description = sqlc.narg(description), active = @active, page_size = @page_size,
    orientation = @orientation, layout = @layout, updated_at = @now::timestamptz
WHERE account_id = @account_id AND id = @id
RETURNING *;

-- name: TemplateUses :one
SELECT
    (SELECT count(*) FROM events e WHERE e.template_id = @id) AS events,
    (SELECT count(*) FROM certificates c WHERE c.template_id = @id) AS certificates,
    (SELECT count(*) FROM bulk_jobs j WHERE j.template_id = @id) AS bulk_jobs;

-- name: DeleteTemplate :exec
DELETE FROM templates WHERE account_id = @account_id AND id = @id;
