import type { AppContext } from "../core/context.ts";
import { newId } from "../lib/ids.ts";

// Chunk rows (text and the float vector), and per embedding dimension two sqlite-vec vec0 tables
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

export interface NewChunk {
  position: number;
  heading: string | null;
  text: string;
  vector: Float32Array;
}

export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * Replaces a source's chunks in ONE transaction: a query sees either the old index of the source
 * or the new one, never a mix or a gap.
 */
export function replaceSourceChunks(ctx: AppContext, target: { workspaceId: string; knowledgeBaseId: string; sourceId: string; dimension: number }, chunks: NewChunk[]): void {
  const tables = ensureVectorTables(ctx, target.dimension);
  const insertChunk = ctx.sqlite.prepare(
    "INSERT INTO knowledge_chunks (id, workspace_id, knowledge_base_id, source_id, position, heading, text, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertExact = ctx.sqlite.prepare(`INSERT INTO ${tables.exact} (rowid, knowledge_base_id, embedding) VALUES (?, ?, ?)`);
  const insertBits = ctx.sqlite.prepare(`INSERT INTO ${tables.bits} (rowid, knowledge_base_id, embedding) VALUES (?, ?, vec_quantize_binary(?))`);
  const insertWords = ctx.sqlite.prepare("INSERT INTO knowledge_chunks_fts (rowid, text, knowledge_base_id) VALUES (?, ?, ?)");
  ctx.sqlite.transaction(() => {
    deleteChunks(ctx, "source_id", target.sourceId);
    for (const chunk of chunks) {
      const bytes = vectorBytes(chunk.vector);
      const { lastInsertRowid } = insertChunk.run(newId("chk"), target.workspaceId, target.knowledgeBaseId, target.sourceId, chunk.position, chunk.heading, chunk.text, bytes);
      const rowid = BigInt(lastInsertRowid);
      insertExact.run(rowid, target.knowledgeBaseId, bytes);
      insertBits.run(rowid, target.knowledgeBaseId, bytes);
      insertWords.run(rowid, chunk.heading ? `${chunk.heading}\n${chunk.text}` : chunk.text, target.knowledgeBaseId);
    }
    ctx.sqlite.prepare("UPDATE knowledge_bases SET chunk_count = chunk_count + ?, index_version = index_version + 1 WHERE id = ?").run(chunks.length, target.knowledgeBaseId);
  })();
}

/** Removes chunks (with their vectors and words) of a source or a whole knowledge base. */
export function deleteChunks(ctx: AppContext, column: "source_id" | "knowledge_base_id", id: string): number {
  const rows = ctx.sqlite.prepare(`SELECT rowid, knowledge_base_id AS kb FROM knowledge_chunks WHERE ${column} = ?`).all(id) as { rowid: number; kb: string }[];
  if (rows.length === 0) return 0;
  const tables = (ctx.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%vec0%' AND name GLOB 'knowledge_vectors_*'").all() as { name: string }[]).map((r) => r.name);
  ctx.sqlite.transaction(() => {
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500).map((r) => r.rowid);
      const marks = batch.map(() => "?").join(",");
      for (const table of tables) ctx.sqlite.prepare(`DELETE FROM ${table} WHERE rowid IN (${marks})`).run(...batch);
      ctx.sqlite.prepare(`DELETE FROM knowledge_chunks_fts WHERE rowid IN (${marks})`).run(...batch);
      ctx.sqlite.prepare(`DELETE FROM knowledge_chunks WHERE rowid IN (${marks})`).run(...batch);
    }
    ctx.sqlite.prepare("UPDATE knowledge_bases SET chunk_count = max(0, chunk_count - ?), index_version = index_version + 1 WHERE id = ?").run(rows.length, rows[0].kb);
  })();
  return rows.length;
}
