-- +goose Up
-- What public verification records for analytics: per account, day, event and kind of
-- credential, how often credentials were viewed (HTML page), verified (JSON lookup or page),
-- downloaded (certificate.pdf) and shared (share redirect or copied link). Crawlers and link
-- unfurlers are not counted. Rows are added to in batches by the service, never per request.
-- The dashboard sums a day range of an account; event analytics one event's days.
CREATE TABLE verification_activity_daily (
    account_id      uuid NOT NULL REFERENCES accounts (id),
    day             date NOT NULL,
    -- The event the credential was issued for (a badge assertion: its attendee's event).
    event_id        uuid NOT NULL,
    credential_kind text NOT NULL CHECK (credential_kind IN ('certificate', 'badge_assertion')),
    views           integer NOT NULL DEFAULT 0 CHECK (views >= 0),
    verifications   integer NOT NULL DEFAULT 0 CHECK (verifications >= 0),
    downloads       integer NOT NULL DEFAULT 0 CHECK (downloads >= 0),
    shares          integer NOT NULL DEFAULT 0 CHECK (shares >= 0),
    PRIMARY KEY (account_id, day, event_id, credential_kind)
);
CREATE INDEX verification_activity_daily_event_idx ON verification_activity_daily (account_id, event_id, day);

-- "Verified at least once" is per credential: the first counted verification sets
-- first_verified_at (certificates and badge_assertions already carry the column), so the
-- verification rate of credentials issued in a period needs no scan of the daily counters.
COMMENT ON COLUMN certificates.first_verified_at IS 'First counted verification (JSON lookup or page view, crawlers excluded).';
COMMENT ON COLUMN badge_assertions.first_verified_at IS 'First counted verification (JSON lookup or page view, crawlers excluded).';
COMMENT ON COLUMN certificates.first_viewed_at IS 'First open of the verification page by the recipient (with the recipient token of the delivery email); certificate.viewed is written with it.';

-- The public lookup reads a certificate's event as its snapshot holds it. Reading it out of the
-- jsonb on every lookup costs more than the rest of the lookup together (the snapshot holds the
-- template's layout and is stored compressed); generated columns keep a plain copy, written by
-- the database itself whenever the snapshot is.
ALTER TABLE certificates
    ADD COLUMN snapshot_event_name     text GENERATED ALWAYS AS (snapshot -> 'event' ->> 'name') STORED,
    ADD COLUMN snapshot_event_date     text GENERATED ALWAYS AS (snapshot -> 'event' ->> 'date') STORED,
    ADD COLUMN snapshot_event_location text GENERATED ALWAYS AS (snapshot -> 'event' ->> 'location') STORED;

-- +goose Down
ALTER TABLE certificates DROP COLUMN snapshot_event_name, DROP COLUMN snapshot_event_date, DROP COLUMN snapshot_event_location;
COMMENT ON COLUMN certificates.first_viewed_at IS NULL;
COMMENT ON COLUMN badge_assertions.first_verified_at IS NULL;
COMMENT ON COLUMN certificates.first_verified_at IS NULL;
DROP TABLE verification_activity_daily;
