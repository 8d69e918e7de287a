import { and, eq } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { knowledgeBases, knowledgeSources } from "../db/schema/index.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { JobDiscard, JobRetryLater } from "../jobs/outcomes.ts";
import type { RunningJob } from "../jobs/runner.ts";
import { OutboundRefused, sendOutbound } from "../net/outbound.ts";
import { ProviderError } from "../providers/connection.ts";
import { chunkText } from "./chunking/index.ts";
import { embedderFor } from "./embedders.ts";
import { extractText, UnreadableDocument, UnsupportedFormat } from "./extract/index.ts";
import { replaceSourceChunks } from "./store.ts";

export const INDEX_JOB = "knowledge.index";
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Texts per embedding request: small enough to report progress, large enough to batch well. */
const EMBED_BATCH = 32;

type SourceRow = typeof knowledgeSources.$inferSelect;

/** Queues (or re-queues) indexing of one source; at most one active job per source. */
export function enqueueIndexing(ctx: AppContext, source: { id: string; workspaceId: string; knowledgeBaseId: string }): void {
  enqueueJob(ctx, { type: INDEX_JOB, payload: { source_id: source.id }, uniqueKey: `${INDEX_JOB}:${source.id}`, workspaceId: source.workspaceId, maxAttempts: 5 });
}

/** extract → chunk → embed (with progress) → swap the source's chunks in one transaction. */
export async function indexSource(ctx: AppContext, job: RunningJob<{ source_id: string }>): Promise<void> {
  const source = ctx.db.select().from(knowledgeSources).where(eq(knowledgeSources.id, job.payload.source_id)).get();
  if (!source) return; // deleted meanwhile
  const kb = ctx.db.select().from(knowledgeBases).where(eq(knowledgeBases.id, source.knowledgeBaseId)).get();
  if (!kb) return;
  const update = (changes: Partial<SourceRow>) =>
    ctx.db.update(knowledgeSources).set({ ...changes, updatedAt: ctx.clock.now() }).where(eq(knowledgeSources.id, source.id)).run();
  update({ status: "indexing", chunksDone: 0, chunksTotal: 0, error: null });
  try {
    const text = await sourceText(ctx, source, job.signal);
    const pieces = chunkText(text, { size: kb.chunkSize, overlap: kb.chunkOverlap });
    if (pieces.length === 0) throw new JobDiscard("the source contains no text");
    update({ chunksTotal: pieces.length });
    const embedder = embedderFor(ctx, source.workspaceId, kb);
    const vectors: Float32Array[] = [];
    for (let i = 0; i < pieces.length; i += EMBED_BATCH) {
      const batch = pieces.slice(i, i + EMBED_BATCH);
      vectors.push(...(await embedder.embed(batch.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text)), job.signal)));
      update({ chunksDone: vectors.length });
    }
    const dimension = vectors[0].length;
    if (kb.dimension !== null && kb.dimension !== dimension) {
      throw new JobDiscard(`the embedder returned ${dimension}-dimensional vectors but this knowledge base holds ${kb.dimension}-dimensional ones`);
    }
    ctx.sqlite.transaction(() => {
      replaceSourceChunks(ctx, { workspaceId: source.workspaceId, knowledgeBaseId: kb.id, sourceId: source.id, dimension }, pieces.map((p, i) => ({ position: i, heading: p.heading ?? null, text: p.text, vector: vectors[i] })));
      if (kb.dimension === null) {
        ctx.db.update(knowledgeBases).set({ dimension, embedderFingerprint: embedder.fingerprint }).where(and(eq(knowledgeBases.id, kb.id))).run();
      }
      update({ status: "ready", indexedAt: ctx.clock.now(), error: null });
      job.complete();
    })();
  } catch (error) {
    // Refused by the URL rules (as a webhook delivery is): the policy answers the same on every retry.
    const message = error instanceof OutboundRefused ? `refused: ${error.message}` : error instanceof Error ? error.message : String(error);
    const permanent =
      error instanceof JobDiscard || error instanceof OutboundRefused || error instanceof UnsupportedFormat || error instanceof UnreadableDocument || job.attempt >= job.maxAttempts;
    // A source deleted mid-way makes its chunks' inserts fail: nothing to report then.
    if (!ctx.db.select({ id: knowledgeSources.id }).from(knowledgeSources).where(eq(knowledgeSources.id, source.id)).get()) return;
    update(permanent ? { status: "failed", error: message } : { status: "pending", error: `retrying: ${message}` });
    if (permanent) throw new JobDiscard(message);
    if (error instanceof ProviderError) throw new JobRetryLater(message, ctx.clock.now() + 30_000 * job.attempt);
    throw error;
  }
}

async function sourceText(ctx: AppContext, source: SourceRow, signal: AbortSignal): Promise<string> {
  if (source.type === "text") return source.content ?? "";
  if (source.type === "file") {
    const bytes = Buffer.from(source.content ?? "", "base64");
    return (await extractText({ bytes, filename: source.name, contentType: source.contentType ?? undefined })).text;
  }
  if (ctx.config.offline) throw new JobDiscard("this instance is configured offline: URL sources cannot be fetched");
  const response = await sendOutbound(
    source.url!,
    { method: "GET", headers: { accept: "text/html, text/plain, text/markdown, application/pdf, */*;q=0.5", "user-agent": `${ctx.brand.name}-Knowledge` }, timeoutMs: 30_000, maxResponseBytes: MAX_FILE_BYTES + 1, signal },
    { allowPrivate: ctx.config.allowPrivateUrls },
  );
  if (response.status !== 200) throw new JobDiscard(`fetching ${source.url} answered HTTP ${response.status}`);
  if (response.truncated) throw new JobDiscard(`${source.url} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
  const contentType = response.headers.get("content-type")?.split(";")[0] ?? undefined;
  const extracted = await extractText({ bytes: response.body, filename: new URL(source.url!).pathname, contentType });
  if (extracted.title && source.name === source.url) ctx.db.update(knowledgeSources).set({ name: extracted.title }).where(eq(knowledgeSources.id, source.id)).run();
  return extracted.text;
}
