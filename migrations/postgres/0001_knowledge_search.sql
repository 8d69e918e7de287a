-- Knowledge search on PostgreSQL (src/knowledge/postgres-store.ts). SQLite keeps a chunk's words in an
-- FTS5 table (porter stemming, no stop words) and its vectors in sqlite-vec tables; here one table keyed
-- by the chunk's rowid holds its words as a tsvector under a GIN index, its length in tokens (for BM25)
-- and the 1-bit code of its vector (the first pass over large bases). The float vectors stay in
-- knowledge_chunks.embedding. English stemming without a stop-word list, as FTS5's porter tokenizer.
CREATE TEXT SEARCH DICTIONARY parley_english_stem (TEMPLATE = snowball, LANGUAGE = english);
--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION parley_search (COPY = english);
--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION parley_search ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH parley_english_stem;
--> statement-breakpoint
CREATE TABLE knowledge_pg_search (
  rowid bigint PRIMARY KEY REFERENCES knowledge_chunks (rowid) ON DELETE CASCADE,
  knowledge_base_id text NOT NULL,
  words tsvector NOT NULL,
  length integer NOT NULL,
  code bytea NOT NULL
);
--> statement-breakpoint
CREATE INDEX knowledge_pg_search_words_idx ON knowledge_pg_search USING gin (words);
--> statement-breakpoint
CREATE INDEX knowledge_pg_search_kb_idx ON knowledge_pg_search (knowledge_base_id);
