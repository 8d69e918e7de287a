CREATE TABLE `ledger_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`amount` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`cause` text NOT NULL,
	`category` text,
	`ref_type` text,
	`ref_id` text,
	`quantity` integer,
	`agent_id` text,
	`note` text,
	`created_by` text,
	`dedupe` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ledger_workspace_idx` ON `ledger_entries` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_dedupe_unique` ON `ledger_entries` (`workspace_id`,`dedupe`);--> statement-breakpoint
CREATE INDEX `ledger_ref_idx` ON `ledger_entries` (`ref_type`,`ref_id`);--> statement-breakpoint
CREATE TABLE `price_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`currency` text NOT NULL,
	`prices` text NOT NULL,
	`effective_at` integer NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `price_lists_effective_idx` ON `price_lists` (`effective_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `wallets` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`balance` integer NOT NULL,
	`auto_recharge_enabled` integer DEFAULT false NOT NULL,
	`auto_recharge_threshold` integer,
	`auto_recharge_amount` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `client_events` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`properties` text,
	`anonymous_id` text,
	`url` text,
	`occurred_at` integer NOT NULL,
	`visitor` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `client_events_received_idx` ON `client_events` (`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `client_events_name_idx` ON `client_events` (`name`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `contact_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`company` text,
	`message` text NOT NULL,
	`visitor` text NOT NULL,
	`user_agent` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contact_messages_created_idx` ON `contact_messages` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contact_messages_visitor_idx` ON `contact_messages` (`visitor`,`created_at`);--> statement-breakpoint
CREATE TABLE `demo_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`number` text NOT NULL,
	`call_id` text,
	`visitor` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `demo_calls_number_idx` ON `demo_calls` (`number`,`created_at`);--> statement-breakpoint
CREATE INDEX `demo_calls_visitor_idx` ON `demo_calls` (`visitor`,`created_at`);--> statement-breakpoint
CREATE TABLE `newsletter_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`status` text NOT NULL,
	`token_hash` text,
	`source` text,
	`visitor` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`confirmed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_email_unique` ON `newsletter_subscriptions` (`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_token_unique` ON `newsletter_subscriptions` (`token_hash`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `suspended_at` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `suspended_reason` text;