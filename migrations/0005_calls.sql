CREATE TABLE `call_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`call_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`offset_ms` integer NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`call_id`) REFERENCES `calls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `call_events_call_idx` ON `call_events` (`call_id`,`id`);--> statement-breakpoint
CREATE TABLE `calls` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`agent_version` integer NOT NULL,
	`direction` text NOT NULL,
	`from_number` text,
	`to_number` text,
	`phone_number_id` text,
	`carrier` text NOT NULL,
	`status` text NOT NULL,
	`end_reason` text,
	`variables` text NOT NULL,
	`metadata` text NOT NULL,
	`carrier_options` text,
	`transcript` text,
	`extracted` text,
	`summary` text,
	`transferred_to` text,
	`recording_path` text,
	`erased_at` integer,
	`created_at` integer NOT NULL,
	`ringing_at` integer,
	`answered_at` integer,
	`ended_at` integer,
	`duration_ms` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `calls_workspace_idx` ON `calls` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `calls_agent_idx` ON `calls` (`workspace_id`,`agent_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `calls_status_idx` ON `calls` (`status`);--> statement-breakpoint
CREATE TABLE `phone_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`number` text NOT NULL,
	`carrier` text NOT NULL,
	`label` text,
	`agent_id` text,
	`inbound` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `phone_numbers_number_unique` ON `phone_numbers` (`number`);--> statement-breakpoint
CREATE INDEX `phone_numbers_workspace_idx` ON `phone_numbers` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `phone_numbers_agent_idx` ON `phone_numbers` (`agent_id`);