-- +goose Up
-- The foreign key from attendees to events is back, as migration 00002 declared it, and the
-- attendees' search rows are written apart from the statements that write attendees (issue 50).
--
-- Migration 00034 replaced the key by 7 functions and 5 triggers that checked an attendee's
-- event once a statement; the triggers that wrote the search rows and the totals beside them
-- cost an import more than the key's checks ever did. An import is now made the ordinary way
-- (store.Tx.ImportAttendees: COPY into a temporary table, then one INSERT ... SELECT), with the
-- key's checks, the list totals' statement trigger (migration 00025) and no search trigger.
DROP TRIGGER events_not_truncated ON events;
DROP TRIGGER events_key_kept ON events;
DROP TRIGGER events_attendees_cascaded ON events;
DROP TRIGGER attendees_event_checked_on_move ON attendees;
DROP TRIGGER attendees_event_checked ON attendees;
DROP FUNCTION events_not_truncated(), event_key_kept(), events_attendees_deleted(), events_read_committed(text),
    attendee_event_held(), attendees_event_held(), attendee_event_locked(uuid, uuid);
ALTER TABLE attendees ADD CONSTRAINT attendees_account_id_event_id_fkey
    FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id) ON DELETE CASCADE;

-- The search rows of attendees (attendee_search, migration 00029) are written by the search
-- indexer (searchindex.Cleaner, every second), from the queue below, which the statements that
-- write attendees add to in their transaction: one entry an import (the event's attendees
-- created at one time), one an attendee created or changed. A search (q) may therefore trail
-- the writes by up to 2 seconds, as the contract says; the lists and their totals do not.
-- A search row goes with its attendee (the key below), so a deleted attendee, or the
-- attendees of a deleted event, are never counted.
DROP TRIGGER attendees_searched_renamed ON attendees;
DROP TRIGGER attendees_searched_deleted ON attendees;
DROP TRIGGER attendees_searched_inserted ON attendees;
DROP FUNCTION attendee_search_renamed(), attendee_search_written();
DELETE FROM attendee_search s WHERE NOT EXISTS (SELECT 1 FROM attendees a WHERE a.id = s.attendee_id);
ALTER TABLE attendee_search ADD CONSTRAINT attendee_search_attendee_id_fkey
    FOREIGN KEY (attendee_id) REFERENCES attendees (id) ON DELETE CASCADE;

CREATE TABLE attendee_search_queue (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    uuid NOT NULL,
    -- one attendee, created or changed; or, when NULL, the event's attendees created at
    -- created_at (an import gives all its rows one time)
    attendee_id uuid,
    created_at  timestamptz,
    CONSTRAINT attendee_search_queue_one_form CHECK ((attendee_id IS NULL) <> (created_at IS NULL))
);

-- As the certificates' index (migration 00033): the indexer's inserts leave their entries in
-- the index's pending list, and the cleaner merges them apart.
ALTER INDEX attendee_search_trgm_idx SET (gin_pending_list_limit = 65536);

-- The shape of an import's staging table. An import creates a temporary table of this name
-- (CREATE TEMP TABLE attendee_import (LIKE attendee_import) ON COMMIT DROP), which its
-- statements name unqualified and so reach first (the session's temporary schema is searched
-- before the others); this one only gives sqlc the columns, and refuses any row.
CREATE TABLE attendee_import (
    ord        integer NOT NULL,
    id         uuid NOT NULL,
    first_name text NOT NULL,
    last_name  text NOT NULL,
    email      text NOT NULL,
    metadata   jsonb NOT NULL,
    CONSTRAINT attendee_import_holds_no_row CHECK (false)
);

-- +goose Down
DROP TABLE attendee_import;
ALTER INDEX attendee_search_trgm_idx RESET (gin_pending_list_limit);
DROP TABLE attendee_search_queue;
ALTER TABLE attendee_search DROP CONSTRAINT attendee_search_attendee_id_fkey;
-- What the indexer had not written yet, written now, for the triggers that take over.
INSERT INTO attendee_search AS s (account_id, attendee_id, event_id, search_text)
SELECT account_id, id, event_id, attendee_search_text(first_name, last_name, email) FROM attendees
ON CONFLICT (attendee_id) DO UPDATE SET search_text = excluded.search_text WHERE s.search_text IS DISTINCT FROM excluded.search_text;

