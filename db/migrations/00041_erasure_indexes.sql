-- +goose Up
-- What an erasure reads by attendee and by account (db/queries/privacy.sql), indexed: it runs in
-- one transaction that holds the person's rows, and must not scan every account's.
CREATE INDEX bulk_job_items_attendee_id_idx ON bulk_job_items (attendee_id);
CREATE INDEX badge_assertions_account_attendee_idx ON badge_assertions (account_id, attendee_id);
CREATE INDEX webhook_deliveries_account_id_idx ON webhook_deliveries (account_id);
CREATE INDEX outbox_events_account_id_idx ON outbox_events (account_id);

-- +goose Down
DROP INDEX outbox_events_account_id_idx;
DROP INDEX webhook_deliveries_account_id_idx;
DROP INDEX badge_assertions_account_attendee_idx;
DROP INDEX bulk_job_items_attendee_id_idx;
