CREATE TABLE `campaign_contacts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`line` integer NOT NULL,
	`phone` text NOT NULL,
	`raw_phone` text NOT NULL,
	`variables` text NOT NULL,
	`timezone` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_call_id` text,
	`last_end_reason` text,
	`last_dialed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_contacts_phone_unique` ON `campaign_contacts` (`campaign_id`,`phone`);--> statement-breakpoint
CREATE INDEX `campaign_contacts_queue_idx` ON `campaign_contacts` (`campaign_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `campaign_contacts_call_idx` ON `campaign_contacts` (`last_call_id`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`agent_id` text NOT NULL,
	`from_number_id` text,
	`status` text NOT NULL,
	`concurrency` integer NOT NULL,
	`calls_per_minute` integer NOT NULL,
	`window` text,
	`retry` text NOT NULL,
	`default_country` text NOT NULL,
	`do_not_call` text NOT NULL,
	`columns` text NOT NULL,
	`start_at` integer,
	`end_at` integer,
	`next_dial_at` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`metadata` text NOT NULL,
	`simulation` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `campaigns_workspace_idx` ON `campaigns` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `campaigns_status_idx` ON `campaigns` (`status`);--> statement-breakpoint
CREATE TABLE `schedule_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`schedule_id` text NOT NULL,
	`run_at` integer NOT NULL,
	`status` text NOT NULL,
	`call_id` text,
	`detail` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`schedule_id`) REFERENCES `schedules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_runs_unique` ON `schedule_runs` (`schedule_id`,`run_at`);--> statement-breakpoint
CREATE TABLE `schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`to_number` text NOT NULL,
	`from_number` text,
	`variables` text NOT NULL,
	`metadata` text NOT NULL,
	`at` integer,
	`cron` text,
	`timezone` text,
	`status` text NOT NULL,
	`next_run_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `schedules_workspace_idx` ON `schedules` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `calls` ADD `campaign_id` text;--> statement-breakpoint
CREATE INDEX `calls_campaign_idx` ON `calls` (`campaign_id`);