-- +goose Up
-- Languages (issue 31): a badge assertion speaks the locale of its attendee's event, copied
-- when it is issued (as a certificate's snapshot keeps its event's), so that its email, its
-- page's fallback language and the sentences its signed credential generates stay what they
-- were at issuance when the event's locale changes later: re-signing gives the same text.
-- Assertions issued before languages were emailed and signed in English and stay so. The
-- default only fills those: it is dropped, so that no insert can forget the event's locale.
ALTER TABLE badge_assertions ADD COLUMN locale text NOT NULL DEFAULT 'en'
    CONSTRAINT badge_assertions_locale_supported
        CHECK (locale IN ('en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ja', 'zh-Hans'));
ALTER TABLE badge_assertions ALTER COLUMN locale DROP DEFAULT;

-- +goose Down
ALTER TABLE badge_assertions DROP COLUMN locale;
