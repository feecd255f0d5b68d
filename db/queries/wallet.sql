-- name: InsertWalletOffer :one
INSERT INTO wallet_offers (id, account_id, certificate_id, badge_assertion_id, token_hash, token_sealed, expires_at, created_at)
VALUES (@id, @account_id, sqlc.narg(certificate_id), sqlc.narg(badge_assertion_id), @token_hash, @token_sealed, @expires_at, @created_at)
RETURNING *;

-- ListWalletOffers is a page of a credential's offers (a certificate's, or a badge
-- assertion's: the other is null), newest first.
-- name: ListWalletOffers :many
SELECT * FROM wallet_offers
WHERE account_id = @account_id
  AND (certificate_id = sqlc.narg(certificate_id) OR badge_assertion_id = sqlc.narg(badge_assertion_id))
ORDER BY created_at DESC, id DESC LIMIT @page_size OFFSET @page_offset;

-- name: CountWalletOffers :one
SELECT count(*) FROM wallet_offers
WHERE account_id = @account_id
  AND (certificate_id = sqlc.narg(certificate_id) OR badge_assertion_id = sqlc.narg(badge_assertion_id));

-- FindWalletOffer finds an offer by a keyed hash of its token (any of the hashes: one per key
-- the secrets box holds, the current first), or by a live single-use secret issued for it
-- (an access token), with what a claim needs of its credential: the event it counts under, its
-- code, and whether it is revoked or expired.
-- name: FindWalletOffer :one
SELECT o.*,
       coalesce(c.event_id, at.event_id)::uuid AS event_id,
       coalesce(c.verification_code, a.verification_code)::text AS verification_code,
       coalesce(c.status = 'revoked' OR a.status = 'revoked' OR b.status = 'retired', false)::boolean AS credential_revoked,
       coalesce(c.expires_at, a.expires_at) AS credential_expires_at
FROM wallet_offers o
LEFT JOIN certificates c ON c.id = o.certificate_id
LEFT JOIN badge_assertions a ON a.id = o.badge_assertion_id
LEFT JOIN badges b ON b.id = a.badge_id
LEFT JOIN attendees at ON at.id = a.attendee_id
WHERE o.token_hash = ANY(@token_hashes::bytea[])
   OR o.id = (SELECT s.offer_id FROM wallet_secrets s WHERE s.hash = sqlc.narg(secret_hash) AND s.kind = sqlc.narg(secret_kind)
              AND s.used_at IS NULL AND s.expires_at > @now::timestamptz)
LIMIT 1;

-- ClaimWalletOffer marks an offer claimed by holder, once, before it expires.
-- name: ClaimWalletOffer :one
UPDATE wallet_offers SET claimed_at = @now::timestamptz, holder = @holder, protocol = @protocol
WHERE id = @id AND claimed_at IS NULL AND expires_at > @now::timestamptz
RETURNING *;

-- name: InsertWalletSecret :exec
INSERT INTO wallet_secrets (hash, kind, account_id, offer_id, expires_at)
VALUES (@hash, @kind, @account_id, sqlc.narg(offer_id), @expires_at);

-- SpendWalletSecret uses a secret of its kind once, before it expires, and says whose it was.
-- name: SpendWalletSecret :one
UPDATE wallet_secrets SET used_at = @now::timestamptz
WHERE hash = @hash AND kind = @kind AND used_at IS NULL AND expires_at > @now::timestamptz
RETURNING account_id, offer_id;

-- name: DeleteExpiredWalletSecrets :execrows
DELETE FROM wallet_secrets WHERE expires_at < @before::timestamptz;

-- CountClaim adds a wallet claim to the day's analytics of the credential's event.
-- name: CountClaim :exec
INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, claims)
VALUES (@account_id, @day, @event_id, @credential_kind, 1)
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET claims = d.claims + 1;

-- WalletCertificate is what offering a certificate needs of it.
-- name: WalletCertificate :one
SELECT status <> 'draft' AS issued, status = 'revoked' AS revoked, expires_at, verification_code
FROM certificates WHERE account_id = @account_id AND id = @id;

-- WalletAssertion is what offering a badge assertion needs of it (an assertion of a retired
-- badge is revoked with it).
-- name: WalletAssertion :one
SELECT true AS issued, (a.status = 'revoked' OR b.status = 'retired')::boolean AS revoked, a.expires_at, a.verification_code
FROM badge_assertions a JOIN badges b ON b.id = a.badge_id
WHERE a.account_id = @account_id AND a.badge_id = @badge_id AND a.id = @id;

-- LatestLiveWalletOffer is a credential's newest offer that is unclaimed and valid for at
-- least a day more: what the recipient's verification page shows again rather than make one
-- at every visit.
-- name: LatestLiveWalletOffer :one
SELECT * FROM wallet_offers
WHERE account_id = @account_id
  AND (certificate_id = sqlc.narg(certificate_id) OR badge_assertion_id = sqlc.narg(badge_assertion_id))
  AND claimed_at IS NULL AND expires_at > @valid_after::timestamptz
ORDER BY created_at DESC, id DESC LIMIT 1;
