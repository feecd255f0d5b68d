-- +goose Up
-- SVGs stored before a stricter upload check are checked again by a River job (the svg_recheck
-- job, internal/svgrecheck): the branding's logos and signature images, the badges' images and
-- the images of the templates' layouts. One that fails today's check is replaced by its
-- rasterisation as a PNG. The check's rules carry a version (render.SVGCheckVersion); the job
-- writes its version here when it has been through every stored image, and each start queues
-- the job (unique in River) until its version is written, so it runs once per version and a
-- restart resumes it where its last batch committed. A certificate's snapshot keeps its images
-- as they were issued: they are only ever drawn, by a renderer that fetches and runs nothing.
CREATE TABLE svg_rechecks (
    check_version integer PRIMARY KEY,
    finished_at   timestamptz NOT NULL
);

-- +goose Down
DROP TABLE svg_rechecks;
