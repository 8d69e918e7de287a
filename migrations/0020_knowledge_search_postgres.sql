-- Nothing changes here: PostgreSQL's 0001_knowledge_search gives it what FTS5 and sqlite-vec give SQLite.
-- Each PostgreSQL migration pairs with a SQLite one of the same date, so both dialects' journals end on
-- the same schema version (test/postgres/drift.test.ts).
SELECT 1;
