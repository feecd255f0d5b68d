-- +goose Up
-- Migration 00044's checks meant "a credential without its attendee is revoked", but were
-- written attendee_link = attendee_id OR (attendee_link IS NULL AND status = 'revoked'), which is
-- NULL, and so passes, for a credential that is not revoked and has no link (a CHECK refuses only
-- FALSE). The CASE below is never NULL: without a link, the credential must be revoked; with one,
-- the link must be its attendee.
ALTER TABLE certificates DROP CONSTRAINT certificates_attendee_link_check;
ALTER TABLE certificates ADD CONSTRAINT certificates_attendee_link_check
    CHECK (CASE WHEN attendee_link IS NULL THEN status = 'revoked' ELSE attendee_link = attendee_id END);
ALTER TABLE badge_assertions DROP CONSTRAINT badge_assertions_attendee_link_check;
ALTER TABLE badge_assertions ADD CONSTRAINT badge_assertions_attendee_link_check
    CHECK (CASE WHEN attendee_link IS NULL THEN status = 'revoked' ELSE attendee_link = attendee_id END);

-- +goose Down
ALTER TABLE badge_assertions DROP CONSTRAINT badge_assertions_attendee_link_check;
ALTER TABLE badge_assertions ADD CONSTRAINT badge_assertions_attendee_link_check
    CHECK (attendee_link = attendee_id OR (attendee_link IS NULL AND status = 'revoked'));
ALTER TABLE certificates DROP CONSTRAINT certificates_attendee_link_check;
ALTER TABLE certificates ADD CONSTRAINT certificates_attendee_link_check
    CHECK (attendee_link = attendee_id OR (attendee_link IS NULL AND status = 'revoked'));
