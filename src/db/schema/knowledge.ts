import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

export const knowledgeBases = sqliteTable("knowledge_bases", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  description: text("description"),
  /** `builtin` or a provider connection id, plus the model for remote ones. */
  embedderProvider: text("embedder_provider").notNull(),
  embedderModel: text("embedder_model"),
  /** Which embedder and dimension built the stored vectors: a change means a full reindex. */
  embedderFingerprint: text("embedder_fingerprint"),
  dimension: integer("dimension"),
  /** Chunks indexed (kept with every swap): picks exact or two-stage vector search without counting. */
  chunkCount: integer("chunk_count").notNull().default(0),
  /** Bumped by every change to the stored vectors: in-memory search structures reload when it moves. */
  indexVersion: integer("index_version").notNull().default(0),
  chunkSize: integer("chunk_size").notNull(),
  chunkOverlap: integer("chunk_overlap").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("knowledge_bases_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);

export const knowledgeSources = sqliteTable("knowledge_sources", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull(),
  knowledgeBaseId: text("knowledge_base_id").notNull().references(() => knowledgeBases.id, { onDelete: "cascade" }),
  type: text("type", { enum: ["text", "file", "url"] }).notNull(),
  name: text("name").notNull(),
  url: text("url"),
  contentType: text("content_type"),
  sizeBytes: integer("size_bytes"),
  /** The original text or file bytes (base64 for files), kept so a reindex needs no re-upload. */
  content: text("content"),
  status: text("status", { enum: ["pending", "indexing", "ready", "failed"] }).notNull(),
  chunksDone: integer("chunks_done").notNull().default(0),
  chunksTotal: integer("chunks_total").notNull().default(0),
  error: text("error"),
  indexedAt: integer("indexed_at"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("knowledge_sources_kb_idx").on(t.knowledgeBaseId, t.createdAt, t.id)]);

/** Chunk text; vectors live in a vec0 table per dimension and words in an FTS5 table, both keyed by rowid. */
export const knowledgeChunks = sqliteTable("knowledge_chunks", {
  rowid: integer("rowid").primaryKey({ autoIncrement: true }),
  id: text("id").notNull(),
  workspaceId: text("workspace_id").notNull(),
  knowledgeBaseId: text("knowledge_base_id").notNull().references(() => knowledgeBases.id, { onDelete: "cascade" }),
  sourceId: text("source_id").notNull().references(() => knowledgeSources.id, { onDelete: "cascade" }),
  position: integer("position").notNull(),
  heading: text("heading"),
  text: text("text").notNull(),
  /** float32 vector: exact re-scoring reads it by rowid (vec0 tables are slow at point lookups). */
  embedding: blob("embedding", { mode: "buffer" }),
}, (t) => [index("knowledge_chunks_source_idx").on(t.sourceId, t.position), index("knowledge_chunks_kb_idx").on(t.knowledgeBaseId)]);
