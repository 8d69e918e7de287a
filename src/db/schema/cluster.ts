import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Every process that served this database: one row per start (a node that comes back is a new node,
 * so it resumes nothing the others took over). Live while it heartbeats; `stopped_at` on a clean
 * shutdown, `lost_at` when a survivor found it silent and ended its calls.
 */
export const nodes = sqliteTable("nodes", {
  id: text("id").primaryKey(),
  /** --node-name, or the host name: what an operator calls it. */
  name: text("name").notNull(),
  /** --node-url: where the other nodes reach it (controls of the calls it holds, their media URLs). */
  url: text("url"),
  version: text("version").notNull(),
  startedAt: integer("started_at").notNull(),
  heartbeatAt: integer("heartbeat_at").notNull(),
  stoppedAt: integer("stopped_at"),
  lostAt: integer("lost_at"),
  /** The node that found it lost and took over. */
  lostBy: text("lost_by"),
}, (t) => [index("nodes_live_idx").on(t.heartbeatAt).where(sql`stopped_at IS NULL AND lost_at IS NULL`)]);

/** A periodic sweep's last claimed fire time: the node whose UPDATE moves it forward runs that firing, once cluster-wide. */
export const sweepRuns = sqliteTable("sweep_runs", {
  name: text("name").primaryKey(),
  firedAt: integer("fired_at").notNull(),
  nodeId: text("node_id").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Requests counted per key and aligned minute, shared by every node (the per-user and per-IP limits). */
export const rateCounters = sqliteTable("rate_counters", {
  key: text("key").notNull(),
  windowStart: integer("window_start").notNull(),
  count: integer("count").notNull(),
}, (t) => [primaryKey({ columns: [t.key, t.windowStart] }), index("rate_counters_window_idx").on(t.windowStart)]);

/** Files every node reads (recordings), kept in the database in chunks when no shared --files-dir is given. */
export const storedFiles = sqliteTable("stored_files", {
  /** Relative to the files root, as on disk: recordings/<workspace>/<call>.wav. */
  path: text("path").primaryKey(),
  workspaceId: text("workspace_id"),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  chunkBytes: integer("chunk_bytes").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const fileChunks = sqliteTable("file_chunks", {
  path: text("path").notNull().references(() => storedFiles.path, { onDelete: "cascade" }),
  seq: integer("seq").notNull(),
  bytes: blob("bytes", { mode: "buffer" }).notNull(),
}, (t) => [primaryKey({ columns: [t.path, t.seq] })]);
