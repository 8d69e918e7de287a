CREATE TABLE `realtime_tokens` (
	`hash` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`widget_id` text,
	`variables` text NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`call_id` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `realtime_tokens_expiry_idx` ON `realtime_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `widget_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`widget_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`visitor` text NOT NULL,
	`messages` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`widget_id`) REFERENCES `widgets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `widget_sessions_visitor_idx` ON `widget_sessions` (`widget_id`,`visitor`,`created_at`);--> statement-breakpoint
CREATE INDEX `widget_sessions_expiry_idx` ON `widget_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `widgets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`allowed_origins` text NOT NULL,
	`mode` text NOT NULL,
	`look` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `widgets_workspace_idx` ON `widgets` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `widgets_agent_idx` ON `widgets` (`agent_id`);