-- +goose Up
-- Lists sorted by a name (events, templates and badges by name, attendees by last name) order
-- it under ICU's root collation, as people read names, whatever the database's locale: under
-- the C locale (the embedded cluster's) names sorted by bytes, "Zed" before "adam" and "Żółć"
-- after "Zed". The attendees' account-wide index follows the order its list now asks for.
DROP INDEX attendees_account_last_name_idx;
CREATE INDEX attendees_account_last_name_idx ON attendees (account_id, last_name COLLATE "und-x-icu", id);

-- +goose Down
DROP INDEX attendees_account_last_name_idx;
CREATE INDEX attendees_account_last_name_idx ON attendees (account_id, last_name, id);
