import type { AppContext } from "../core/context.ts";
import type { Sqlite } from "../db/connection.ts";
import { newId } from "../lib/ids.ts";
import { BinaryCodeIndex, binaryCode } from "./coarse-index.ts";
import { type ChunkRow, indexedText, type KnowledgeBaseInfo, type SearchStore, vectorBytes } from "./search-store.ts";
import { cosineDistance, nearestOf, VectorMatrix, VersionedCache, vectorOf } from "./vector-memory.ts";

// PostgreSQL without pgvector (migrations/postgres/0001_knowledge_search.sql): float vectors stay in
// knowledge_chunks.embedding; knowledge_pg_search holds each chunk's words (a tsvector under GIN), its
// length in tokens and its 1-bit code. Words are ranked by BM25 in SQL, as FTS5 ranks them; vectors
// are compared in this process, from a base's float matrix (small bases) or its codes (large ones)
// loaded once per index_version into a cache of bounded size.

/** Memory for every base's matrix or codes together; the least recently searched go first. */
export const VECTOR_CACHE_BYTES = 256 * 1024 * 1024;
/** A base whose float matrix would be larger than this is searched in two stages (codes are 32× smaller). */
const EXACT_MATRIX_BYTES = 32 * 1024 * 1024;
/** FTS5's BM25 constants. */
const K1 = 1.2;
const B = 0.75;

const caches = new WeakMap<object, VersionedCache>();

function cacheOf(ctx: AppContext): VersionedCache {
  let cache = caches.get(ctx.sqlite);
  if (!cache) caches.set(ctx.sqlite, (cache = new VersionedCache(VECTOR_CACHE_BYTES)));
  return cache;
}

/** Tokens as FTS5's unicode61 tokenizer counts them: BM25 normalises by a chunk's length. */
const tokenCount = (text: string) => text.match(/[\p{L}\p{N}\p{Co}]+/gu)?.length ?? 0;

/** Chunks written by one statement: 50 rows of ~2 KiB each. */
const BATCH = 50;

function insertStatement(ctx: AppContext, rows: number) {
  const values = Array.from({ length: rows }, () => "(?, ?::bigint, ?, ?, ?::bytea, ?, ?::integer, ?::bytea)").join(", ");
  return ctx.sqlite.prepare(
    `WITH input (id, position, heading, text, embedding, words, length, code) AS (VALUES ${values}),
     chunk AS (INSERT INTO knowledge_chunks (id, workspace_id, knowledge_base_id, source_id, position, heading, text, embedding)
               SELECT id, ?, ?, ?, position, heading, text, embedding FROM input RETURNING rowid, id)
     INSERT INTO knowledge_pg_search (rowid, knowledge_base_id, words, length, code)
     SELECT chunk.rowid, ?, to_tsvector('parley_search', input.words), input.length, input.code FROM chunk JOIN input USING (id)`,
  );
}

/** rowids as one array parameter: the statement's text stays the same whatever their number. */
const rowidArray = (rowids: number[]) => `{${rowids.map((r) => Math.trunc(r)).join(",")}}`;

function matrix(ctx: AppContext, kb: KnowledgeBaseInfo): VectorMatrix {
  return cacheOf(ctx).get(
    `${kb.id}:matrix`,
    kb.index_version,
    () => VectorMatrix.fromRows(ctx.sqlite.prepare("SELECT rowid, embedding FROM knowledge_chunks WHERE knowledge_base_id = ? AND embedding IS NOT NULL").raw().all(kb.id) as [number, Uint8Array][], kb.dimension!),
    (m) => m.bytes,
  );
}

function codes(ctx: AppContext, kb: KnowledgeBaseInfo): BinaryCodeIndex {
  return cacheOf(ctx).get(
    `${kb.id}:codes`,
    kb.index_version,
    () => BinaryCodeIndex.fromRows(ctx.sqlite.prepare("SELECT rowid, code FROM knowledge_pg_search WHERE knowledge_base_id = ?").raw().all(kb.id) as [number, Uint8Array][], kb.dimension!, kb.index_version),
    (index) => index.bytes,
  );
}

/** BM25's collection figures for a base: its chunk count and mean length. */
function wordStats(ctx: AppContext, kb: KnowledgeBaseInfo): { count: number; meanLength: number } {
  return cacheOf(ctx).get(
    `${kb.id}:words`,
    kb.index_version,
    () => {
      const row = ctx.sqlite.prepare("SELECT count(*) AS count, avg(length) AS mean FROM knowledge_pg_search WHERE knowledge_base_id = ?").get(kb.id) as { count: number; mean: number | null };
      return { count: row.count, meanLength: row.mean || 1 };
    },
    () => 64,
  );
}

