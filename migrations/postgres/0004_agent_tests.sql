-- Agent test suites (README "Testing your agents"): cases, runs and their results; drafts among an
-- agent's versions; calls placed by a test run, kept out of billing, analytics and default lists.
-- The twin of SQLite's 0023_agent_tests.
CREATE TABLE "agent_test_runs" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL REFERENCES "workspaces" ("id") ON DELETE CASCADE,
  "agent_id" text NOT NULL REFERENCES "agents" ("id") ON DELETE CASCADE,
  "agent_version" bigint NOT NULL,
  "status" text NOT NULL,
  "total" bigint NOT NULL,
  "passed" bigint NOT NULL DEFAULT 0,
  "failed" bigint NOT NULL DEFAULT 0,
  "errored" bigint NOT NULL DEFAULT 0,
  "concurrency" bigint NOT NULL,
  "created_by" text,
  "created_at" bigint NOT NULL,
  "started_at" bigint,
  "completed_at" bigint,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE INDEX "agent_test_runs_agent_idx" ON "agent_test_runs" ("workspace_id", "agent_id", "created_at", "id");
--> statement-breakpoint
CREATE INDEX "agent_test_runs_version_idx" ON "agent_test_runs" ("agent_id", "agent_version", "created_at");
--> statement-breakpoint
CREATE TABLE "agent_test_results" (
  "id" text NOT NULL,
  "run_id" text NOT NULL REFERENCES "agent_test_runs" ("id") ON DELETE CASCADE,
  "workspace_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "case_id" text,
  "case_name" text NOT NULL,
  "position" bigint NOT NULL,
  "definition" text NOT NULL,
  "status" text NOT NULL,
  "call_id" text,
  "checks" text,
  "transcript" text,
  "latencies" text,
  "diff" text,
  "error" text,
  "started_at" bigint,
  "completed_at" bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE INDEX "agent_test_results_run_idx" ON "agent_test_results" ("run_id", "position");
--> statement-breakpoint
CREATE INDEX "agent_test_results_case_idx" ON "agent_test_results" ("agent_id", "case_name", "completed_at");
--> statement-breakpoint
CREATE TABLE "agent_tests" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL REFERENCES "workspaces" ("id") ON DELETE CASCADE,
  "agent_id" text NOT NULL REFERENCES "agents" ("id") ON DELETE CASCADE,
  "name" text NOT NULL,
  "definition" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "agent_tests_agent_name_unique" ON "agent_tests" ("agent_id", "name");
--> statement-breakpoint
CREATE INDEX "agent_tests_agent_idx" ON "agent_tests" ("workspace_id", "agent_id", "created_at", "id");
--> statement-breakpoint
ALTER TABLE "agent_versions" ADD COLUMN "draft" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "test_run_id" text;
--> statement-breakpoint
CREATE INDEX "calls_test_run_idx" ON "calls" ("test_run_id") WHERE test_run_id IS NOT NULL;
