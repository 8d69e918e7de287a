-- Agent test suites (README "Testing your agents"): cases, runs and their results; drafts among an
-- agent's versions; calls placed by a test run, kept out of billing, analytics and default lists.
CREATE TABLE `agent_test_results` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`case_id` text,
	`case_name` text NOT NULL,
	`position` integer NOT NULL,
	`definition` text NOT NULL,
	`status` text NOT NULL,
	`call_id` text,
	`checks` text,
	`transcript` text,
	`latencies` text,
	`diff` text,
	`error` text,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`run_id`) REFERENCES `agent_test_runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_test_results_run_idx` ON `agent_test_results` (`run_id`,`position`);--> statement-breakpoint
CREATE INDEX `agent_test_results_case_idx` ON `agent_test_results` (`agent_id`,`case_name`,`completed_at`);--> statement-breakpoint
CREATE TABLE `agent_test_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`agent_version` integer NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`errored` integer DEFAULT 0 NOT NULL,
	`concurrency` integer NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_test_runs_agent_idx` ON `agent_test_runs` (`workspace_id`,`agent_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `agent_test_runs_version_idx` ON `agent_test_runs` (`agent_id`,`agent_version`,`created_at`);--> statement-breakpoint
CREATE TABLE `agent_tests` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`definition` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tests_agent_name_unique` ON `agent_tests` (`agent_id`,`name`);--> statement-breakpoint
CREATE INDEX `agent_tests_agent_idx` ON `agent_tests` (`workspace_id`,`agent_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `agent_versions` ADD `draft` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `calls` ADD `test_run_id` text;--> statement-breakpoint
CREATE INDEX `calls_test_run_idx` ON `calls` (`test_run_id`) WHERE test_run_id IS NOT NULL;