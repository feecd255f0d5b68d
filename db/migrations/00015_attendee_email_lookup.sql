-- +goose Up
-- GET /attendees?email= finds an address across the account's events: an index scan, however
-- many attendees the account has.
CREATE INDEX attendees_account_email_idx ON attendees (account_id, email_normalized);

-- +goose Down
DROP INDEX attendees_account_email_idx;
