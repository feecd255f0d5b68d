-- Verifiable credentials: issuer keys, status lists and each issued credential's entry.

-- InsertIssuerKey adds the account's active key unless it has one already: its first, with the
-- account (accounts.Create) or by the backfill of accounts made before (instances starting at
-- once: the partial unique index lets one through, the others insert nothing), or a new one
-- after a rotation retired the active key.
-- name: InsertIssuerKey :many
INSERT INTO issuer_keys (id, account_id, public_key, private_key_sealed, created_at)
VALUES (@id, @account_id, @public_key, @private_key_sealed, @now::timestamptz)
ON CONFLICT (account_id) WHERE retired_at IS NULL DO NOTHING
RETURNING *;

-- AccountsWithoutIssuerKey lists the accounts that have no active key: those created before
-- accounts got their first key with them (credentials.BackfillIssuerKeys, at every start).
-- name: AccountsWithoutIssuerKey :many
SELECT a.id FROM accounts a
WHERE NOT EXISTS (SELECT 1 FROM issuer_keys k WHERE k.account_id = a.id AND k.retired_at IS NULL)
ORDER BY a.id;

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

-- CredentialVersion reads, in one statement of primary-key and index probes, everything a
-- credential's signed form depends on, without its content: its entry (status list place,
-- salt, frozen claims, when its content was fixed, its revocation); its source's version (a
-- certificate's updated_at, which moves with its snapshot, recipient, expiry and revocation;
-- an assertion's own columns, which only its revocation changes); for an assertion whose
-- claims were not frozen when it was issued, the updated_at of its badge and of the branding
-- (its claims are read from them now); the account's name (the issuer's name where nothing
-- frozen names one); and the account's keys, oldest first, which choose the signing key by
-- signed_at (credentials.keyAt). credentials.Credential hashes it into the ETag and answers a
-- matching If-None-Match with it alone, before building or signing anything. No source (a
-- certificate or assertion gone) leaves its columns NULL.
-- name: CredentialVersion :one
SELECT vc.credential_id, vc.kind, vc.account_id, vc.list, vc.status_index, vc.salt, vc.claims, vc.signed_at, vc.revoked_at,
       a.name AS account_name,
       c.updated_at AS certificate_updated_at, c.issued_at AS certificate_issued_at,
       ba.issued_at AS assertion_issued_at, ba.expires_at AS assertion_expires_at,
       ba.revoked_at AS assertion_revoked_at, ba.locale AS assertion_locale,
       b.updated_at AS badge_updated_at, br.updated_at AS branding_updated_at,
       k.key_ids::uuid[] AS key_ids, k.key_created_at::timestamptz[] AS key_created_at
FROM verifiable_credentials vc
JOIN accounts a ON a.id = vc.account_id
LEFT JOIN certificates c ON vc.kind = 'certificate' AND c.id = vc.credential_id
LEFT JOIN badge_assertions ba ON vc.kind = 'badge_assertion' AND ba.id = vc.credential_id
LEFT JOIN badges b ON vc.claims IS NULL AND b.id = ba.badge_id
LEFT JOIN branding br ON vc.kind = 'badge_assertion' AND vc.claims IS NULL AND br.account_id = vc.account_id
CROSS JOIN LATERAL (
    SELECT array_agg(ik.id ORDER BY ik.created_at, ik.id) AS key_ids,
           array_agg(ik.created_at ORDER BY ik.created_at, ik.id) AS key_created_at
    FROM issuer_keys ik WHERE ik.account_id = vc.account_id
) k
WHERE vc.credential_id = @credential_id;

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
