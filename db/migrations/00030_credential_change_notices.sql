-- +goose Up
-- Change notices for the lookups' caches (issue 33): every instance of the service keeps the
-- certificates it looked up lately in memory (public verification by code, the API's
-- GET /certificates/{id} by id), and forgets one when PostgreSQL tells it, on the channel
-- credential_changes, that what the lookups show of it has changed, in whichever instance or
-- session the change committed. A notice is delivered after its transaction commits, to every
-- session listening then, in commit order; an instance that is not listening keeps nothing
-- (store.WatchChanges).
--
-- Payloads: 'certificate <id> <verification code>' for a certificate, 'account <id>' for what
-- every credential of an account shows of its issuer (its branding, its name).
--
-- A certificate's notice fires only when a column that a lookup shows changes: the first view
-- and the first verification of a certificate are written often, in batches, show nothing and
-- notify nothing. The snapshot is watched through its generated event columns, which are what
-- verification reads of it (comparing the compressed snapshot itself on every update would
-- cost more than the update); whatever else of it changes, a column watched changes with it
-- (updated_at). store's TestChangeNoticesWatchEveryColumnALookupShows holds every column of the
-- table to one of the two lists.
-- +goose StatementBegin
CREATE FUNCTION notify_certificate_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('credential_changes', 'certificate ' || OLD.id::text || ' ' || OLD.verification_code);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER certificates_changed AFTER UPDATE ON certificates FOR EACH ROW
WHEN ((OLD.account_id, OLD.event_id, OLD.attendee_id, OLD.template_id, OLD.certificate_number, OLD.verification_code,
       OLD.status, OLD.recipient_first_name, OLD.recipient_last_name, OLD.recipient_email, OLD.recipient_token_hash,
       OLD.issued_at, OLD.expires_at, OLD.revoked_at, OLD.revocation_reason, OLD.revocation_reason_code, OLD.created_at,
       OLD.updated_at, OLD.snapshot_event_name, OLD.snapshot_event_date, OLD.snapshot_event_location,
       OLD.snapshot_event_locale)
      IS DISTINCT FROM
      (NEW.account_id, NEW.event_id, NEW.attendee_id, NEW.template_id, NEW.certificate_number, NEW.verification_code,
       NEW.status, NEW.recipient_first_name, NEW.recipient_last_name, NEW.recipient_email, NEW.recipient_token_hash,
       NEW.issued_at, NEW.expires_at, NEW.revoked_at, NEW.revocation_reason, NEW.revocation_reason_code, NEW.created_at,
       NEW.updated_at, NEW.snapshot_event_name, NEW.snapshot_event_date, NEW.snapshot_event_location,
       NEW.snapshot_event_locale))
EXECUTE FUNCTION notify_certificate_changed();

CREATE TRIGGER certificates_deleted AFTER DELETE ON certificates FOR EACH ROW
EXECUTE FUNCTION notify_certificate_changed();

-- +goose StatementBegin
CREATE FUNCTION notify_issuer_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'accounts' THEN
        PERFORM pg_notify('credential_changes', 'account ' || NEW.id::text);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('credential_changes', 'account ' || OLD.account_id::text);
    ELSE
        PERFORM pg_notify('credential_changes', 'account ' || NEW.account_id::text);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER branding_changed AFTER INSERT OR UPDATE OR DELETE ON branding FOR EACH ROW
EXECUTE FUNCTION notify_issuer_changed();

CREATE TRIGGER account_name_changed AFTER UPDATE OF name ON accounts FOR EACH ROW
WHEN (OLD.name IS DISTINCT FROM NEW.name)
EXECUTE FUNCTION notify_issuer_changed();

-- +goose Down
DROP TRIGGER account_name_changed ON accounts;
DROP TRIGGER branding_changed ON branding;
DROP TRIGGER certificates_deleted ON certificates;
DROP TRIGGER certificates_changed ON certificates;
DROP FUNCTION notify_issuer_changed();
DROP FUNCTION notify_certificate_changed();
