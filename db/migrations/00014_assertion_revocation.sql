-- +goose Up
-- One badge assertion can be revoked by itself (with a reason code, as certificates are), and
-- a revoked assertion no longer holds its badge: issuing the badge again to its attendee makes
-- a new assertion. So the one-assertion-per-attendee rule covers the active assertions only.
-- Assertions revoked by retiring their badge before this migration get the code 'other'.
ALTER TABLE badge_assertions
    ADD COLUMN revocation_reason_code text
        CONSTRAINT badge_assertions_revocation_reason_code_check
        CHECK (revocation_reason_code IN ('issued_in_error', 'superseded', 'fraud', 'other', 'deleted_by_issuer'));
UPDATE badge_assertions SET revocation_reason_code = 'other' WHERE status = 'revoked';
ALTER TABLE badge_assertions DROP CONSTRAINT badge_assertions_badge_id_attendee_id_key;
CREATE UNIQUE INDEX badge_assertions_active_badge_id_attendee_id_key ON badge_assertions (badge_id, attendee_id)
    WHERE status = 'active';

-- Revoking a badge assertion writes a badge.revoked event.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_event_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_event_type_check
    CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed', 'certificate.downloaded',
                          'certificate.revoked', 'badge.revoked', 'webhook.test'));

-- The issuer's public contact address: the email Open Badges 2.0 requires of an Issuer
-- Profile (the service's sender address stands in when it is unset).
ALTER TABLE branding ADD COLUMN public_email text;

-- +goose Down
-- Events already written stay (nothing is erased): the old check holds for new rows only.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_event_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_event_type_check
    CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed', 'certificate.downloaded',
                          'certificate.revoked', 'webhook.test')) NOT VALID;
ALTER TABLE branding DROP COLUMN public_email;
DROP INDEX badge_assertions_active_badge_id_attendee_id_key;
ALTER TABLE badge_assertions ADD CONSTRAINT badge_assertions_badge_id_attendee_id_key UNIQUE (badge_id, attendee_id);
ALTER TABLE badge_assertions DROP COLUMN revocation_reason_code;
