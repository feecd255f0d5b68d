-- +goose Up
-- An erased person no longer holds their event or their attendee row (issue 51, decision
-- "Privacy: erasure, access, retention"): deleting the event, or the erased attendee, removes
-- them while their revoked credentials stay and verify as revoked with reason erased.
--
-- A credential keeps the ids it was issued under in event_id and attendee_id, what the API
-- shows (a deleted event's id stays on its certificates, as a payment keeps a deleted
-- customer's id). The foreign key that holds the attendee moves to attendee_link, equal to
-- attendee_id while the attendee holds the credential; deleting an erased attendee (or its
-- event) empties the link of their credentials first, in the same transaction. Every other
-- credential still holds its attendee, and through the attendee its event (an attendee never
-- changes event, and deleting an event deletes its attendees): the key refuses their deletion,
-- and the insert's key check holds the attendee (FOR KEY SHARE) as before. The certificates'
-- own key to events is implied by it, and goes. Only a revoked credential may be let go (an
-- erased person's are all revoked; their drafts are deleted with them, never let go), so a
-- credential written without its link is refused.
ALTER TABLE certificates ADD COLUMN attendee_link uuid;
UPDATE certificates SET attendee_link = attendee_id;
ALTER TABLE certificates
    DROP CONSTRAINT certificates_account_id_attendee_id_fkey,
    DROP CONSTRAINT certificates_account_id_event_id_fkey,
    ADD CONSTRAINT certificates_attendee_link_fkey FOREIGN KEY (account_id, attendee_link) REFERENCES attendees (account_id, id),
    ADD CONSTRAINT certificates_attendee_link_check CHECK (attendee_link = attendee_id OR (attendee_link IS NULL AND status = 'revoked'));
CREATE INDEX certificates_attendee_link_idx ON certificates (attendee_link);

ALTER TABLE badge_assertions ADD COLUMN attendee_link uuid;
UPDATE badge_assertions SET attendee_link = attendee_id;
ALTER TABLE badge_assertions
    DROP CONSTRAINT badge_assertions_account_id_attendee_id_fkey,
    ADD CONSTRAINT badge_assertions_attendee_link_fkey FOREIGN KEY (account_id, attendee_link) REFERENCES attendees (account_id, id),
    ADD CONSTRAINT badge_assertions_attendee_link_check CHECK (attendee_link = attendee_id OR (attendee_link IS NULL AND status = 'revoked'));
CREATE INDEX badge_assertions_attendee_link_idx ON badge_assertions (attendee_link);

-- +goose Down
-- Credentials whose attendee is gone cannot hold a key to it again: the down migration refuses
-- while any exists (their data was erased at the person's request; nothing restores it).
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM certificates WHERE attendee_link IS NULL)
       OR EXISTS (SELECT 1 FROM badge_assertions WHERE attendee_link IS NULL) THEN
        RAISE EXCEPTION 'credentials of deleted erased attendees exist; they cannot hold their attendee again';
    END IF;
END $$;
-- +goose StatementEnd
DROP INDEX badge_assertions_attendee_link_idx;
ALTER TABLE badge_assertions
    DROP CONSTRAINT badge_assertions_attendee_link_check,
    DROP CONSTRAINT badge_assertions_attendee_link_fkey,
    ADD CONSTRAINT badge_assertions_account_id_attendee_id_fkey FOREIGN KEY (account_id, attendee_id) REFERENCES attendees (account_id, id),
    DROP COLUMN attendee_link;
DROP INDEX certificates_attendee_link_idx;
ALTER TABLE certificates
    DROP CONSTRAINT certificates_attendee_link_check,
    DROP CONSTRAINT certificates_attendee_link_fkey,
    ADD CONSTRAINT certificates_account_id_event_id_fkey FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id),
    ADD CONSTRAINT certificates_account_id_attendee_id_fkey FOREIGN KEY (account_id, attendee_id) REFERENCES attendees (account_id, id),
    DROP COLUMN attendee_link;
