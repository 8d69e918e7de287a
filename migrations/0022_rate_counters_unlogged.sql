-- Nothing changes here: PostgreSQL's 0003_rate_counters_unlogged makes the shared rate counters an UNLOGGED
-- table, which SQLite has no notion of (its limits are counted in memory). Each PostgreSQL migration pairs
-- with a SQLite one of the same date, so both dialects' journals end on the same schema version.
SELECT 1;
