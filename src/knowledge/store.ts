import type { AppContext } from "../core/context.ts";
import { newId } from "../lib/ids.ts";

// Chunk rows, their vectors (a sqlite-vec vec0 table per dimension, partitioned by knowledge base so a
// query only scans its own base) and their words (one FTS5 table), all sharing the chunk's rowid.

const ensuredDimensions = new Map<object, Set<number>>();

export function vectorTable(dimension: number): string {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 8192) throw new Error(`unsupported embedding dimension ${dimension}`);
  return `knowledge_vectors_${dimension}`;
}

/** vec0 tables are created on first use: each embedder dimension gets its own. */
export function ensureVectorTable(ctx: AppContext, dimension: number): string {
  const table = vectorTable(dimension);
  let known = ensuredDimensions.get(ctx.sqlite);
  if (!known) ensuredDimensions.set(ctx.sqlite, (known = new Set()));
  if (!known.has(dimension)) {
    ctx.sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING vec0(knowledge_base_id text partition key, embedding float[${dimension}] distance_metric=cosine)`);
    known.add(dimension);
  }
  return table;
}

export interface NewChunk {
  position: number;
  heading: string | null;
  text: string;
  vector: Float32Array;
}

/**
 * Replaces a source's chunks in ONE transaction: a query sees either the old index of the source
 * or the new one, never a mix or a gap.
 */
export function replaceSourceChunks(ctx: AppContext, target: { workspaceId: string; knowledgeBaseId: string; sourceId: string; dimension: number }, chunks: NewChunk[]): void {
  const table = ensureVectorTable(ctx, target.dimension);
  const insertChunk = ctx.sqlite.prepare(
    "INSERT INTO knowledge_chunks (id, workspace_id, knowledge_base_id, source_id, position, heading, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertVector = ctx.sqlite.prepare(`INSERT INTO ${table} (rowid, knowledge_base_id, embedding) VALUES (?, ?, ?)`);
  const insertWords = ctx.sqlite.prepare("INSERT INTO knowledge_chunks_fts (rowid, text, knowledge_base_id) VALUES (?, ?, ?)");
  ctx.sqlite.transaction(() => {
    deleteChunks(ctx, "source_id", target.sourceId);
    for (const chunk of chunks) {
      const { lastInsertRowid } = insertChunk.run(newId("chk"), target.workspaceId, target.knowledgeBaseId, target.sourceId, chunk.position, chunk.heading, chunk.text);
      insertVector.run(BigInt(lastInsertRowid), target.knowledgeBaseId, Buffer.from(chunk.vector.buffer, chunk.vector.byteOffset, chunk.vector.byteLength));
      insertWords.run(BigInt(lastInsertRowid), chunk.heading ? `${chunk.heading}\n${chunk.text}` : chunk.text, target.knowledgeBaseId);
    }
  })();
}

/** Removes chunks (and their vectors and words) of a source or a whole knowledge base. */
export function deleteChunks(ctx: AppContext, column: "source_id" | "knowledge_base_id", id: string): number {
  const rowids = (ctx.sqlite.prepare(`SELECT rowid FROM knowledge_chunks WHERE ${column} = ?`).all(id) as { rowid: number }[]).map((r) => r.rowid);
  if (rowids.length === 0) return 0;
  const tables = (ctx.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'knowledge_vectors_%' AND name GLOB 'knowledge_vectors_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as { name: string }[]).map((r) => r.name);
  ctx.sqlite.transaction(() => {
    for (const batch of chunked(rowids, 500)) {
      const marks = batch.map(() => "?").join(",");
      for (const table of tables) ctx.sqlite.prepare(`DELETE FROM ${table} WHERE rowid IN (${marks})`).run(...batch);
      ctx.sqlite.prepare(`DELETE FROM knowledge_chunks_fts WHERE rowid IN (${marks})`).run(...batch);
      ctx.sqlite.prepare(`DELETE FROM knowledge_chunks WHERE rowid IN (${marks})`).run(...batch);
    }
  })();
  return rowids.length;
}

function chunked<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
