-- name: LockMigrations :exec
-- Serialises migrations across instances starting at once (held by one session).
SELECT pg_advisory_lock(7461029384756102938);

-- name: UnlockMigrations :exec
SELECT pg_advisory_unlock(7461029384756102938);

-- DatabaseFingerprint digests every row a request could change (API keys without their
-- lastUsedAt, which authentication itself moves). Tests compare it before and after a refused
-- request to show that nothing changed.
-- name: DatabaseFingerprint :one
SELECT md5(concat_ws('|',
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM accounts t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM users t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM sessions t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM refresh_tokens t),
    (SELECT string_agg(md5(concat_ws(',', t.id, t.name, t.scopes, t.expires_at, t.deleted_at)), ',' ORDER BY t.id) FROM api_keys t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.account_id) FROM branding t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM templates t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM events t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM attendees t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM certificates t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM badges t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM badge_assertions t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM bulk_jobs t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM webhook_subscriptions t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM email_deliveries t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.id) FROM outbox_events t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.account_id, t.key) FROM idempotency_keys t),
    (SELECT string_agg(md5(t::text), ',' ORDER BY t.account_id, t.period) FROM credit_usage t)
))::text AS fingerprint;
