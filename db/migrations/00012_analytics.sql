-- +goose Up
-- Analytics read one table of daily counters per account, UTC day, event and kind of
-- credential, never the credentials themselves: the dashboard of an account with millions of
-- verifications sums a few thousand rows at most (days x events x 2), whatever the traffic.
-- No raw activity rows are kept, so there is nothing to expire.
--
-- Two writers keep it:
-- - issuance: `issued` grows in the issuing transaction (certificates and badge assertions; a
--   draft is not issued, a regenerate is not a new issue), written once per transaction,
--   rows in key order, just before the commit (store.Tx.CountIssued);
-- - public verification: views, verifications, downloads and shares are counted in memory and
--   added in batches (every 2 s and at shutdown); the batch that records a credential's first
--   verification also adds one to `issued_verified` in the row of the day it was ISSUED, so
--   the verification rate of the credentials issued in a period is a sum too.
--
-- The old analytics_daily (certificates and badges issued per event and day, with view columns
-- nothing wrote) gives way to the verification counters' table, which gains the issuance
-- columns and takes its name.
DROP TABLE analytics_daily;
ALTER TABLE verification_activity_daily RENAME TO analytics_daily;
ALTER INDEX verification_activity_daily_pkey RENAME TO analytics_daily_pkey;
ALTER INDEX verification_activity_daily_event_idx RENAME TO analytics_daily_event_idx;
ALTER TABLE analytics_daily
    ADD COLUMN issued          integer NOT NULL DEFAULT 0 CHECK (issued >= 0),
    ADD COLUMN issued_verified integer NOT NULL DEFAULT 0 CHECK (issued_verified >= 0);
COMMENT ON TABLE analytics_daily IS 'Daily counters per account, UTC day, event and kind of credential; what the analytics operations read.';
COMMENT ON COLUMN analytics_daily.issued IS 'Credentials issued on this day.';
COMMENT ON COLUMN analytics_daily.issued_verified IS 'Of the credentials issued on this day, those verified at least once so far.';

-- What was issued before this migration, counted from the credentials themselves.
INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, issued, issued_verified)
SELECT account_id, (issued_at AT TIME ZONE 'UTC')::date, event_id, 'certificate', count(*), count(first_verified_at)
FROM certificates WHERE issued_at IS NOT NULL
GROUP BY 1, 2, 3
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET issued = excluded.issued, issued_verified = excluded.issued_verified;
INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, issued, issued_verified)
SELECT ba.account_id, (ba.issued_at AT TIME ZONE 'UTC')::date, a.event_id, 'badge_assertion', count(*), count(ba.first_verified_at)
FROM badge_assertions ba JOIN attendees a ON a.id = ba.attendee_id
GROUP BY 1, 2, 3
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET issued = excluded.issued, issued_verified = excluded.issued_verified;

-- +goose Down
ALTER TABLE analytics_daily DROP COLUMN issued, DROP COLUMN issued_verified;
COMMENT ON TABLE analytics_daily IS NULL;
ALTER INDEX analytics_daily_event_idx RENAME TO verification_activity_daily_event_idx;
ALTER INDEX analytics_daily_pkey RENAME TO verification_activity_daily_pkey;
ALTER TABLE analytics_daily RENAME TO verification_activity_daily;
CREATE TABLE analytics_daily (
    account_id    uuid NOT NULL REFERENCES accounts (id),
    event_id      uuid NOT NULL,
    day           date NOT NULL,
    issued        integer NOT NULL DEFAULT 0,
    badges_issued integer NOT NULL DEFAULT 0,
    views         integer NOT NULL DEFAULT 0,
    shares        integer NOT NULL DEFAULT 0,
    downloads     integer NOT NULL DEFAULT 0,
    verifications integer NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, event_id, day)
);
