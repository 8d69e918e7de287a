CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`run_at` integer NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`locked_by` text,
	`locked_until` integer,
	`unique_key` text,
	`errors` text DEFAULT '[]' NOT NULL,
	`workspace_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `jobs_claim_idx` ON `jobs` (`type`,`priority`,`run_at`,`id`) WHERE state IN ('available', 'scheduled', 'retryable');--> statement-breakpoint
CREATE INDEX `jobs_next_due_idx` ON `jobs` (`type`,`run_at`) WHERE state IN ('available', 'scheduled', 'retryable');--> statement-breakpoint
CREATE INDEX `jobs_leases_idx` ON `jobs` (`locked_until`) WHERE state = 'executing';--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_unique_active` ON `jobs` (`unique_key`) WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'executing', 'retryable');--> statement-breakpoint
CREATE TABLE `agent_webhooks` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`url` text,
	`event_types` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`channel` text NOT NULL,
	`type` text NOT NULL,
	`agent_id` text,
	`call_id` text,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_workspace_idx` ON `events` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `events_type_idx` ON `events` (`workspace_id`,`type`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` text,
	`agent_id` text,
	`attempt` integer NOT NULL,
	`url` text NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`response_excerpt` text,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_workspace_idx` ON `webhook_attempts` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` text,
	`agent_id` text,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`first_attempt_at` integer,
	`next_attempt_at` integer,
	`last_status_code` integer,
	`last_error` text,
	`delivered_at` integer,
	`failed_at` integer,
	`discarded_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_state_idx` ON `webhook_deliveries` (`workspace_id`,`state`,`failed_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_idx` ON `webhook_deliveries` (`endpoint_id`,`state`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`event_types` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`status` text NOT NULL,
	`disabled_reason` text,
	`failing_since` integer,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`breaker_open_until` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_workspace_idx` ON `webhook_endpoints` (`workspace_id`,`created_at`,`id`);