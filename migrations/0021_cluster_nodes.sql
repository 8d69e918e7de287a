-- A cluster of nodes on one database (README: Running a cluster): the nodes and their heartbeats, the node
-- holding each call's media, sweeps claimed once per fire time, rate counters every node shares, and files
-- (recordings) in chunks so any node can serve them.
CREATE TABLE `file_chunks` (
	`path` text NOT NULL,
	`seq` integer NOT NULL,
	`bytes` blob NOT NULL,
	PRIMARY KEY(`path`, `seq`),
	FOREIGN KEY (`path`) REFERENCES `stored_files`(`path`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text,
	`version` text NOT NULL,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`stopped_at` integer,
	`lost_at` integer,
	`lost_by` text
);
--> statement-breakpoint
CREATE INDEX `nodes_live_idx` ON `nodes` (`heartbeat_at`) WHERE stopped_at IS NULL AND lost_at IS NULL;--> statement-breakpoint
CREATE TABLE `rate_counters` (
	`key` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`key`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_counters_window_idx` ON `rate_counters` (`window_start`);--> statement-breakpoint
CREATE TABLE `stored_files` (
	`path` text PRIMARY KEY NOT NULL,
	`workspace_id` text,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`chunk_bytes` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sweep_runs` (
	`name` text PRIMARY KEY NOT NULL,
	`fired_at` integer NOT NULL,
	`node_id` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `node_id` text;--> statement-breakpoint
CREATE INDEX `calls_node_live_idx` ON `calls` (`node_id`) WHERE status IN ('ringing', 'in_progress');