-- +goose Up
-- certificates carried UNIQUE (account_id, id) beside its primary key (id) since migration 00003,
-- for composite foreign keys that never came: none references it (badges' and attendees' keys of
-- the same shape are referenced; this one is not). The primary key already makes every
-- (account_id, id) unique, and a lookup by both reads the primary key and checks the account. Its
-- index cost every certificate issued one more index insert (issue 33's job: 10,000 of them).
ALTER TABLE certificates DROP CONSTRAINT certificates_account_id_id_key;

-- +goose Down
ALTER TABLE certificates ADD CONSTRAINT certificates_account_id_id_key UNIQUE (account_id, id);
