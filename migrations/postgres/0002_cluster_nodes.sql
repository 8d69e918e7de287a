-- A cluster of nodes on one database (README: Running a cluster): the nodes and their heartbeats, the node
-- holding each call's media, sweeps claimed once per fire time, rate counters every node shares, and files
-- (recordings) in chunks so any node can serve them. The twin of SQLite's 0021_cluster_nodes.
CREATE TABLE "stored_files" (
  "path" text NOT NULL,
  "workspace_id" text,
  "content_type" text NOT NULL,
  "size" bigint NOT NULL,
  "chunk_bytes" bigint NOT NULL,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("path")
);
--> statement-breakpoint
CREATE TABLE "file_chunks" (
  "path" text NOT NULL REFERENCES "stored_files" ("path") ON DELETE CASCADE,
  "seq" bigint NOT NULL,
  "bytes" bytea NOT NULL,
  PRIMARY KEY ("path", "seq")
);
--> statement-breakpoint
CREATE TABLE "nodes" (
  "id" text NOT NULL,
  "name" text NOT NULL,
  "url" text,
  "version" text NOT NULL,
  "started_at" bigint NOT NULL,
  "heartbeat_at" bigint NOT NULL,
  "stopped_at" bigint,
  "lost_at" bigint,
  "lost_by" text,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE INDEX "nodes_live_idx" ON "nodes" ("heartbeat_at") WHERE stopped_at IS NULL AND lost_at IS NULL;
--> statement-breakpoint
CREATE TABLE "rate_counters" (
  "key" text NOT NULL,
  "window_start" bigint NOT NULL,
  "count" bigint NOT NULL,
  PRIMARY KEY ("key", "window_start")
);
--> statement-breakpoint
CREATE INDEX "rate_counters_window_idx" ON "rate_counters" ("window_start");
--> statement-breakpoint
CREATE TABLE "sweep_runs" (
  "name" text NOT NULL,
  "fired_at" bigint NOT NULL,
  "node_id" text NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("name")
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "node_id" text;
--> statement-breakpoint
CREATE INDEX "calls_node_live_idx" ON "calls" ("node_id") WHERE status IN ('ringing', 'in_progress');
