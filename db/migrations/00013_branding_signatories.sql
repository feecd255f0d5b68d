-- +goose Up
-- The people who sign an account's certificates: at most two, in order, each
-- {"name", "title", "signatureImage"} (the image a data URI or absent). A system template's
-- signature with `signatory: N` shows the N-th. Kept as one jsonb array beside the rest of the
-- branding: it is read and replaced as a whole with it, never queried by its parts. The
-- account service validates the entries; the constraint only keeps the shape.
ALTER TABLE branding
    ADD COLUMN signatories jsonb NOT NULL DEFAULT '[]'
        CONSTRAINT branding_signatories_shape
        CHECK (jsonb_typeof(signatories) = 'array' AND jsonb_array_length(signatories) <= 2);

-- +goose Down
ALTER TABLE branding DROP COLUMN signatories;
