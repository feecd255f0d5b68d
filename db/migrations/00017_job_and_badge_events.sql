-- +goose Up
-- A bulk job's end (job.completed) and each new badge assertion (badge.issued) are written to
-- the outbox like the other kinds.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_event_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_event_type_check
    CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed', 'certificate.downloaded',
                          'certificate.revoked', 'badge.issued', 'badge.revoked', 'job.completed', 'webhook.test'));

-- +goose Down
-- Events already written stay (nothing is erased): the old check holds for new rows only.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_event_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_event_type_check
    CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed', 'certificate.downloaded',
                          'certificate.revoked', 'badge.revoked', 'webhook.test')) NOT VALID;
