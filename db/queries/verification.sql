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
       coalesce(c.snapshot_event_locale, 'en')::text AS event_locale,
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

-- AddVerificationActivity writes a batch of public activity in one statement: the counters
-- (parallel arrays, one element a row) and the first verifications (an earlier one stays).
-- A credential verified for the first time also adds one to issued_verified in the row of the
-- day it was issued. The credentials are marked first; the counter rows are then written in
-- key order, so concurrent batches of activity never wait on each other in a cycle. (A job's
-- batch of issuances can hold a day's counter row and then mark an older certificate of one of
-- its attendees expired; should this statement hold that certificate and wait for the row,
-- PostgreSQL aborts one of the two: the job's batch then goes one by one, and activity that
-- fails to be written is kept for the next flush, see verification.Recorder.)
-- name: AddVerificationActivity :exec
WITH firsts AS (
    SELECT unnest(@first_kinds::text[]) AS kind, unnest(@first_ids::uuid[]) AS id, unnest(@first_ats::timestamptz[]) AS at
), certificates_marked AS (
    UPDATE certificates c SET first_verified_at = f.at
    FROM firsts f
    WHERE f.kind = 'certificate' AND c.id = f.id AND c.first_verified_at IS NULL AND c.issued_at IS NOT NULL
    RETURNING c.account_id, (c.issued_at AT TIME ZONE 'UTC')::date AS day, c.event_id
), assertions_marked AS (
    UPDATE badge_assertions ba SET first_verified_at = f.at
    FROM firsts f, attendees a
    WHERE f.kind = 'badge_assertion' AND ba.id = f.id AND ba.first_verified_at IS NULL AND a.id = ba.attendee_id
    RETURNING ba.account_id, (ba.issued_at AT TIME ZONE 'UTC')::date AS day, a.event_id
), counts AS (
    SELECT unnest(@account_ids::uuid[]) AS account_id, unnest(@days::date[]) AS day, unnest(@event_ids::uuid[]) AS event_id,
           unnest(@kinds::text[]) AS kind, unnest(@views::integer[]) AS views, unnest(@verifications::integer[]) AS verifications,
           unnest(@downloads::integer[]) AS downloads, unnest(@shares::integer[]) AS shares, 0 AS issued_verified
    UNION ALL
    SELECT account_id, day, event_id, 'certificate', 0, 0, 0, 0, 1 FROM certificates_marked
    UNION ALL
    SELECT account_id, day, event_id, 'badge_assertion', 0, 0, 0, 0, 1 FROM assertions_marked
)
INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, views, verifications, downloads, shares, issued_verified)
SELECT account_id, day, event_id, kind, sum(views)::integer, sum(verifications)::integer, sum(downloads)::integer,
       sum(shares)::integer, sum(issued_verified)::integer
FROM counts
GROUP BY account_id, day, event_id, kind
ORDER BY account_id, day, event_id, kind
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET
    views = d.views + excluded.views,
    verifications = d.verifications + excluded.verifications,
    downloads = d.downloads + excluded.downloads,
    shares = d.shares + excluded.shares,
    issued_verified = d.issued_verified + excluded.issued_verified;

-- name: VerificationActivity :many
SELECT * FROM analytics_daily WHERE account_id = @account_id ORDER BY day, event_id, credential_kind;
