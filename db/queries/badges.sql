-- name: InsertBadge :one
INSERT INTO badges (id, account_id, name, description, criteria_narrative, criteria_url, image, tags, validity_days,
                    created_at, updated_at)
VALUES (@id, @account_id, @name, sqlc.narg(description), sqlc.narg(criteria_narrative), sqlc.narg(criteria_url),
        sqlc.narg(image), @tags, sqlc.narg(validity_days), @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: GetBadge :one
SELECT sqlc.embed(b), (SELECT count(*) FROM badge_assertions a WHERE a.badge_id = b.id)::integer AS issued_count
FROM badges b WHERE b.account_id = @account_id AND b.id = @id;

-- GetBadgeByID reads a badge of any account, for its public Open Badges document.
-- name: GetBadgeByID :one
SELECT * FROM badges WHERE id = @id;

-- LockBadge holds a badge until the transaction ends: issuances of one badge, and its update or
-- retirement, run one after the other.
-- name: LockBadge :one
SELECT sqlc.embed(b), (SELECT count(*) FROM badge_assertions a WHERE a.badge_id = b.id)::integer AS issued_count
FROM badges b WHERE b.account_id = @account_id AND b.id = @id
FOR UPDATE OF b;

-- ListActiveBadges is a page of the account's active badges, searched by name as ListEvents.
-- name: ListActiveBadges :many
SELECT sqlc.embed(b), (SELECT count(*) FROM badge_assertions a WHERE a.badge_id = b.id)::integer AS issued_count
FROM badges b WHERE b.account_id = @account_id AND b.status = 'active'
  AND (sqlc.narg(pattern)::text IS NULL OR lower(b.name COLLATE "und-x-icu") LIKE sqlc.narg(pattern)::text)
ORDER BY b.created_at DESC, b.id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountActiveBadges :one
SELECT count(*) FROM badges WHERE account_id = @account_id AND status = 'active'
  AND (sqlc.narg(pattern)::text IS NULL OR lower(name COLLATE "und-x-icu") LIKE sqlc.narg(pattern)::text);

-- name: AccountHasBadges :one
SELECT EXISTS (SELECT 1 FROM badges WHERE account_id = @account_id);

-- name: UpdateBadge :one
UPDATE badges SET name = @name, description = sqlc.narg(description), criteria_narrative = sqlc.narg(criteria_narrative),
    criteria_url = sqlc.narg(criteria_url), image = sqlc.narg(image), tags = @tags,
    validity_days = sqlc.narg(validity_days), updated_at = @now::timestamptz
WHERE id = @id
RETURNING *;

-- name: RetireBadge :one
UPDATE badges SET status = 'retired', retired_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id AND status = 'active'
RETURNING *;

-- name: DeleteBadge :exec
DELETE FROM badges WHERE id = @id;

-- RevokeAssertionsOfBadge revokes the badge's active assertions (retiring it) and returns them.
-- name: RevokeAssertionsOfBadge :many
UPDATE badge_assertions SET status = 'revoked', revoked_at = @now::timestamptz, revocation_reason = @reason,
    revocation_reason_code = @reason_code
WHERE badge_id = @badge_id AND status = 'active'
RETURNING *;

-- LockBadgeAssertion holds one assertion of the account's badge until the transaction ends.
-- name: LockBadgeAssertion :one
SELECT * FROM badge_assertions
WHERE account_id = @account_id AND badge_id = @badge_id AND id = @id
FOR UPDATE;

-- RevokeBadgeAssertion revokes one active assertion; no row: it is revoked already.
-- name: RevokeBadgeAssertion :one
UPDATE badge_assertions SET status = 'revoked', revoked_at = @now::timestamptz,
    revocation_reason = sqlc.narg(reason), revocation_reason_code = @reason_code
WHERE id = @id AND status = 'active'
RETURNING *;

-- BadgeRecipients reads the attendees of the account among ids, with their event and its
-- locale (which their assertions speak), held (FOR SHARE, in id order) until the issuance
-- commits: an erasure, which holds its attendee FOR UPDATE, either waits and then revokes the
-- new assertion, or goes first and the issuance reads the attendee erased.
-- name: BadgeRecipients :many
SELECT a.id, a.event_id, a.first_name, a.last_name, a.email, a.erased_at, e.locale AS event_locale
FROM attendees a JOIN events e ON e.id = a.event_id
WHERE a.account_id = @account_id AND a.id = ANY (@ids::uuid[])
ORDER BY a.id
FOR SHARE OF a;

-- FindBadgeAssertionsOf returns the assertions that hold the badge (not revoked) of any of the
-- attendees: at most one each.
-- name: FindBadgeAssertionsOf :many
SELECT * FROM badge_assertions
WHERE badge_id = @badge_id AND attendee_id = ANY (@attendee_ids::uuid[]) AND status = 'active';

-- RegisterVerificationCodes reserves codes for credentials of one kind and returns those it
-- reserved: a code missing from the answer was taken.
-- name: RegisterVerificationCodes :many
INSERT INTO verification_codes (code, kind, created_at)
SELECT unnest(@codes::text[]), @kind, @now::timestamptz
ON CONFLICT DO NOTHING
RETURNING code;

-- InsertBadgeAssertions writes the assertions in the order given; an attendee who holds the
-- badge already (an active assertion: a revoked one holds nothing) is left as they are, and
-- missing from the answer.
-- name: InsertBadgeAssertions :many
INSERT INTO badge_assertions (id, account_id, badge_id, attendee_id, attendee_link, verification_code, recipient_first_name,
                              recipient_last_name, recipient_email, recipient_salt, locale, issued_at, expires_at, created_at)
SELECT unnest(@ids::uuid[]), @account_id, @badge_id, unnest(@attendee_ids::uuid[]), unnest(@attendee_ids::uuid[]), unnest(@codes::text[]),
       unnest(@first_names::text[]), unnest(@last_names::text[]), unnest(@emails::text[]), unnest(@salts::text[]),
       unnest(@locales::text[]), @issued_at::timestamptz, sqlc.narg(expires_at)::timestamptz, @issued_at::timestamptz
ON CONFLICT (badge_id, attendee_id) WHERE status = 'active' DO NOTHING
RETURNING *;

-- name: ListBadgeAssertions :many
SELECT * FROM badge_assertions WHERE account_id = @account_id AND badge_id = @badge_id
ORDER BY issued_at DESC, id DESC
LIMIT @page_size OFFSET @page_offset;

-- name: CountBadgeAssertions :one
SELECT count(*) FROM badge_assertions WHERE account_id = @account_id AND badge_id = @badge_id;

-- name: GetBadgeAssertionByID :one
SELECT sqlc.embed(a), sqlc.embed(b) FROM badge_assertions a JOIN badges b ON b.id = a.badge_id
WHERE a.id = @id;

-- GetBadgeAssertionByCode reads an assertion with its badge and its attendee's event (what
-- public verification counts it under; none once an erased attendee was deleted) in one round trip.
-- name: GetBadgeAssertionByCode :one
SELECT sqlc.embed(a), sqlc.embed(b), t.event_id FROM badge_assertions a JOIN badges b ON b.id = a.badge_id
LEFT JOIN attendees t ON t.id = a.attendee_link
WHERE a.verification_code = upper(@code::text);

