import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { knowledgeBases, knowledgeSources } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound, payloadTooLarge } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { checkUrlShape, OutboundRefused } from "../../net/outbound.ts";
import { DEFAULT_CHUNK_OPTIONS, validateChunkOptions } from "../../knowledge/chunking/index.ts";
import { deleteChunks } from "../../knowledge/store.ts";
import { enqueueIndexing, MAX_FILE_BYTES } from "../../knowledge/indexing.ts";
import { UnsupportedFormat, detectFormat } from "../../knowledge/extract/index.ts";
import { findProvider } from "../../providers/store.ts";
import type { SourceCounts } from "./models.ts";
import * as repo from "./repo.ts";

export const DEFAULT_CHUNKING = DEFAULT_CHUNK_OPTIONS;

type EmbedderInput = { provider_id: string; model?: string | null };

function checkEmbedder(ctx: AppContext, workspaceId: string, embedder: EmbedderInput): void {
  if (embedder.provider_id === "builtin") return;
  const row = findProvider(ctx.db, workspaceId, embedder.provider_id);
  if (!row) throw invalid("embedder.provider_id", `no provider connection ${embedder.provider_id} in this workspace`);
  if (row.kind !== "openai-compatible") throw invalid("embedder.provider_id", `a ${row.kind} connection has no embeddings; use an openai-compatible one or builtin`);
  if (!embedder.model) throw invalid("embedder.model", "is required for a remote embedder");
}

function checkChunking(chunking: { size: number; overlap: number }): void {
  const problems = validateChunkOptions(chunking, { size: "chunking.size", overlap: "chunking.overlap" });
  if (problems.length) throw new ApiError("validation_failed", problems.map((p) => `${p.field}: ${p.message}`).join("; "), { errors: problems });
}

