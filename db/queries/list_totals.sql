-- SumListTotal is the total of an account's list (attendees or certificates) over the stored
-- statuses asked, for one event or, with the nil UUID, the whole account: the sum of the
-- shards that migration 00025's triggers keep.
-- name: SumListTotal :one
SELECT coalesce(sum(n), 0)::bigint FROM list_totals
WHERE account_id = @account_id AND list = @list AND event_id = @event_id AND status = ANY (@statuses::text[]);

-- CountCertificatesPastExpiry counts the issued certificates whose expiry has passed at @now
-- (stored 'issued', listed as expired), of one event or the whole account: an index-only scan
-- of certificates_account_expiry_idx.
-- name: CountCertificatesPastExpiry :one
SELECT count(*) FROM certificates
WHERE account_id = @account_id AND status = 'issued' AND expires_at IS NOT NULL AND expires_at <= @now::timestamptz
  AND (sqlc.narg(event_id)::uuid IS NULL OR event_id = sqlc.narg(event_id));
