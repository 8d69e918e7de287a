DROP INDEX `sessions_user_idx`;--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `members_user_idx`;--> statement-breakpoint
CREATE INDEX `members_workspace_idx` ON `members` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `members_user_idx` ON `members` (`user_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `api_keys_workspace_idx`;--> statement-breakpoint
CREATE INDEX `api_keys_workspace_idx` ON `api_keys` (`workspace_id`,`created_at`,`id`);