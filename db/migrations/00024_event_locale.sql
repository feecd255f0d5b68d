-- +goose Up
-- Languages (issue 31): an event's locale decides its certificates', emails' and generated
-- credential texts' language; the branding's default_locale is what a new event takes when it
-- names none; an email delivery keeps the locale it was written in, so that its HTML part (the
-- heading, the buttons, the footer) speaks the language of its recorded text. The checks repeat
-- the contract's Locale enum: a value the application does not speak never gets stored.
ALTER TABLE events ADD COLUMN locale text NOT NULL DEFAULT 'en'
    CONSTRAINT events_locale_supported
        CHECK (locale IN ('en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ja', 'zh-Hans'));
ALTER TABLE branding ADD COLUMN default_locale text
    CONSTRAINT branding_default_locale_supported
        CHECK (default_locale IN ('en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ja', 'zh-Hans'));
ALTER TABLE email_deliveries ADD COLUMN locale text NOT NULL DEFAULT 'en';
-- The verification page falls back to the certificate's locale, frozen in its snapshot; a
-- plain copy beside the snapshot's others, so that a lookup does not read the whole snapshot.
ALTER TABLE certificates
    ADD COLUMN snapshot_event_locale text GENERATED ALWAYS AS (snapshot -> 'event' ->> 'locale') STORED;

-- +goose Down
ALTER TABLE certificates DROP COLUMN snapshot_event_locale;
ALTER TABLE email_deliveries DROP COLUMN locale;
ALTER TABLE branding DROP COLUMN default_locale;
ALTER TABLE events DROP COLUMN locale;
