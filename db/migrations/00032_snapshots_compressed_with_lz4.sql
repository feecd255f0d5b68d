-- +goose Up
-- A certificate's snapshot (what it is rendered from, its template's layout within: about 3 KB)
-- is compressed as it is stored, inside the transaction that holds the account's hot rows. With
-- pglz, PostgreSQL's default, that took several times the PostgreSQL CPU it takes with lz4,
-- whose stored snapshot is somewhat larger (figures in docs/benchmarks.md). New snapshots are
-- compressed with lz4 where the server was built with it (the Debian and PGDG packages, the
-- official images); elsewhere the column keeps the default and nothing changes. Snapshots
-- stored before stay as they are: PostgreSQL reads both.
-- +goose StatementBegin
DO $$
BEGIN
    IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
        ALTER TABLE certificates ALTER COLUMN snapshot SET COMPRESSION lz4;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE certificates ALTER COLUMN snapshot SET COMPRESSION default;
