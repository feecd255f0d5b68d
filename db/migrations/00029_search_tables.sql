-- +goose Up
-- Searches (q) of attendees and certificates read a narrow table of their own (issue 30).
--
-- A trigram index only proposes rows: each candidate is read and checked, and its count with it.
-- In the lists' own tables a common word's matches in a large account lie on nearly every one
-- of their pages, wide with everything else a row holds: the count alone took what a whole
-- page may take. Here a row is the account, the row's id, its event and the searched text,
-- about 110 bytes: the same matches lie on far fewer pages and are counted in a fraction of
-- the time (figures in docs/benchmarks.md). The page itself is then read from the list's
-- table, along its order when matches are common and by id when they are rare (see
-- store/search.go). No index of these tables leads with the account: PostgreSQL would AND a
-- large account's entries of it with the trigram index's few, as slow as the count above; the
-- account and the event are checked on the matches' rows instead.
--
-- The searched text is what the lists searched before, lower-cased under ICU's root collation
-- (the database's own lower() folds A-Z alone, and "ŻÓŁĆ" would not find "Żółć"): an
-- attendee's "first last email", a certificate's "number code first last email". Each is one
-- function, used by the triggers that keep these tables and by the queries that check a row of
-- the list's own table against a search.
-- +goose StatementBegin
CREATE FUNCTION attendee_search_text(first_name text, last_name text, email text) RETURNS text
IMMUTABLE PARALLEL SAFE LANGUAGE sql AS $$
    SELECT lower((first_name || ' ' || last_name || ' ' || email) COLLATE "und-x-icu")
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION certificate_search_text(certificate_number text, verification_code text, first_name text, last_name text,
                                        email text) RETURNS text
IMMUTABLE PARALLEL SAFE LANGUAGE sql AS $$
    SELECT lower((certificate_number || ' ' || verification_code || ' ' || first_name || ' ' || last_name || ' ' || email)
                 COLLATE "und-x-icu")
$$;
-- +goose StatementEnd

CREATE TABLE attendee_search (
    account_id  uuid NOT NULL,
    attendee_id uuid NOT NULL,
    event_id    uuid NOT NULL,
    search_text text NOT NULL,
    PRIMARY KEY (attendee_id)
);
CREATE INDEX attendee_search_trgm_idx ON attendee_search USING gin (search_text gin_trgm_ops);

CREATE TABLE certificate_search (
    account_id     uuid NOT NULL,
    certificate_id uuid NOT NULL,
    event_id       uuid NOT NULL,
    search_text    text NOT NULL,
    PRIMARY KEY (certificate_id)
);
CREATE INDEX certificate_search_trgm_idx ON certificate_search USING gin (search_text gin_trgm_ops);

-- Kept as list_totals is: statement-level triggers with transition tables for inserts and
-- deletes (a COPY of 50,000 attendees is one INSERT ... SELECT here), a row-level trigger for
-- updates that is called only when a searched field changed (a certificate is updated often,
-- its names seldom). An attendee's or certificate's account and event never change.
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

-- +goose StatementBegin
CREATE FUNCTION certificate_search_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO certificate_search (account_id, certificate_id, event_id, search_text)
        SELECT account_id, id, event_id, certificate_search_text(certificate_number, verification_code, recipient_first_name,
                                                                 recipient_last_name, recipient_email)
        FROM changed_rows;
    ELSE
        DELETE FROM certificate_search s USING changed_rows o WHERE s.certificate_id = o.id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION certificate_search_renamed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE certificate_search
    SET search_text = certificate_search_text(NEW.certificate_number, NEW.verification_code, NEW.recipient_first_name,
                                              NEW.recipient_last_name, NEW.recipient_email)
    WHERE certificate_id = NEW.id;
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
CREATE TRIGGER certificates_searched_inserted AFTER INSERT ON certificates
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION certificate_search_written();
CREATE TRIGGER certificates_searched_deleted AFTER DELETE ON certificates
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION certificate_search_written();
CREATE TRIGGER certificates_searched_renamed
    AFTER UPDATE OF certificate_number, verification_code, recipient_first_name, recipient_last_name, recipient_email ON certificates
    FOR EACH ROW WHEN ((OLD.certificate_number, OLD.verification_code, OLD.recipient_first_name, OLD.recipient_last_name,
                        OLD.recipient_email)
                       IS DISTINCT FROM (NEW.certificate_number, NEW.verification_code, NEW.recipient_first_name,
                                         NEW.recipient_last_name, NEW.recipient_email))
    EXECUTE FUNCTION certificate_search_renamed();

INSERT INTO attendee_search (account_id, attendee_id, event_id, search_text)
SELECT account_id, id, event_id, search_text FROM attendees;
INSERT INTO certificate_search (account_id, certificate_id, event_id, search_text)
SELECT account_id, id, event_id, search_text FROM certificates;

DROP INDEX attendees_search_trgm_idx, certificates_search_trgm_idx;
ALTER TABLE attendees DROP COLUMN search_text;
ALTER TABLE certificates DROP COLUMN search_text;

-- +goose Down
ALTER TABLE attendees ADD COLUMN search_text text NOT NULL
    GENERATED ALWAYS AS (lower((first_name || ' ' || last_name || ' ' || email) COLLATE "und-x-icu")) STORED;
ALTER TABLE certificates ADD COLUMN search_text text NOT NULL
    GENERATED ALWAYS AS (lower((certificate_number || ' ' || verification_code || ' ' || recipient_first_name || ' '
                               || recipient_last_name || ' ' || recipient_email) COLLATE "und-x-icu")) STORED;
CREATE INDEX attendees_search_trgm_idx ON attendees USING gin (search_text gin_trgm_ops);
CREATE INDEX certificates_search_trgm_idx ON certificates USING gin (search_text gin_trgm_ops);
DROP TRIGGER certificates_searched_renamed ON certificates;
DROP TRIGGER certificates_searched_deleted ON certificates;
DROP TRIGGER certificates_searched_inserted ON certificates;
DROP TRIGGER attendees_searched_renamed ON attendees;
DROP TRIGGER attendees_searched_deleted ON attendees;
DROP TRIGGER attendees_searched_inserted ON attendees;
DROP FUNCTION certificate_search_renamed(), certificate_search_written(), attendee_search_renamed(), attendee_search_written();
DROP TABLE certificate_search, attendee_search;
DROP FUNCTION certificate_search_text(text, text, text, text, text), attendee_search_text(text, text, text);
