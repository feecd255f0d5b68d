-- +goose Up
-- Open Badges hash a recipient's email with a salt of the assertion's own, so that equal
-- emails do not give equal hashes across assertions (Open Badges 2.0 recipient, 3.0
-- IdentityObject). Assertions issued before this migration get a random salt here.
ALTER TABLE badge_assertions ADD COLUMN recipient_salt text;
UPDATE badge_assertions SET recipient_salt = replace(gen_random_uuid()::text, '-', '');
ALTER TABLE badge_assertions ALTER COLUMN recipient_salt SET NOT NULL,
    ADD CONSTRAINT badge_assertions_recipient_salt_check CHECK (length(recipient_salt) >= 16);

-- +goose Down
ALTER TABLE badge_assertions DROP COLUMN recipient_salt;