export function createKnowledgeBase(ctx: AppContext, workspaceId: string, input: { name: string; description?: string; embedder?: EmbedderInput; chunking?: { size: number; overlap: number } }) {
  const embedder = input.embedder ?? { provider_id: "builtin" };
  checkEmbedder(ctx, workspaceId, embedder);
  const chunking = input.chunking ?? DEFAULT_CHUNKING;
  checkChunking(chunking);
  const now = ctx.clock.now();
  const row: repo.KnowledgeBaseRow = {
    id: newId("kb"),
    workspaceId,
    name: input.name.trim(),
    description: input.description ?? null,
    embedderProvider: embedder.provider_id,
    embedderModel: embedder.provider_id === "builtin" ? null : (embedder.model ?? null),
    embedderFingerprint: null,
    dimension: null,
    chunkCount: 0,
    indexVersion: 0,
    chunkSize: chunking.size,
    chunkOverlap: chunking.overlap,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(knowledgeBases).values(row).run();
  return row;
}

export function getKnowledgeBase(ctx: AppContext, workspaceId: string, id: string): repo.KnowledgeBaseRow {
  const row = repo.findKnowledgeBase(ctx.db, workspaceId, id);
  if (!row) throw notFound("knowledge base");
  return row;
}

export function sourceCounts(ctx: AppContext, knowledgeBaseId: string): SourceCounts {
  const byStatus = ctx.db
    .select({ status: knowledgeSources.status, n: sql<number>`count(*)` })
    .from(knowledgeSources)
    .where(eq(knowledgeSources.knowledgeBaseId, knowledgeBaseId))
    .groupBy(knowledgeSources.status)
    .all();
  const count = (status: string) => byStatus.find((r) => r.status === status)?.n ?? 0;
  const chunks = ctx.db.select({ n: knowledgeBases.chunkCount }).from(knowledgeBases).where(eq(knowledgeBases.id, knowledgeBaseId)).get()?.n ?? 0;
  return { sources: byStatus.reduce((sum, r) => sum + r.n, 0), ready: count("ready"), pending: count("pending"), indexing: count("indexing"), failed: count("failed"), chunks };
}

/**
 * Renaming is immediate. A new embedder or chunking invalidates every vector: the old index is
 * dropped and every source is indexed again (never a mix of two vector spaces).
 */
export function updateKnowledgeBase(
  ctx: AppContext,
  workspaceId: string,
  id: string,
  input: { name?: string; description?: string | null; embedder?: EmbedderInput; chunking?: { size: number; overlap: number } },
) {
  const current = getKnowledgeBase(ctx, workspaceId, id);
  const changes: Partial<repo.KnowledgeBaseRow> = { updatedAt: ctx.clock.now() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.description !== undefined) changes.description = input.description;
  let reindex = false;
  if (input.embedder) {
    checkEmbedder(ctx, workspaceId, input.embedder);
    const model = input.embedder.provider_id === "builtin" ? null : (input.embedder.model ?? null);
    if (input.embedder.provider_id !== current.embedderProvider || model !== current.embedderModel) {
      Object.assign(changes, { embedderProvider: input.embedder.provider_id, embedderModel: model, embedderFingerprint: null, dimension: null });
      reindex = true;
    }
  }
  if (input.chunking) {
    checkChunking(input.chunking);
    if (input.chunking.size !== current.chunkSize || input.chunking.overlap !== current.chunkOverlap) {
      Object.assign(changes, { chunkSize: input.chunking.size, chunkOverlap: input.chunking.overlap });
      reindex = true;
    }
  }
  ctx.sqlite.transaction(() => {
    ctx.db.update(knowledgeBases).set(changes).where(and(eq(knowledgeBases.workspaceId, workspaceId), eq(knowledgeBases.id, id))).run();
    if (reindex) {
      if (changes.embedderProvider !== undefined) deleteChunks(ctx, "knowledge_base_id", id);
      const sources = ctx.db.select().from(knowledgeSources).where(eq(knowledgeSources.knowledgeBaseId, id)).all();
      ctx.db.update(knowledgeSources).set({ status: "pending", chunksDone: 0, error: null }).where(eq(knowledgeSources.knowledgeBaseId, id)).run();
      for (const source of sources) enqueueIndexing(ctx, source);
    }
  })();
  return getKnowledgeBase(ctx, workspaceId, id);
}

export function deleteKnowledgeBase(ctx: AppContext, workspaceId: string, id: string, agentsUsing: (workspaceId: string, id: string) => { id: string; name: string }[]): void {
  getKnowledgeBase(ctx, workspaceId, id);
  const users = agentsUsing(workspaceId, id);
  if (users.length) throw new ApiError("resource_in_use", `the knowledge base is used by ${users.map((a) => `${a.name} (${a.id})`).join(", ")}; remove it from those agents first`);
  ctx.sqlite.transaction(() => {
    deleteChunks(ctx, "knowledge_base_id", id);
    ctx.db.delete(knowledgeBases).where(and(eq(knowledgeBases.workspaceId, workspaceId), eq(knowledgeBases.id, id))).run();
  })();
}

export type SourceInput =
  | { type: "text"; name: string; text: string }
  | { type: "url"; url: string; name?: string }
  | { file: File; name?: string };

/** Stores the source and queues its indexing; the answer comes back at once with `status: pending`. */
export async function addSource(ctx: AppContext, workspaceId: string, knowledgeBaseId: string, input: SourceInput): Promise<repo.SourceRow> {
  getKnowledgeBase(ctx, workspaceId, knowledgeBaseId);
  const now = ctx.clock.now();
  const base = { id: newId("src"), workspaceId, knowledgeBaseId, status: "pending" as const, chunksDone: 0, chunksTotal: 0, error: null, indexedAt: null, createdAt: now, updatedAt: now };
  let row: repo.SourceRow;
  if ("file" in input) {
    const file = input.file;
    if (file.size > MAX_FILE_BYTES) throw payloadTooLarge(MAX_FILE_BYTES, `files may be at most ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
    const bytes = new Uint8Array(await file.arrayBuffer());
    try {
      detectFormat({ bytes, filename: file.name, contentType: file.type || undefined });
    } catch (error) {
      if (error instanceof UnsupportedFormat) throw new ApiError("unsupported_media_type", (error as Error).message);
      throw error;
    }
    row = { ...base, type: "file", name: input.name ?? file.name ?? "upload", url: null, contentType: file.type || null, sizeBytes: bytes.byteLength, content: Buffer.from(bytes).toString("base64") };
  } else if (input.type === "url") {
    if (ctx.config.offline) throw invalid("url", "this instance is configured offline and cannot fetch URLs");
    let url: string;
    try {
      url = checkUrlShape(input.url, { allowPrivate: ctx.config.allowPrivateUrls }).toString();
    } catch (error) {
      if (error instanceof OutboundRefused) throw invalid("url", error.message);
      throw error;
    }
    row = { ...base, type: "url", name: input.name ?? url, url, contentType: null, sizeBytes: null, content: null };
  } else {
    row = { ...base, type: "text", name: input.name, url: null, contentType: "text/plain", sizeBytes: Buffer.byteLength(input.text), content: input.text };
  }
  ctx.sqlite.transaction(() => {
    ctx.db.insert(knowledgeSources).values(row).run();
    enqueueIndexing(ctx, row);
  })();
  return row;
}

export function getSource(ctx: AppContext, workspaceId: string, knowledgeBaseId: string, id: string): repo.SourceRow {
  getKnowledgeBase(ctx, workspaceId, knowledgeBaseId);
  const row = repo.findSource(ctx.db, workspaceId, knowledgeBaseId, id);
  if (!row) throw notFound("source");
  return row;
}

/** Its chunks go in the same transaction: queries see the source whole or not at all. */
export function deleteSource(ctx: AppContext, workspaceId: string, knowledgeBaseId: string, id: string): void {
  getSource(ctx, workspaceId, knowledgeBaseId, id);
  ctx.sqlite.transaction(() => {
    deleteChunks(ctx, "source_id", id);
    ctx.db.delete(knowledgeSources).where(and(eq(knowledgeSources.workspaceId, workspaceId), eq(knowledgeSources.id, id))).run();
  })();
}

/** The current chunks keep answering until the new ones replace them in one swap. */
export function reindexSource(ctx: AppContext, workspaceId: string, knowledgeBaseId: string, id: string): repo.SourceRow {
  const source = getSource(ctx, workspaceId, knowledgeBaseId, id);
  ctx.sqlite.transaction(() => {
    ctx.db.update(knowledgeSources).set({ status: "pending", chunksDone: 0, error: null, updatedAt: ctx.clock.now() }).where(eq(knowledgeSources.id, id)).run();
    enqueueIndexing(ctx, source);
  })();
  return getSource(ctx, workspaceId, knowledgeBaseId, id);
}