-- Migration 00029's search triggers.
-- +goose StatementBegin
CREATE FUNCTION attendee_search_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO attendee_search (account_id, attendee_id, event_id, search_text)
        SELECT account_id, id, event_id, attendee_search_text(first_name, last_name, email) FROM changed_rows;
    ELSE
        DELETE FROM attendee_search s USING changed_rows o WHERE s.attendee_id = o.id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION attendee_search_renamed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE attendee_search SET search_text = attendee_search_text(NEW.first_name, NEW.last_name, NEW.email)
    WHERE attendee_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER attendees_searched_inserted AFTER INSERT ON attendees
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION attendee_search_written();
CREATE TRIGGER attendees_searched_deleted AFTER DELETE ON attendees
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION attendee_search_written();
CREATE TRIGGER attendees_searched_renamed AFTER UPDATE OF first_name, last_name, email ON attendees
    FOR EACH ROW WHEN ((OLD.first_name, OLD.last_name, OLD.email) IS DISTINCT FROM (NEW.first_name, NEW.last_name, NEW.email))
    EXECUTE FUNCTION attendee_search_renamed();

-- Migration 00034's functions and triggers, in place of the key.
ALTER TABLE attendees DROP CONSTRAINT attendees_account_id_event_id_fkey;

-- +goose StatementBegin
CREATE FUNCTION attendee_event_locked(account uuid, event uuid) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM FROM events e WHERE e.account_id = account AND e.id = event FOR KEY SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'insert or update on table "attendees" violates foreign key constraint "attendees_event_fkey"'
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'attendees_event_fkey', TABLE = 'attendees', SCHEMA = 'public',
                  DETAIL = format('Key (account_id, event_id)=(%s, %s) is not present in table "events".', account, event);
    END IF;
END
$$;
-- +goose StatementEnd

REVOKE EXECUTE ON FUNCTION attendee_event_locked(uuid, uuid) FROM PUBLIC;

-- +goose StatementBegin
CREATE FUNCTION attendees_event_held() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    k record;
BEGIN
    FOR k IN SELECT DISTINCT w.account_id, w.event_id FROM written_rows w ORDER BY w.account_id, w.event_id LOOP
        PERFORM attendee_event_locked(k.account_id, k.event_id);
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION attendee_event_held() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM attendee_event_locked(NEW.account_id, NEW.event_id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION events_read_committed(what text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION '% runs in READ COMMITTED transactions only', what
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Its attendees are found with a new snapshot, which a transaction of this isolation level cannot take.';
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION events_attendees_deleted() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT d.account_id, d.id FROM removed_rows d LOOP
        PERFORM events_read_committed('Deleting an event');
        DELETE FROM attendees a WHERE a.event_id = r.id AND a.account_id = r.account_id;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION event_key_kept() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM events_read_committed('Changing an event''s key');
    IF EXISTS (SELECT FROM attendees a WHERE a.event_id = OLD.id AND a.account_id = OLD.account_id) THEN
        RAISE EXCEPTION 'update on table "events" violates foreign key constraint "attendees_event_fkey" on table "attendees"'
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'attendees_event_fkey', TABLE = 'attendees', SCHEMA = 'public',
                  DETAIL = format('Key (account_id, id)=(%s, %s) is still referenced from table "attendees".', OLD.account_id, OLD.id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION events_not_truncated() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'cannot truncate table "events": attendees name its rows (constraint "attendees_event_fkey")'
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete the events: their attendees are deleted with them.';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER attendees_event_checked AFTER INSERT ON attendees
    REFERENCING NEW TABLE AS written_rows FOR EACH STATEMENT EXECUTE FUNCTION attendees_event_held();
CREATE TRIGGER attendees_event_checked_on_move AFTER UPDATE ON attendees
    FOR EACH ROW WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.event_id IS DISTINCT FROM NEW.event_id)
    EXECUTE FUNCTION attendee_event_held();
CREATE TRIGGER events_attendees_cascaded AFTER DELETE ON events
    REFERENCING OLD TABLE AS removed_rows FOR EACH STATEMENT EXECUTE FUNCTION events_attendees_deleted();
CREATE TRIGGER events_key_kept AFTER UPDATE ON events
    FOR EACH ROW WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION event_key_kept();
CREATE TRIGGER events_not_truncated BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_not_truncated();
