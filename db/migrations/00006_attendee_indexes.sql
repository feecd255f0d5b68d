-- +goose Up
-- Keyset reads of an event's attendees (exports, newest-first lists) walk (created_at, id) in
-- the index: one import gives all its rows the same created_at, so id must be in it too.
CREATE INDEX attendees_event_created_id_idx ON attendees (event_id, created_at, id);
DROP INDEX attendees_event_id_idx;
CREATE INDEX attendees_account_created_id_idx ON attendees (account_id, created_at, id);
DROP INDEX attendees_account_id_idx;
-- An attendee's certificates, of any status (export, deleting an attendee).
CREATE INDEX certificates_attendee_id_idx ON certificates (attendee_id, event_id);

-- +goose Down
DROP INDEX certificates_attendee_id_idx;
CREATE INDEX attendees_account_id_idx ON attendees (account_id, created_at DESC);
DROP INDEX attendees_account_created_id_idx;
CREATE INDEX attendees_event_id_idx ON attendees (event_id, created_at DESC);
DROP INDEX attendees_event_created_id_idx;