export const postgresSearchStore: SearchStore = {
  insert(ctx, target, chunks) {
    // Chunks go BATCH to a statement (the rest one by one, so two statement texts in all): each row,
    // then its words and code under the rowid the row was given.
    for (let at = 0; at < chunks.length; ) {
      const size = chunks.length - at >= BATCH ? BATCH : 1;
      const params: unknown[] = [];
      for (const chunk of chunks.slice(at, at + size)) {
        const words = indexedText(chunk);
        params.push(newId("chk"), chunk.position, chunk.heading, chunk.text, vectorBytes(chunk.vector), words, tokenCount(words), binaryCode(chunk.vector));
      }
      insertStatement(ctx, size).run(...params, target.workspaceId, target.knowledgeBaseId, target.sourceId, target.knowledgeBaseId);
      at += size;
    }
  },

  remove(ctx, column, id) {
    // Words and codes go with their rows (ON DELETE CASCADE).
    const gone = ctx.sqlite
      .prepare(`WITH gone AS (DELETE FROM knowledge_chunks WHERE ${column} = ? RETURNING knowledge_base_id) SELECT count(*) AS count, min(knowledge_base_id) AS kb FROM gone`)
      .get(id) as { count: number; kb: string | null };
    return gone.count === 0 ? null : { count: gone.count, knowledgeBaseId: gone.kb! };
  },

  exactLimit: (dimension) => Math.floor(EXACT_MATRIX_BYTES / (dimension * 4)),

  nearest(ctx, kb, query, count, twoStage) {
    if (!twoStage) return matrix(ctx, kb).nearest(query, count);
    const candidates = codes(ctx, kb).candidates(query, twoStage.candidates);
    if (candidates.length === 0) return [];
    const rows = ctx.sqlite.prepare("SELECT rowid, embedding FROM knowledge_chunks WHERE rowid = ANY(?::bigint[])").raw().all(rowidArray(candidates)) as [number, Uint8Array][];
    return nearestOf(rows, query, count);
  },

  keyword(ctx, kb, terms, count) {
    const stats = wordStats(ctx, kb);
    // Each matching chunk's term frequencies: its tsvector cut down to the asked lexemes (setweight
    // marks them, ts_filter keeps them), then BM25 summed over the terms, with FTS5's idf floor.
    // avg(x) * count(*) is the sum: the shared SQL translation reads sum() as money (bigint).
    const rows = ctx.sqlite
      .prepare(
        `WITH hits AS (
           SELECT w.rowid, w.length, t.lexeme, cardinality(t.positions) AS tf
           FROM knowledge_pg_search w, LATERAL unnest(ts_filter(setweight(w.words, 'A', tsvector_to_array(to_tsvector('parley_search', ?))), '{a}')) t
           WHERE w.knowledge_base_id = ? AND w.words @@ to_tsquery('parley_search', ?)
         ), df AS (SELECT lexeme, count(*) AS n FROM hits GROUP BY lexeme),
         scored AS (
           SELECT h.rowid, greatest(ln((?::float8 - df.n + 0.5) / (df.n + 0.5)), 1e-6) * h.tf * ${K1 + 1} / (h.tf + ${K1} * (${1 - B} + ${B} * h.length / ?::float8)) AS score
           FROM hits h JOIN df USING (lexeme)
         )
         SELECT rowid FROM scored GROUP BY rowid ORDER BY avg(score) * count(*) DESC, rowid LIMIT ?`,
      )
      .raw()
      .all(terms.join(" "), kb.id, terms.join(" | "), stats.count, stats.meanLength, count) as [number][];
    return rows.map(([rowid]) => rowid);
  },

  rows(ctx, workspaceId, rowids, query) {
    const rows = ctx.sqlite
      .prepare(
        `SELECT c.rowid, c.id, c.source_id, c.position, c.heading, c.text, s.name AS source_name, c.embedding
         FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_id WHERE c.rowid = ANY(?::bigint[]) AND c.workspace_id = ?`,
      )
      .all(rowidArray(rowids), workspaceId) as (Omit<ChunkRow, "distance"> & { embedding: Uint8Array | null })[];
    return rows.map(({ embedding, ...row }) => ({ ...row, distance: embedding ? cosineDistance(query, vectorOf(embedding, query.length)) : 1 }));
  },

};

/**
 * Search rows for chunks that have none: `parley db copy` brings SQLite's chunk rows (text and float
 * vectors) but not its FTS5 and vec0 tables. Into a database no Parley serves yet, so no loaded
 * structure needs index_version to move (and the copied rows stay as they were). How many it indexed.
 */
export function indexCopiedChunks(db: Sqlite): number {
  const unindexed = db.prepare(
    `SELECT c.rowid, c.knowledge_base_id, c.heading, c.text, c.embedding FROM knowledge_chunks c LEFT JOIN knowledge_pg_search w ON w.rowid = c.rowid
     WHERE w.rowid IS NULL AND c.embedding IS NOT NULL ORDER BY c.rowid LIMIT 500`,
  );
  const insert = db.prepare("INSERT INTO knowledge_pg_search (rowid, knowledge_base_id, words, length, code) VALUES (?, ?, to_tsvector('parley_search', ?), ?, ?)");
  let done = 0;
  for (;;) {
    const rows = unindexed.all() as { rowid: number; knowledge_base_id: string; heading: string | null; text: string; embedding: Uint8Array }[];
    if (rows.length === 0) return done;
    db.transaction(() => {
      for (const row of rows) {
        const words = indexedText(row);
        insert.run(row.rowid, row.knowledge_base_id, words, tokenCount(words), binaryCode(vectorOf(row.embedding, row.embedding.byteLength / 4)));
      }
    })();
    done += rows.length;
  }
}
