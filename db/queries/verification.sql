-- LookupCertificateByCode reads what public verification shows of the certificate behind a
-- code, in one round trip: the certificate and its issuer as the account's branding presents
-- it now. The logo is not read (it may be 256 KiB), only whether there is one; the event comes
-- from the snapshot's plain copies. The code's entry in the registry of verification codes is
-- not read: certificates.verification_code references it, so a certificate found here is the
-- registry's certificate, and reading it too doubled the lookup's index probes. No row: the
-- code is unknown or of another kind, which VerificationCodeKind tells.
-- name: LookupCertificateByCode :one
SELECT c.id, c.account_id, c.event_id, c.attendee_id, c.certificate_number, c.status,
       c.recipient_first_name, c.recipient_last_name,
       coalesce(c.snapshot_event_name, '')::text AS event_name,
       coalesce(c.snapshot_event_date, '')::text AS event_date,
       coalesce(c.snapshot_event_location, '')::text AS event_location,
       c.issued_at, c.expires_at, c.revoked_at, c.revocation_reason, c.revocation_reason_code,
       c.recipient_token_hash, (c.first_viewed_at IS NOT NULL)::boolean AS viewed_before,
       (c.first_verified_at IS NOT NULL)::boolean AS verified_before, c.updated_at,
       -- COALESCE evaluates lazily: the account is read only when the branding has no name.
       coalesce(b.issuer_name, (SELECT a.name FROM accounts a WHERE a.id = c.account_id))::text AS issuer_name,
       b.website AS issuer_website,
       (b.logo IS NOT NULL)::boolean AS issuer_has_logo, b.primary_color AS issuer_color
FROM certificates c
LEFT JOIN branding b ON b.account_id = c.account_id
WHERE c.verification_code = @code;

-- name: VerificationCodeKind :one
SELECT kind FROM verification_codes WHERE code = @code;

-- name: GetIssuerLogo :one
SELECT logo FROM branding WHERE account_id = @account_id AND logo IS NOT NULL;

-- MarkCertificateViewed records the recipient's first open of the page; it changes no row when
-- that was recorded before, so of concurrent first opens one records it.
-- name: MarkCertificateViewed :execrows
UPDATE certificates SET first_viewed_at = @viewed_at
WHERE id = @id AND first_viewed_at IS NULL;

-- AddVerificationActivity adds a batch of counters (parallel arrays, one element a row).
-- name: AddVerificationActivity :exec
INSERT INTO verification_activity_daily AS d (account_id, day, event_id, credential_kind, views, verifications, downloads, shares)
SELECT unnest(@account_ids::uuid[]), unnest(@days::date[]), unnest(@event_ids::uuid[]), unnest(@kinds::text[]),
       unnest(@views::integer[]), unnest(@verifications::integer[]), unnest(@downloads::integer[]), unnest(@shares::integer[])
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET
    views = d.views + excluded.views,
    verifications = d.verifications + excluded.verifications,
    downloads = d.downloads + excluded.downloads,
    shares = d.shares + excluded.shares;

-- name: MarkCertificatesVerified :exec
UPDATE certificates c SET first_verified_at = f.at
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@ats::timestamptz[]) AS at) AS f
WHERE c.id = f.id AND c.first_verified_at IS NULL;

-- name: MarkBadgeAssertionsVerified :exec
UPDATE badge_assertions ba SET first_verified_at = f.at
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@ats::timestamptz[]) AS at) AS f
WHERE ba.id = f.id AND ba.first_verified_at IS NULL;

-- name: VerificationActivity :many
SELECT * FROM verification_activity_daily WHERE account_id = @account_id ORDER BY day, event_id, credential_kind;
