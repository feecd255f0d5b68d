-- +goose Up
-- An attendee's event is checked once a statement, not once a row (issue 33). The foreign key
-- from attendees to events fired one trigger for each row written: a COPY of 50,000 attendees
-- (an import) queued 50,000 events, fetched each row again and ran 50,000 lookups of the same
-- event, a sixth of the import's PostgreSQL time (session 18 measured its backend's CPU at
-- 3,180 ms a file with the key and 2,710 without; session 20, the import over HTTP at 0.81-0.84
-- of the bare COPY with it and 0.91-0.97 without).
--
-- The triggers below keep what the key kept, whatever the code above them does:
--   - a statement that writes attendees (INSERT, COPY, an upsert, MERGE) fails, writing nothing,
--     when one of the events they name is not the account's; each event named is locked FOR
--     KEY SHARE, as the key's check locked it, so that it is neither deleted nor given another
--     key until the writing transaction ends (an event deleted first, and committed, is not
--     found: the statement fails);
--   - an attendee moved to another event or account (no query does it) is checked the same way;
--   - deleting events deletes their attendees (ON DELETE CASCADE), each event's by the index
--     attendees_event_created_id_idx, in statements with their own snapshots, so they see
--     attendees committed while the deletion waited for an event's lock; an attendee that
--     holds an issued badge still refuses it (its own foreign key);
--   - an event's key (account_id, id) is not changed while attendees name it (NO ACTION);
--   - TRUNCATE of events is refused (the key's CASCADE would have emptied attendees too).
-- The failures are foreign_key_violation (23503) naming attendees_event_fkey, as the key's were
-- (the store reads that code and the constraint's name).
--
-- As the key's checks do, the functions run as the tables' owner (SECURITY DEFINER: a role
-- that may insert attendees needs no UPDATE on events for the lock) and name their tables in
-- the schema they were made in, never a temporary table of the session (search_path set).
-- Deleting an event, or changing its key, needs READ COMMITTED, the service's level: in
-- REPEATABLE READ or SERIALIZABLE the transaction's snapshot would not see attendees committed
-- while it waited for the event (the key raised a serialization failure there), so those
-- statements are refused with a message that says so.
ALTER TABLE attendees DROP CONSTRAINT attendees_account_id_event_id_fkey;

-- attendee_event_locked locks the account's event FOR KEY SHARE, as the foreign key's query
-- did, and refuses the statement when there is none.
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

-- Called by the triggers below, not by anyone else: it locks as the tables' owner.
REVOKE EXECUTE ON FUNCTION attendee_event_locked(uuid, uuid) FROM PUBLIC;

-- attendees_event_held checks the events of the rows a statement wrote (written_rows): each
-- distinct event once, by its key (the index events_account_id_id_key).
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

-- attendee_event_held is attendees_event_held for one attendee whose event or account changed.
-- +goose StatementBegin
CREATE FUNCTION attendee_event_held() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM attendee_event_locked(NEW.account_id, NEW.event_id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- events_read_committed refuses, outside READ COMMITTED, a statement whose attendees' part
-- reads what was committed while it waited (see above).
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

-- events_attendees_deleted deletes the attendees of the events a statement deleted
-- (removed_rows), one event at a time, so that each is a lookup of the index whatever the
-- number of events the first deletion of a session named (the plan is kept for the session).
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

-- event_key_kept refuses a change of an event's key while attendees name the old one.
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

-- events_not_truncated refuses TRUNCATE of events: events are deleted, their attendees with them.
-- +goose StatementBegin
CREATE FUNCTION events_not_truncated() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'cannot truncate table "events": attendees name its rows (constraint "attendees_event_fkey")'
        USING ERRCODE = 'feature_not_supported', HINT = 'Delete the events: their attendees are deleted with them.';
END
$$;
-- +goose StatementEnd

-- The row triggers name no columns, so that a change made by another trigger is seen too.
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

-- +goose Down
DROP TRIGGER events_not_truncated ON events;
DROP TRIGGER events_key_kept ON events;
DROP TRIGGER events_attendees_cascaded ON events;
DROP TRIGGER attendees_event_checked_on_move ON attendees;
DROP TRIGGER attendees_event_checked ON attendees;
DROP FUNCTION events_not_truncated(), event_key_kept(), events_attendees_deleted(), events_read_committed(text),
    attendee_event_held(), attendees_event_held(), attendee_event_locked(uuid, uuid);
ALTER TABLE attendees ADD CONSTRAINT attendees_account_id_event_id_fkey
    FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id) ON DELETE CASCADE;
