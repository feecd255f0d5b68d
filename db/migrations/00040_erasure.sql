-- +goose Up
-- Erasure of a person at their request (issue 51, decision "Privacy: erasure, access,
-- retention"): their credentials are revoked with the reason code 'erased', and their data is
-- replaced in every copy; nothing issued is deleted.
ALTER TABLE certificates DROP CONSTRAINT certificates_revocation_reason_code_check;
ALTER TABLE certificates ADD CONSTRAINT certificates_revocation_reason_code_check
    CHECK (revocation_reason_code IN ('issued_in_error', 'superseded', 'fraud', 'other', 'deleted_by_issuer', 'erased'));
ALTER TABLE badge_assertions DROP CONSTRAINT badge_assertions_revocation_reason_code_check;
ALTER TABLE badge_assertions ADD CONSTRAINT badge_assertions_revocation_reason_code_check
    CHECK (revocation_reason_code IN ('issued_in_error', 'superseded', 'fraud', 'other', 'deleted_by_issuer', 'erased'));

-- When the attendee was erased: an erasure asked again changes nothing.
ALTER TABLE attendees ADD COLUMN erased_at timestamptz;

-- The salt of an erased recipient's identity hash is deleted: with the address gone, nothing
-- links an Open Badges document to the person.
ALTER TABLE badge_assertions ALTER COLUMN recipient_salt DROP NOT NULL;

-- +goose Down
UPDATE badge_assertions SET recipient_salt = '' WHERE recipient_salt IS NULL;
ALTER TABLE badge_assertions ALTER COLUMN recipient_salt SET NOT NULL;
ALTER TABLE attendees DROP COLUMN erased_at;
UPDATE certificates SET revocation_reason_code = 'other' WHERE revocation_reason_code = 'erased';
UPDATE badge_assertions SET revocation_reason_code = 'other' WHERE revocation_reason_code = 'erased';
ALTER TABLE certificates DROP CONSTRAINT certificates_revocation_reason_code_check;
ALTER TABLE certificates ADD CONSTRAINT certificates_revocation_reason_code_check
    CHECK (revocation_reason_code IN ('issued_in_error', 'superseded', 'fraud', 'other', 'deleted_by_issuer'));
ALTER TABLE badge_assertions DROP CONSTRAINT badge_assertions_revocation_reason_code_check;
ALTER TABLE badge_assertions ADD CONSTRAINT badge_assertions_revocation_reason_code_check
    CHECK (revocation_reason_code IN ('issued_in_error', 'superseded', 'fraud', 'other', 'deleted_by_issuer'));
