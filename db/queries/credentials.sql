-- Verifiable credentials: issuer keys, status lists and each issued credential's entry.

-- InsertIssuerKey adds the account's active key unless it has one already (two first needs at
-- once: the partial unique index lets one through, the other inserts nothing).
-- name: InsertIssuerKey :many
INSERT INTO issuer_keys (id, account_id, public_key, private_key_sealed, created_at)
VALUES (@id, @account_id, @public_key, @private_key_sealed, @now::timestamptz)
ON CONFLICT (account_id) WHERE retired_at IS NULL DO NOTHING
RETURNING *;

-- name: GetActiveIssuerKey :one
SELECT * FROM issuer_keys WHERE account_id = @account_id AND retired_at IS NULL;

-- name: RetireIssuerKey :execrows
UPDATE issuer_keys SET retired_at = @now::timestamptz WHERE account_id = @account_id AND retired_at IS NULL;

-- ListIssuerKeys returns every key the account ever had, oldest first.
-- name: ListIssuerKeys :many
SELECT * FROM issuer_keys WHERE account_id = @account_id ORDER BY created_at, id;

-- LockAccountIssuerKeys serialises rotations of one account's keys.
-- name: LockAccountIssuerKeys :one
SELECT id FROM accounts WHERE id = @account_id FOR NO KEY UPDATE;

-- name: EnsureStatusList :exec
INSERT INTO status_lists (account_id, list, created_at, changed_at)
VALUES (@account_id, @list, @now::timestamptz, @now::timestamptz)
ON CONFLICT DO NOTHING;

-- OpenStatusList is the list new credentials draw from: the lowest that is not full.
-- name: OpenStatusList :one
SELECT list FROM status_lists WHERE account_id = @account_id AND full_at IS NULL ORDER BY list LIMIT 1;

-- name: MarkStatusListFull :exec
UPDATE status_lists SET full_at = @now::timestamptz WHERE account_id = @account_id AND list = @list AND full_at IS NULL;

-- name: GetStatusList :one
SELECT * FROM status_lists WHERE account_id = @account_id AND list = @list;

-- InsertVerifiableCredential stores a credential's entry at the first of the candidate indexes
-- free in its list, or nothing when every one is taken (or the credential has its entry
-- already): the unique keys decide, with index probes whatever the table's size, and the
-- candidates after the first free one conflict with it on credential_id (as PipelineInsertStatusEntries
-- draws an issued credential's). An earlier form, over the candidates with NOT EXISTS, was planned as
-- a scan of the table while its statistics said it was small, and a 10,000-certificate job
-- spent 16 s in it.
-- name: InsertVerifiableCredential :many
INSERT INTO verifiable_credentials (credential_id, kind, account_id, list, status_index, salt, claims, signed_at)
SELECT @credential_id, @kind, @account_id, @list, candidate, @salt, sqlc.narg(claims)::jsonb, @now::timestamptz
FROM unnest(@candidates::integer[]) AS candidate
ON CONFLICT DO NOTHING
RETURNING status_index;

-- InsertVerifiableCredentialInOpenList is InsertVerifiableCredential in the account's open
-- list (the lowest that is not full), found by the same statement through the primary key:
-- the common draw in one round trip. No row: no open list, the index taken, or an entry
-- there already; the caller goes the long way.
-- name: InsertVerifiableCredentialInOpenList :many
INSERT INTO verifiable_credentials (credential_id, kind, account_id, list, status_index, salt, claims, signed_at)
SELECT @credential_id, @kind, @account_id, l.list, @status_index, @salt, sqlc.narg(claims)::jsonb, @now::timestamptz
FROM (SELECT s.list FROM status_lists s WHERE s.account_id = @account_id AND s.full_at IS NULL ORDER BY s.list LIMIT 1) l
ON CONFLICT DO NOTHING
RETURNING list;

-- CountStatusEntries counts the entries of one of the account's lists (an index-only scan of
-- verifiable_credentials_status_index_key).
-- name: CountStatusEntries :one
SELECT count(*) FROM verifiable_credentials WHERE account_id = @account_id AND list = @list;

-- FreeStatusIndexes lists a random few of the list's free indexes up to last_index: the exact
-- draw once random candidates keep hitting taken ones in a list that is not nearly full (it
-- reads the whole list: 100 ms or more for 131,072).
-- name: FreeStatusIndexes :many
SELECT g.idx::integer AS idx FROM generate_series(0, @last_index::integer) AS g(idx)
WHERE NOT EXISTS (SELECT 1 FROM verifiable_credentials v
                  WHERE v.account_id = @account_id AND v.list = @list AND v.status_index = g.idx)
ORDER BY random()
LIMIT 8;

-- name: GetVerifiableCredential :one
SELECT * FROM verifiable_credentials WHERE credential_id = @credential_id;

-- RevokeVerifiableCredentials sets the bits of the credentials named (those not set already)
-- and moves their lists' changed_at on, so the signed lists are built again: strictly on, at
-- least a microsecond past the last change, since changed_at is the signed list's ETag and
-- cache key, and a revocation stamped no later than the last one (another instance's clock a
-- little behind, the same microsecond) must still change them.
-- name: RevokeVerifiableCredentials :exec
WITH revoked AS (
    UPDATE verifiable_credentials SET revoked_at = @now::timestamptz
    WHERE credential_id = ANY(@credential_ids::uuid[]) AND revoked_at IS NULL
    RETURNING account_id, list
)
UPDATE status_lists s SET changed_at = greatest(s.changed_at + interval '1 microsecond', @now::timestamptz)
FROM (SELECT DISTINCT account_id, list FROM revoked) r
WHERE s.account_id = r.account_id AND s.list = r.list;

-- name: AssertionIDsOfBadge :many
SELECT id FROM badge_assertions WHERE badge_id = @badge_id;

-- ResignVerifiableCredential fixes a credential's content anew (a regenerate): the next answer
-- is signed at now.
-- name: ResignVerifiableCredential :exec
UPDATE verifiable_credentials SET signed_at = @now::timestamptz WHERE credential_id = @credential_id;

-- RevokedStatusIndexes are the set bits of a list.
-- name: RevokedStatusIndexes :many
SELECT status_index FROM verifiable_credentials
WHERE account_id = @account_id AND list = @list AND revoked_at IS NOT NULL
ORDER BY status_index;

-- name: ListAllIssuerKeys :many
SELECT * FROM issuer_keys ORDER BY account_id, created_at;

-- name: UpdateIssuerKeySealed :exec
UPDATE issuer_keys SET private_key_sealed = @private_key_sealed WHERE id = @id;
