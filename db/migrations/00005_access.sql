-- +goose Up
-- Identity and access: one active signing key at a time, and what outbound email needs to be
-- composed by the worker without looking anything up again.

-- At most one key signs at a time; the others only verify until their tokens have expired.
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((true)) WHERE retired_at IS NULL;

ALTER TABLE email_deliveries
    ADD COLUMN to_name    text NOT NULL DEFAULT '' CHECK (to_name !~ '[\r\n]'),
    ADD COLUMN from_name  text NOT NULL DEFAULT '' CHECK (from_name !~ '[\r\n]'),
    ADD COLUMN reply_to   text CHECK (reply_to !~ '[\r\n]'),
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
    ADD CONSTRAINT email_deliveries_subject_one_line CHECK (subject !~ '[\r\n]'),
    ADD CONSTRAINT email_deliveries_to_one_line CHECK (to_address !~ '[\r\n]');

-- Keys are looked up by the user who made them when that user goes away.
CREATE INDEX api_keys_created_by_idx ON api_keys (created_by);

-- +goose Down
DROP INDEX api_keys_created_by_idx;
ALTER TABLE email_deliveries
    DROP CONSTRAINT email_deliveries_to_one_line,
    DROP CONSTRAINT email_deliveries_subject_one_line,
    DROP COLUMN updated_at, DROP COLUMN reply_to, DROP COLUMN from_name, DROP COLUMN to_name;
DROP INDEX signing_keys_one_active;
