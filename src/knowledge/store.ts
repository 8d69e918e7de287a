import type { AppContext } from "../core/context.ts";
import { postgresSearchStore } from "./postgres-store.ts";
import type { ChunkTarget, NewChunk, SearchStore } from "./search-store.ts";
import { sqliteSearchStore } from "./sqlite-store.ts";

export type { NewChunk } from "./search-store.ts";
export { vectorBytes } from "./search-store.ts";

/** Where this instance keeps chunks' words and vectors: FTS5 and sqlite-vec, or PostgreSQL's own means. */
export function searchStore(ctx: AppContext): SearchStore {
  return ctx.dialect === "postgres" ? postgresSearchStore : sqliteSearchStore;
}

/**
 * Replaces a source's chunks in ONE transaction: a query sees either the old index of the source
 * or the new one, never a mix or a gap.
 */
export function replaceSourceChunks(ctx: AppContext, target: ChunkTarget, chunks: NewChunk[]): void {
  ctx.sqlite.transaction(() => {
    deleteChunks(ctx, "source_id", target.sourceId);
    searchStore(ctx).insert(ctx, target, chunks);
    ctx.sqlite.prepare("UPDATE knowledge_bases SET chunk_count = chunk_count + ?, index_version = index_version + 1 WHERE id = ?").run(chunks.length, target.knowledgeBaseId);
  })();
}

/** Removes chunks (with their vectors and words) of a source or a whole knowledge base. */
export function deleteChunks(ctx: AppContext, column: "source_id" | "knowledge_base_id", id: string): number {
  return ctx.sqlite.transaction(() => {
    const removed = searchStore(ctx).remove(ctx, column, id);
    if (!removed) return 0;
    ctx.sqlite.prepare("UPDATE knowledge_bases SET chunk_count = max(0, chunk_count - ?), index_version = index_version + 1 WHERE id = ?").run(removed.count, removed.knowledgeBaseId);
    return removed.count;
  })();
}
