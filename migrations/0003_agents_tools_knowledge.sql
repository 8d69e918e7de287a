CREATE TABLE `agent_chat_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_chat_sessions_expiry_idx` ON `agent_chat_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `agent_versions` (
	`agent_id` text NOT NULL,
	`version` integer NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`config` text NOT NULL,
	`created_by` text,
	`note` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_versions_pk` ON `agent_versions` (`agent_id`,`version`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`config` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agents_workspace_idx` ON `agents` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `tools` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`config` text NOT NULL,
	`secret` text NOT NULL,
	`headers` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tools_workspace_name_unique` ON `tools` (`workspace_id`,`name`);--> statement-breakpoint
CREATE INDEX `tools_workspace_idx` ON `tools` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `provider_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`base_url` text,
	`api_key` text,
	`settings` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `provider_connections_workspace_idx` ON `provider_connections` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `knowledge_bases` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`embedder_provider` text NOT NULL,
	`embedder_model` text,
	`embedder_fingerprint` text,
	`dimension` integer,
	`chunk_size` integer NOT NULL,
	`chunk_overlap` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `knowledge_bases_workspace_idx` ON `knowledge_bases` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `knowledge_chunks` (
	`rowid` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`knowledge_base_id` text NOT NULL,
	`source_id` text NOT NULL,
	`position` integer NOT NULL,
	`heading` text,
	`text` text NOT NULL,
	FOREIGN KEY (`knowledge_base_id`) REFERENCES `knowledge_bases`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `knowledge_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `knowledge_chunks_source_idx` ON `knowledge_chunks` (`source_id`,`position`);--> statement-breakpoint
CREATE INDEX `knowledge_chunks_kb_idx` ON `knowledge_chunks` (`knowledge_base_id`);--> statement-breakpoint
CREATE TABLE `knowledge_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`knowledge_base_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`url` text,
	`content_type` text,
	`size_bytes` integer,
	`content` text,
	`status` text NOT NULL,
	`chunks_done` integer DEFAULT 0 NOT NULL,
	`chunks_total` integer DEFAULT 0 NOT NULL,
	`error` text,
	`indexed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`knowledge_base_id`) REFERENCES `knowledge_bases`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `knowledge_sources_kb_idx` ON `knowledge_sources` (`knowledge_base_id`,`created_at`,`id`);--> statement-breakpoint
CREATE VIRTUAL TABLE `knowledge_chunks_fts` USING fts5(`text`, `knowledge_base_id` UNINDEXED, tokenize = 'porter unicode61');
