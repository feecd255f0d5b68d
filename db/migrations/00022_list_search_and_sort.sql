-- +goose Up
-- Lists: search (q) and sort, by index. Searches are case-insensitive "contains" matches, which
-- a B-tree cannot serve; pg_trgm's GIN indexes can (a pattern of 3 characters or more), on the
-- exact expression each search compares (the list queries use the same ones). Case is folded
-- under ICU's root collation, whatever the database's own locale: under the C locale (the
-- embedded cluster's) lower() folds A-Z alone, and "ŻÓŁĆ" would not find "Żółć". pg_trgm ships
-- with PostgreSQL and is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX events_name_trgm_idx ON events USING gin (lower(name COLLATE "und-x-icu") gin_trgm_ops);
CREATE INDEX templates_name_trgm_idx ON templates USING gin (lower(name COLLATE "und-x-icu") gin_trgm_ops);
CREATE INDEX badges_name_trgm_idx ON badges USING gin (lower(name COLLATE "und-x-icu") gin_trgm_ops);
CREATE INDEX attendees_search_trgm_idx ON attendees
    USING gin (lower((first_name || ' ' || last_name || ' ' || email) COLLATE "und-x-icu") gin_trgm_ops);
CREATE INDEX certificates_search_trgm_idx ON certificates
    USING gin (lower((certificate_number || ' ' || verification_code || ' ' || recipient_first_name || ' '
                      || recipient_last_name || ' ' || recipient_email) COLLATE "und-x-icu") gin_trgm_ops);

-- The orders of the large lists, account-wide, each with the id that breaks its ties (read
-- backwards for the descending order). An event's lists sort that event's rows.
CREATE INDEX attendees_account_last_name_idx ON attendees (account_id, last_name, id);
CREATE INDEX attendees_account_email_id_idx ON attendees (account_id, email_normalized, id);
DROP INDEX attendees_account_email_idx;
CREATE INDEX certificates_account_created_idx ON certificates (account_id, created_at, id);
-- Issue time, drafts (no issue time) last in both directions: one index for each.
CREATE INDEX certificates_account_issued_idx ON certificates (account_id, issued_at, id);
CREATE INDEX certificates_account_issued_desc_idx ON certificates (account_id, issued_at DESC NULLS LAST, id DESC);
-- A status is a filter (the revoked ones, the drafts) that an account's certificates are
-- listed and counted by, newest first.
CREATE INDEX certificates_account_status_idx ON certificates (account_id, status, created_at, id);

-- +goose Down
DROP INDEX certificates_account_status_idx, certificates_account_issued_desc_idx, certificates_account_issued_idx, certificates_account_created_idx;
CREATE INDEX attendees_account_email_idx ON attendees (account_id, email_normalized);
DROP INDEX attendees_account_email_id_idx, attendees_account_last_name_idx;
DROP INDEX certificates_search_trgm_idx, attendees_search_trgm_idx, badges_name_trgm_idx, templates_name_trgm_idx,
    events_name_trgm_idx;
