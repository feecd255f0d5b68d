-- +goose Up
-- A job's item may name a draft; drafts go with their event or attendee, and the item then
-- keeps its outcome without the link.
ALTER TABLE bulk_job_items DROP CONSTRAINT bulk_job_items_certificate_id_fkey,
    ADD CONSTRAINT bulk_job_items_certificate_id_fkey FOREIGN KEY (certificate_id) REFERENCES certificates (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE bulk_job_items DROP CONSTRAINT bulk_job_items_certificate_id_fkey,
    ADD CONSTRAINT bulk_job_items_certificate_id_fkey FOREIGN KEY (certificate_id) REFERENCES certificates (id);
