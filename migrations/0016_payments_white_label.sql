CREATE TABLE `number_fees` (
	`phone_number_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`period` integer NOT NULL,
	`anchor_at` integer NOT NULL,
	`next_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `number_fees_next_idx` ON `number_fees` (`next_at`);--> statement-breakpoint
CREATE TABLE `payment_events` (
	`provider` text NOT NULL,
	`event_id` text NOT NULL,
	`type` text NOT NULL,
	`payment_id` text,
	`outcome` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `event_id`)
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`provider` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`credit_micros` integer NOT NULL,
	`provider_ref` text,
	`checkout_url` text,
	`failure_reason` text,
	`ledger_entry_id` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `payments_workspace_idx` ON `payments` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_ref_unique` ON `payments` (`provider`,`provider_ref`);--> statement-breakpoint
CREATE INDEX `payments_pending_idx` ON `payments` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `saved_payment_methods` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`customer_ref` text NOT NULL,
	`payment_method_ref` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `brand_domains` (
	`domain` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`verification_token` text NOT NULL,
	`status` text NOT NULL,
	`verified_at` integer,
	`verified_by` text,
	`last_checked_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `brand_domains_workspace_idx` ON `brand_domains` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `brand_logos` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`content_type` text NOT NULL,
	`sha256` text NOT NULL,
	`bytes` blob NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `brandings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`product_name` text,
	`logo_url` text,
	`colors` text,
	`support_email` text,
	`custom_css` text,
	`email_sender_name` text,
	`key_prefix_slug` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
