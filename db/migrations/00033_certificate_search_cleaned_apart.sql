-- +goose Up
-- A GIN index takes new entries into a pending list, and the insert that finds the list past
-- gin_pending_list_limit (4 MB by default: about 2,300 certificates' search rows) merges it into
-- the index proper, in its own transaction, which takes far longer than an issuance. The
-- certificates' search rows are written by the issuing transaction, which holds the account's
-- credit row, so every issuance of the account waited behind that merge. Under a steady stream
-- of issuances it came every few seconds, and the issuances that met it made the slowest
-- percentile; merged apart, it leaves them alone at the same throughput (pgbench; figures in
-- docs/benchmarks.md and docs/decisions/search-tables.md).
--
-- The service merges it apart (searchindex.Cleaner, every second, in a transaction that holds
-- nothing an issuance waits for). The limit stays as a bound for when no instance runs the
-- cleaner (nor autovacuum, which merges it too): at 64 MB an insert merges it itself, as before.
ALTER INDEX certificate_search_trgm_idx SET (gin_pending_list_limit = 65536);

-- +goose Down
ALTER INDEX certificate_search_trgm_idx RESET (gin_pending_list_limit);
