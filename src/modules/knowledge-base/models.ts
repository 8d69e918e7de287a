import { t } from "elysia";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import type { KnowledgeBaseRow, SourceRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const Embedder = t.Object(
  {
    provider_id: t.String({ description: "`builtin` (offline, inside Parley) or an openai-compatible connection `prv_…`" }),
    model: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()], { description: "Embedding model of a remote provider" })),
  },
  { additionalProperties: false },
);

const Chunking = t.Object(
  {
    size: t.Integer({ minimum: 50, maximum: 2000, description: "Target chunk size in tokens (≈ 4 characters each)" }),
    overlap: t.Integer({ minimum: 0, maximum: 999, description: "Tokens repeated from the previous chunk (less than half the size)" }),
  },
  { additionalProperties: false },
);

export const KnowledgeBaseCreate = t.Object(
  { name: t.String({ minLength: 1, maxLength: 100 }), description: t.Optional(t.String({ maxLength: 1000 })), embedder: t.Optional(Embedder), chunking: t.Optional(Chunking) },
  { additionalProperties: false },
);

export const KnowledgeBaseUpdate = t.Partial(
  t.Object({ name: t.String({ minLength: 1, maxLength: 100 }), description: t.Union([t.String({ maxLength: 1000 }), t.Null()]), embedder: Embedder, chunking: Chunking }),
  { additionalProperties: false, description: "Changing the embedder or chunking re-indexes every source" },
);

export const KnowledgeBase = t.Object({
  id: t.String({ description: "`kb_…`" }),
  object: t.Literal("knowledge_base"),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  embedder: t.Object({
    provider_id: t.String(),
    model: t.Union([t.String(), t.Null()]),
    dimension: t.Union([t.Integer(), t.Null()], { description: "Set by the first indexed source" }),
  }),
  chunking: Chunking,
  counts: t.Object({ sources: t.Integer(), ready: t.Integer(), pending: t.Integer(), indexing: t.Integer(), failed: t.Integer(), chunks: t.Integer() }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Source = t.Object({
  id: t.String({ description: "`src_…`" }),
  object: t.Literal("knowledge_source"),
  knowledge_base_id: t.String(),
  type: OneOf(["text", "file", "url"]),
  name: t.String(),
  url: t.Union([t.String(), t.Null()]),
  content_type: t.Union([t.String(), t.Null()]),
  size_bytes: t.Union([t.Integer(), t.Null()]),
  status: OneOf(["pending", "indexing", "ready", "failed"]),
  progress: t.Object({ chunks_done: t.Integer(), chunks_total: t.Integer() }),
  error: t.Union([t.String(), t.Null()]),
  indexed_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const SourceCreate = t.Union(
  [
    t.Object({ type: t.Literal("text"), name: t.String({ minLength: 1, maxLength: 200 }), text: t.String({ minLength: 1, maxLength: 1_000_000 }) }, { additionalProperties: false }),
    t.Object({ type: t.Literal("url"), url: t.String({ minLength: 1, maxLength: 2048 }), name: t.Optional(t.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false }),
    t.Object({ file: t.File({ description: "txt, md, html, csv or pdf; up to 20 MiB" }), name: t.Optional(t.String({ minLength: 1, maxLength: 200 })) }),
  ],
  { description: "JSON `{type: text}` or `{type: url}`, or multipart/form-data with a `file` part" },
);

export const Query = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 2000 }),
    top_k: t.Optional(t.Integer({ minimum: 1, maximum: 50, default: 5 })),
    min_score: t.Optional(t.Number({ minimum: 0, maximum: 1, description: "Drop results whose similarity is lower" })),
    mode: t.Optional(OneOf(["hybrid", "vector", "keyword"], { description: "hybrid (default) fuses vector and BM25 rankings" })),
  },
  { additionalProperties: false },
);

export const QueryResult = t.Object({
  data: t.Array(
    t.Object({
      chunk_id: t.String(),
      source_id: t.String(),
      source_name: t.String(),
      knowledge_base_id: t.String(),
      position: t.Integer({ description: "Chunk number within its source" }),
      heading: t.Union([t.String(), t.Null()]),
      text: t.String(),
      score: t.Number({ description: "Cosine similarity, 0–1" }),
      rank_score: t.Number({ description: "Reciprocal-rank-fusion score that ordered the results" }),
      matched_by: t.Array(OneOf(["vector", "keyword"])),
    }),
  ),
});

export type SourceCounts = { sources: number; ready: number; pending: number; indexing: number; failed: number; chunks: number };

export function knowledgeBaseJson(row: KnowledgeBaseRow, counts: SourceCounts) {
  return {
    id: row.id,
    object: "knowledge_base" as const,
    name: row.name,
    description: row.description,
    embedder: { provider_id: row.embedderProvider, model: row.embedderModel, dimension: row.dimension },
    chunking: { size: row.chunkSize, overlap: row.chunkOverlap },
    counts,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export function sourceJson(row: SourceRow) {
  return {
    id: row.id,
    object: "knowledge_source" as const,
    knowledge_base_id: row.knowledgeBaseId,
    type: row.type,
    name: row.name,
    url: row.url,
    content_type: row.contentType,
    size_bytes: row.sizeBytes,
    status: row.status,
    progress: { chunks_done: row.chunksDone, chunks_total: row.chunksTotal },
    error: row.error,
    indexed_at: toIso(row.indexedAt),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

nameSchemas({ KnowledgeBaseCreate, KnowledgeBaseUpdate, KnowledgeBase, KnowledgeSource: Source, KnowledgeSourceCreate: SourceCreate, KnowledgeQuery: Query, KnowledgeQueryResult: QueryResult });
