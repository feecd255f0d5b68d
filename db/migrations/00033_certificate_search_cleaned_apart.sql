-- +goose Up
-- A GIN index takes new entries into a pending list, and the insert that finds the list past
-- gin_pending_list_limit (4 MB by default: about 2,300 certificates' search rows) merges it into
-- the index proper, in its own transaction: 50-150 ms here. The certificates' search rows are
-- written by the issuing transaction, which holds the account's credit row, so every issuance
-- of the account waited behind that merge. At 1,000 issuances a second it came every two or
-- three seconds, and a few in a hundred issuances met it (pgbench, one hot row and this index,
-- open loop at 1,000 a second: p99 103 ms; with the merge done apart every second, 10 ms, at
-- the same throughput closed-loop).
--
-- The service merges it apart (searchindex.Cleaner, every second, in a transaction that holds
-- nothing an issuance waits for). The limit stays as a bound for when no instance runs the
-- cleaner (nor autovacuum, which merges it too): at 64 MB an insert merges it itself, as before.
ALTER INDEX certificate_search_trgm_idx SET (gin_pending_list_limit = 65536);

-- +goose Down
ALTER INDEX certificate_search_trgm_idx RESET (gin_pending_list_limit);
