-- +goose Up
-- The totals of the account-wide and per-event lists of attendees and certificates, kept as
-- rows are written (issue 30). Counting them when a page is asked for read every one of the
-- account's rows whatever the plan: for a large account, past the 20 ms a page may take.
--
-- A total is the sum of a few rows: per account, list, event (the nil UUID for the whole
-- account) and stored status ('' for attendees), split into shards by the writing backend, so
-- that concurrent writers of one account do not queue on one row (pg_backend_pid() % 8; a
-- statement writes one shard). Statement-level triggers with transition tables keep them: a
-- COPY of 50,000 attendees or a batch of 100 certificates costs one upsert per group, not one
-- per row. Groups are written in key order, so that two writers that meet on a shard lock its
-- rows in the same order. A certificate's status is written by UPDATE, one row at a time
-- (revocation, a draft issued), hence a row-level trigger there, only when the status changes.
-- An attendee's or certificate's event and account never change (no query updates them).
CREATE TABLE list_totals (
    account_id uuid     NOT NULL,
    list       text     NOT NULL CHECK (list IN ('attendees', 'certificates')),
    event_id   uuid     NOT NULL,
    status     text     NOT NULL,
    shard      smallint NOT NULL,
    n          bigint   NOT NULL,
    PRIMARY KEY (account_id, list, event_id, status, shard)
);

-- Each function adds the statement's changed rows (changed_rows: the new ones of an INSERT,
-- the old ones of a DELETE) to the totals, grouped by account, event and status, and each also
-- under the whole account (the nil event).
-- +goose StatementBegin
CREATE FUNCTION count_attendees_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO list_totals AS t (account_id, list, event_id, status, shard, n)
    SELECT g.account_id, 'attendees', g.event_id, '', pg_backend_pid() % 8, g.n
    FROM (SELECT account_id, coalesce(event_id, '00000000-0000-0000-0000-000000000000') AS event_id,
                 CASE TG_OP WHEN 'DELETE' THEN -count(*) ELSE count(*) END AS n
          FROM changed_rows GROUP BY GROUPING SETS ((account_id, event_id), (account_id))) g
    ORDER BY g.account_id, g.event_id
    ON CONFLICT (account_id, list, event_id, status, shard) DO UPDATE SET n = t.n + excluded.n;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION count_certificates_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO list_totals AS t (account_id, list, event_id, status, shard, n)
    SELECT g.account_id, 'certificates', g.event_id, g.status, pg_backend_pid() % 8, g.n
    FROM (SELECT account_id, coalesce(event_id, '00000000-0000-0000-0000-000000000000') AS event_id, status,
                 CASE TG_OP WHEN 'DELETE' THEN -count(*) ELSE count(*) END AS n
          FROM changed_rows GROUP BY GROUPING SETS ((account_id, event_id, status), (account_id, status))) g
    ORDER BY g.account_id, g.event_id, g.status
    ON CONFLICT (account_id, list, event_id, status, shard) DO UPDATE SET n = t.n + excluded.n;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION count_certificate_status_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO list_totals AS t (account_id, list, event_id, status, shard, n)
    SELECT NEW.account_id, 'certificates', v.event_id, v.status, pg_backend_pid() % 8, v.n
    FROM (VALUES (NEW.event_id, OLD.status, -1), (NEW.event_id, NEW.status, 1),
                 ('00000000-0000-0000-0000-000000000000'::uuid, OLD.status, -1),
                 ('00000000-0000-0000-0000-000000000000'::uuid, NEW.status, 1)) AS v(event_id, status, n)
    ORDER BY v.event_id, v.status
    ON CONFLICT (account_id, list, event_id, status, shard) DO UPDATE SET n = t.n + excluded.n;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER attendees_counted_inserted AFTER INSERT ON attendees
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION count_attendees_written();
CREATE TRIGGER attendees_counted_deleted AFTER DELETE ON attendees
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION count_attendees_written();
CREATE TRIGGER certificates_counted_inserted AFTER INSERT ON certificates
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION count_certificates_written();
CREATE TRIGGER certificates_counted_deleted AFTER DELETE ON certificates
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION count_certificates_written();
CREATE TRIGGER certificates_counted_status_changed AFTER UPDATE OF status ON certificates
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION count_certificate_status_changed();

-- What is already there, counted once (shard 0).
INSERT INTO list_totals (account_id, list, event_id, status, shard, n)
SELECT account_id, 'attendees', coalesce(event_id, '00000000-0000-0000-0000-000000000000'), '', 0, count(*)
FROM attendees GROUP BY GROUPING SETS ((account_id, event_id), (account_id));
INSERT INTO list_totals (account_id, list, event_id, status, shard, n)
SELECT account_id, 'certificates', coalesce(event_id, '00000000-0000-0000-0000-000000000000'), status, 0, count(*)
FROM certificates GROUP BY GROUPING SETS ((account_id, event_id, status), (account_id, status));

-- An issued certificate past its expiry is counted as 'issued' and listed as expired: the
-- totals of the valid and expired lists subtract or add those, found by this index.
CREATE INDEX certificates_account_expiry_idx ON certificates (account_id, expires_at, event_id)
    WHERE status = 'issued' AND expires_at IS NOT NULL;

-- A search's rows were checked again against the index's expression on the way (a trigram
-- index only proposes rows): lower() under ICU and the concatenation, for every candidate,
-- about half of a search's time when matches are many. The searched text is now stored, written
-- once with the row, and indexed as it is.
ALTER TABLE attendees ADD COLUMN search_text text NOT NULL
    GENERATED ALWAYS AS (lower((first_name || ' ' || last_name || ' ' || email) COLLATE "und-x-icu")) STORED;
ALTER TABLE certificates ADD COLUMN search_text text NOT NULL
    GENERATED ALWAYS AS (lower((certificate_number || ' ' || verification_code || ' ' || recipient_first_name || ' '
                               || recipient_last_name || ' ' || recipient_email) COLLATE "und-x-icu")) STORED;
DROP INDEX attendees_search_trgm_idx, certificates_search_trgm_idx;
CREATE INDEX attendees_search_trgm_idx ON attendees USING gin (search_text gin_trgm_ops);
CREATE INDEX certificates_search_trgm_idx ON certificates USING gin (search_text gin_trgm_ops);

-- +goose Down
DROP INDEX attendees_search_trgm_idx, certificates_search_trgm_idx;
ALTER TABLE attendees DROP COLUMN search_text;
ALTER TABLE certificates DROP COLUMN search_text;
CREATE INDEX attendees_search_trgm_idx ON attendees
    USING gin (lower((first_name || ' ' || last_name || ' ' || email) COLLATE "und-x-icu") gin_trgm_ops);
CREATE INDEX certificates_search_trgm_idx ON certificates
    USING gin (lower((certificate_number || ' ' || verification_code || ' ' || recipient_first_name || ' '
                      || recipient_last_name || ' ' || recipient_email) COLLATE "und-x-icu") gin_trgm_ops);
DROP INDEX certificates_account_expiry_idx;
DROP TRIGGER certificates_counted_status_changed ON certificates;
DROP TRIGGER certificates_counted_deleted ON certificates;
DROP TRIGGER certificates_counted_inserted ON certificates;
DROP TRIGGER attendees_counted_deleted ON attendees;
DROP TRIGGER attendees_counted_inserted ON attendees;
DROP FUNCTION count_certificate_status_changed();
DROP FUNCTION count_certificates_written();
DROP FUNCTION count_attendees_written();
DROP TABLE list_totals;
