-- The stored images that may hold an SVG, read in batches by key for the SVG recheck job, and
-- written back only when they are still what the job read (a change made meanwhile went
-- through today's upload check).

-- name: SVGRecheckFinished :one
SELECT EXISTS (SELECT 1 FROM svg_rechecks WHERE check_version = @check_version::integer);

-- name: FinishSVGRecheck :exec
INSERT INTO svg_rechecks (check_version, finished_at) VALUES (@check_version::integer, @now::timestamptz)
ON CONFLICT (check_version) DO NOTHING;

-- name: BrandingImagesAfter :many
SELECT account_id, logo, signatories FROM branding
WHERE account_id > @after::uuid
  AND (logo LIKE 'data:image/svg+xml%' OR strpos(signatories::text, 'data:image/svg+xml') > 0)
ORDER BY account_id
LIMIT @batch::integer;

-- name: ReplaceBrandingImages :execrows
UPDATE branding SET logo = sqlc.narg(new_logo), signatories = @new_signatories::jsonb, updated_at = @now::timestamptz
WHERE account_id = @account_id AND logo IS NOT DISTINCT FROM sqlc.narg(old_logo)
  AND signatories = @old_signatories::jsonb;

-- name: BadgeImagesAfter :many
SELECT id, image::text AS image FROM badges
WHERE id > @after::uuid AND image LIKE 'data:image/svg+xml%'
ORDER BY id
LIMIT @batch::integer;

-- name: ReplaceBadgeImage :execrows
UPDATE badges SET image = @new_image::text, updated_at = @now::timestamptz
WHERE id = @id AND image = @old_image::text;

-- name: TemplateLayoutsAfter :many
SELECT id, layout FROM templates
WHERE id > @after::uuid AND strpos(layout::text, 'data:image/svg+xml') > 0
ORDER BY id
LIMIT @batch::integer;

-- name: ReplaceTemplateLayout :execrows
UPDATE templates SET layout = @new_layout::jsonb, updated_at = @now::timestamptz
WHERE id = @id AND layout = @old_layout::jsonb;
