import type { AppContext } from "../core/context.ts";
import { newId } from "../lib/ids.ts";
import { binaryCodeIndex } from "./coarse-index.ts";
import { indexedText, type SearchStore, vectorBytes } from "./search-store.ts";

// SQLite: chunk rows (text and the float vector), and per embedding dimension two sqlite-vec vec0 tables
// partitioned by knowledge base: float vectors for exact search, binary codes for a fast first pass
// over large bases. Words go to one FTS5 table. All share the chunk's rowid.

const ensuredDimensions = new WeakMap<object, Set<number>>();

export function vectorTables(dimension: number): { exact: string; bits: string } {
  if (!Number.isInteger(dimension) || dimension < 8 || dimension > 8192 || dimension % 8 !== 0) throw new Error(`unsupported embedding dimension ${dimension}`);
  return { exact: `knowledge_vectors_${dimension}`, bits: `knowledge_vectors_${dimension}_bits` };
}

/** vec0 tables are created on first use: each embedder dimension gets its own pair. */
export function ensureVectorTables(ctx: AppContext, dimension: number): { exact: string; bits: string } {
  const tables = vectorTables(dimension);
  let known = ensuredDimensions.get(ctx.sqlite);
  if (!known) ensuredDimensions.set(ctx.sqlite, (known = new Set()));
  if (!known.has(dimension)) {
    // Large chunks make sqlite-vec's scans faster (measured: 256 → 4096 halves a 100k binary scan).
    ctx.sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${tables.exact} USING vec0(knowledge_base_id text partition key, embedding float[${dimension}] distance_metric=cosine, chunk_size=1024)`);
    ctx.sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${tables.bits} USING vec0(knowledge_base_id text partition key, embedding bit[${dimension}], chunk_size=4096)`);
    known.add(dimension);
  }
  return tables;
}

/** The question's terms as an FTS5 OR-query (quoted, so user text cannot inject FTS syntax). */
export function ftsQuery(terms: string[]): string {
  return terms.map((t) => `"${t}"`).join(" OR ");
}

export const sqliteSearchStore: SearchStore = {
  insert(ctx, target, chunks) {
    const tables = ensureVectorTables(ctx, target.dimension);
    const insertChunk = ctx.sqlite.prepare(
      "INSERT INTO knowledge_chunks (id, workspace_id, knowledge_base_id, source_id, position, heading, text, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const insertExact = ctx.sqlite.prepare(`INSERT INTO ${tables.exact} (rowid, knowledge_base_id, embedding) VALUES (?, ?, ?)`);
    const insertBits = ctx.sqlite.prepare(`INSERT INTO ${tables.bits} (rowid, knowledge_base_id, embedding) VALUES (?, ?, vec_quantize_binary(?))`);
    const insertWords = ctx.sqlite.prepare("INSERT INTO knowledge_chunks_fts (rowid, text, knowledge_base_id) VALUES (?, ?, ?)");
    for (const chunk of chunks) {
      const bytes = vectorBytes(chunk.vector);
      const { lastInsertRowid } = insertChunk.run(newId("chk"), target.workspaceId, target.knowledgeBaseId, target.sourceId, chunk.position, chunk.heading, chunk.text, bytes);
      const rowid = BigInt(lastInsertRowid);
      insertExact.run(rowid, target.knowledgeBaseId, bytes);
      insertBits.run(rowid, target.knowledgeBaseId, bytes);
      insertWords.run(rowid, indexedText(chunk), target.knowledgeBaseId);
    }
  },

  remove(ctx, column, id) {
    const rows = ctx.sqlite.prepare(`SELECT rowid, knowledge_base_id AS kb FROM knowledge_chunks WHERE ${column} = ?`).all(id) as { rowid: number; kb: string }[];
    if (rows.length === 0) return null;
    const tables = (ctx.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%vec0%' AND name GLOB 'knowledge_vectors_*'").all() as { name: string }[]).map((r) => r.name);
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500).map((r) => r.rowid);
      const marks = batch.map(() => "?").join(",");
      for (const table of tables) ctx.sqlite.prepare(`DELETE FROM ${table} WHERE rowid IN (${marks})`).run(...batch);
      ctx.sqlite.prepare(`DELETE FROM knowledge_chunks_fts WHERE rowid IN (${marks})`).run(...batch);
      ctx.sqlite.prepare(`DELETE FROM knowledge_chunks WHERE rowid IN (${marks})`).run(...batch);
    }
    return { count: rows.length, knowledgeBaseId: rows[0].kb };
  },

  exactLimit: () => Number.POSITIVE_INFINITY,

  // Small bases: sqlite-vec's exact scan of the float vectors. Large ones: the in-memory pass over
  // 1-bit codes for candidates, then exact distances for those only, read from the chunk rows.
  nearest(ctx, kb, query, count, twoStage) {
    const tables = ensureVectorTables(ctx, kb.dimension!);
    const queryBytes = vectorBytes(query);
    if (!twoStage) {
      return ctx.sqlite
        .prepare(`SELECT rowid, distance FROM ${tables.exact} WHERE embedding MATCH ? AND k = ? AND knowledge_base_id = ? ORDER BY distance`)
        .all(queryBytes, count, kb.id) as { rowid: number; distance: number }[];
    }
    const coarse = binaryCodeIndex(ctx, tables.bits, kb.id, kb.dimension!, kb.index_version).candidates(query, twoStage.candidates);
    if (coarse.length === 0) return [];
    return ctx.sqlite
      .prepare(`SELECT rowid, vec_distance_cosine(embedding, ?) AS distance FROM knowledge_chunks WHERE rowid IN (${coarse.join(",")}) ORDER BY distance LIMIT ?`)
      .all(queryBytes, count) as { rowid: number; distance: number }[];
  },

  keyword(ctx, kb, terms, count) {
    const rows = ctx.sqlite
      .prepare("SELECT rowid FROM knowledge_chunks_fts WHERE knowledge_chunks_fts MATCH ? AND knowledge_base_id = ? ORDER BY bm25(knowledge_chunks_fts) LIMIT ?")
      .all(ftsQuery(terms), kb.id, count) as { rowid: number }[];
    return rows.map((row) => row.rowid);
  },

  rows(ctx, workspaceId, rowids, query) {
    return ctx.sqlite
      .prepare(
        `SELECT c.rowid, c.id, c.source_id, c.position, c.heading, c.text, s.name AS source_name, vec_distance_cosine(c.embedding, ?) AS distance
         FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_id WHERE c.rowid IN (${rowids.map(() => "?").join(",")}) AND c.workspace_id = ?`,
      )
      .all(vectorBytes(query), ...rowids, workspaceId) as ReturnType<SearchStore["rows"]>;
  },
};
