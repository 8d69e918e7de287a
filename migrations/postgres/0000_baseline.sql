-- PostgreSQL baseline: the schema of SQLite migration 0019_redact_audit_tokens, rendered by scripts/db/postgres-baseline.ts.
--> statement-breakpoint
CREATE TABLE "agent_chat_sessions" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "state" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "agent_versions" (
  "agent_id" text NOT NULL,
  "version" bigint NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "config" text NOT NULL,
  "created_by" text,
  "note" text,
  "created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_webhooks" (
  "agent_id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "url" text,
  "event_types" text NOT NULL,
  "secret" text NOT NULL,
  "previous_secret" text,
  "previous_secret_expires_at" bigint,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("agent_id")
);
--> statement-breakpoint
CREATE TABLE "agents" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "config" text NOT NULL,
  "version" bigint NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "scope" text NOT NULL,
  "mode" text NOT NULL,
  "prefix" text NOT NULL,
  "last_four" text NOT NULL,
  "secret_hash" text NOT NULL,
  "created_by" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "last_used_at" bigint,
  "revoked_at" bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "actor_type" text NOT NULL,
  "actor_id" text,
  "api_key_id" text,
  "action" text NOT NULL,
  "method" text NOT NULL,
  "path" text NOT NULL,
  "status" bigint NOT NULL,
  "ip" text,
  "user_agent" text,
  "request_id" text NOT NULL,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "brand_domains" (
  "domain" text NOT NULL,
  "workspace_id" text NOT NULL,
  "verification_token" text NOT NULL,
  "status" text NOT NULL,
  "verified_at" bigint,
  "verified_by" text,
  "last_checked_at" bigint,
  "last_error" text,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("domain")
);
--> statement-breakpoint
CREATE TABLE "brand_logos" (
  "workspace_id" text NOT NULL,
  "content_type" text NOT NULL,
  "sha256" text NOT NULL,
  "bytes" bytea NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("workspace_id")
);
--> statement-breakpoint
CREATE TABLE "brandings" (
  "workspace_id" text NOT NULL,
  "product_name" text,
  "logo_url" text,
  "colors" text,
  "support_email" text,
  "custom_css" text,
  "email_sender_name" text,
  "key_prefix_slug" text,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("workspace_id")
);
--> statement-breakpoint
CREATE SEQUENCE "call_events_id_seq";
--> statement-breakpoint
CREATE TABLE "call_events" (
  "id" bigint NOT NULL DEFAULT nextval('call_events_id_seq'),
  "call_id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "type" text NOT NULL,
  "offset_ms" bigint NOT NULL,
  "data" text NOT NULL,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE FUNCTION "call_events_number"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW."id" IS NULL THEN NEW."id" := nextval('call_events_id_seq'); END IF; RETURN NEW; END $$;
--> statement-breakpoint
CREATE TRIGGER "call_events_number" BEFORE INSERT ON "call_events" FOR EACH ROW EXECUTE FUNCTION "call_events_number"();
--> statement-breakpoint
ALTER SEQUENCE "call_events_id_seq" OWNED BY "call_events"."id";
--> statement-breakpoint
CREATE TABLE "calls" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "agent_version" bigint NOT NULL,
  "direction" text NOT NULL,
  "from_number" text,
  "to_number" text,
  "phone_number_id" text,
  "carrier" text NOT NULL,
  "status" text NOT NULL,
  "end_reason" text,
  "variables" text NOT NULL,
  "metadata" text NOT NULL,
  "carrier_options" text,
  "transcript" text,
  "extracted" text,
  "summary" text,
  "transferred_to" text,
  "recording_path" text,
  "erased_at" bigint,
  "created_at" bigint NOT NULL,
  "ringing_at" bigint,
  "answered_at" bigint,
  "ended_at" bigint,
  "duration_ms" bigint,
  "updated_at" bigint NOT NULL,
  "campaign_id" text,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE SEQUENCE "campaign_contacts_id_seq";
--> statement-breakpoint
CREATE TABLE "campaign_contacts" (
  "id" bigint NOT NULL DEFAULT nextval('campaign_contacts_id_seq'),
  "campaign_id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "line" bigint NOT NULL,
  "phone" text NOT NULL,
  "raw_phone" text NOT NULL,
  "variables" text NOT NULL,
  "timezone" text,
  "status" text NOT NULL,
  "attempts" bigint NOT NULL DEFAULT 0,
  "next_attempt_at" bigint,
  "last_call_id" text,
  "last_end_reason" text,
  "last_dialed_at" bigint,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE FUNCTION "campaign_contacts_number"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW."id" IS NULL THEN NEW."id" := nextval('campaign_contacts_id_seq'); END IF; RETURN NEW; END $$;
--> statement-breakpoint
CREATE TRIGGER "campaign_contacts_number" BEFORE INSERT ON "campaign_contacts" FOR EACH ROW EXECUTE FUNCTION "campaign_contacts_number"();
--> statement-breakpoint
ALTER SEQUENCE "campaign_contacts_id_seq" OWNED BY "campaign_contacts"."id";
--> statement-breakpoint
CREATE TABLE "campaigns" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "agent_id" text NOT NULL,
  "from_number_id" text,
  "status" text NOT NULL,
  "concurrency" bigint NOT NULL,
  "calls_per_minute" bigint NOT NULL,
  "window" text,
  "retry" text NOT NULL,
  "default_country" text NOT NULL,
  "do_not_call" text NOT NULL,
  "columns" text NOT NULL,
  "start_at" bigint,
  "end_at" bigint,
  "next_dial_at" bigint NOT NULL DEFAULT 0,
  "last_error" text,
  "metadata" text NOT NULL,
  "simulation" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "started_at" bigint,
  "completed_at" bigint,
  "reach" text NOT NULL DEFAULT 'any',
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "carrier_connections" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "kind" text NOT NULL,
  "settings" text NOT NULL,
  "credentials" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "client_events" (
  "id" text NOT NULL,
  "name" text NOT NULL,
  "properties" text,
  "anonymous_id" text,
  "url" text,
  "occurred_at" bigint NOT NULL,
  "visitor" text NOT NULL,
  "received_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "contact_messages" (
  "id" text NOT NULL,
  "name" text NOT NULL,
  "email" text NOT NULL,
  "company" text,
  "message" text NOT NULL,
  "visitor" text NOT NULL,
  "user_agent" text,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "demo_calls" (
  "id" text NOT NULL,
  "number" text NOT NULL,
  "call_id" text,
  "visitor" text NOT NULL,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "events" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "channel" text NOT NULL,
  "type" text NOT NULL,
  "agent_id" text,
  "call_id" text,
  "body" text NOT NULL,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
  "scope" text NOT NULL,
  "key" text NOT NULL,
  "request_hash" text NOT NULL,
  "status" bigint,
  "response_body" text,
  "content_type" text,
  "created_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  PRIMARY KEY ("scope", "key")
);
--> statement-breakpoint
CREATE TABLE "invitations" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "email" text NOT NULL,
  "role" text NOT NULL,
  "token_hash" text NOT NULL,
  "invited_by" text,
  "created_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "accepted_at" bigint,
  "accepted_by" text,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
  "id" text NOT NULL,
  "type" text NOT NULL,
  "payload" text NOT NULL,
  "state" text NOT NULL,
  "run_at" bigint NOT NULL,
  "attempt" bigint NOT NULL DEFAULT 0,
  "max_attempts" bigint NOT NULL,
  "locked_by" text,
  "locked_until" bigint,
  "unique_key" text,
  "errors" text NOT NULL DEFAULT '[]',
  "workspace_id" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "finished_at" bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "knowledge_bases" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "description" text,
  "embedder_provider" text NOT NULL,
  "embedder_model" text,
  "embedder_fingerprint" text,
  "dimension" bigint,
  "chunk_size" bigint NOT NULL,
  "chunk_overlap" bigint NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "chunk_count" bigint NOT NULL DEFAULT 0,
  "index_version" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE SEQUENCE "knowledge_chunks_rowid_seq";
--> statement-breakpoint
CREATE TABLE "knowledge_chunks" (
  "rowid" bigint NOT NULL DEFAULT nextval('knowledge_chunks_rowid_seq'),
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "knowledge_base_id" text NOT NULL,
  "source_id" text NOT NULL,
  "position" bigint NOT NULL,
  "heading" text,
  "text" text NOT NULL,
  "embedding" bytea,
  PRIMARY KEY ("rowid")
);
--> statement-breakpoint
CREATE FUNCTION "knowledge_chunks_number"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW."rowid" IS NULL THEN NEW."rowid" := nextval('knowledge_chunks_rowid_seq'); END IF; RETURN NEW; END $$;
--> statement-breakpoint
CREATE TRIGGER "knowledge_chunks_number" BEFORE INSERT ON "knowledge_chunks" FOR EACH ROW EXECUTE FUNCTION "knowledge_chunks_number"();
--> statement-breakpoint
ALTER SEQUENCE "knowledge_chunks_rowid_seq" OWNED BY "knowledge_chunks"."rowid";
--> statement-breakpoint
CREATE TABLE "knowledge_sources" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "knowledge_base_id" text NOT NULL,
  "type" text NOT NULL,
  "name" text NOT NULL,
  "url" text,
  "content_type" text,
  "size_bytes" bigint,
  "content" text,
  "status" text NOT NULL,
  "chunks_done" bigint NOT NULL DEFAULT 0,
  "chunks_total" bigint NOT NULL DEFAULT 0,
  "error" text,
  "indexed_at" bigint,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "amount" bigint NOT NULL,
  "balance_after" bigint NOT NULL,
  "cause" text NOT NULL,
  "category" text,
  "ref_type" text,
  "ref_id" text,
  "quantity" bigint,
  "agent_id" text,
  "note" text,
  "created_by" text,
  "dedupe" text,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "members" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "user_id" text NOT NULL,
  "role" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "newsletter_subscriptions" (
  "id" text NOT NULL,
  "email" text NOT NULL,
  "status" text NOT NULL,
  "token_hash" text,
  "source" text,
  "visitor" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "confirmed_at" bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "number_fees" (
  "phone_number_id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "period" bigint NOT NULL,
  "anchor_at" bigint NOT NULL,
  "next_at" bigint NOT NULL,
  PRIMARY KEY ("phone_number_id")
);
--> statement-breakpoint
CREATE TABLE "password_resets" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "token_hash" text NOT NULL,
  "created_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "used_at" bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "payment_events" (
  "provider" text NOT NULL,
  "event_id" text NOT NULL,
  "type" text NOT NULL,
  "payment_id" text,
  "outcome" text NOT NULL,
  "received_at" bigint NOT NULL,
  PRIMARY KEY ("provider", "event_id")
);
--> statement-breakpoint
CREATE TABLE "payments" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "provider" text NOT NULL,
  "kind" text NOT NULL,
  "status" text NOT NULL,
  "amount_minor" bigint NOT NULL,
  "currency" text NOT NULL,
  "credit_micros" bigint NOT NULL,
  "provider_ref" text,
  "checkout_url" text,
  "failure_reason" text,
  "ledger_entry_id" text,
  "created_by" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "expires_at" bigint,
  "completed_at" bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "number" text NOT NULL,
  "carrier" text NOT NULL,
  "label" text,
  "agent_id" text,
  "inbound" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "origin" text NOT NULL DEFAULT 'bought',
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "price_lists" (
  "id" text NOT NULL,
  "currency" text NOT NULL,
  "prices" text NOT NULL,
  "effective_at" bigint NOT NULL,
  "created_by" text,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "provider_connections" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "kind" text NOT NULL,
  "base_url" text,
  "api_key" text,
  "settings" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "realtime_tokens" (
  "hash" text NOT NULL,
  "workspace_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "widget_id" text,
  "variables" text NOT NULL,
  "metadata" text NOT NULL,
  "created_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "used_at" bigint,
  "call_id" text,
  PRIMARY KEY ("hash")
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
  "token_hash" text NOT NULL,
  "session_id" text NOT NULL,
  "created_at" bigint NOT NULL,
  "used_at" bigint,
  PRIMARY KEY ("token_hash")
);
--> statement-breakpoint
CREATE TABLE "saved_payment_methods" (
  "workspace_id" text NOT NULL,
  "provider" text NOT NULL,
  "customer_ref" text NOT NULL,
  "payment_method_ref" text,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("workspace_id")
);
--> statement-breakpoint
CREATE SEQUENCE "schedule_runs_id_seq";
--> statement-breakpoint
CREATE TABLE "schedule_runs" (
  "id" bigint NOT NULL DEFAULT nextval('schedule_runs_id_seq'),
  "schedule_id" text NOT NULL,
  "run_at" bigint NOT NULL,
  "status" text NOT NULL,
  "call_id" text,
  "detail" text,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE FUNCTION "schedule_runs_number"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW."id" IS NULL THEN NEW."id" := nextval('schedule_runs_id_seq'); END IF; RETURN NEW; END $$;
--> statement-breakpoint
CREATE TRIGGER "schedule_runs_number" BEFORE INSERT ON "schedule_runs" FOR EACH ROW EXECUTE FUNCTION "schedule_runs_number"();
--> statement-breakpoint
ALTER SEQUENCE "schedule_runs_id_seq" OWNED BY "schedule_runs"."id";
--> statement-breakpoint
CREATE TABLE "schedules" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "to_number" text NOT NULL,
  "from_number" text,
  "variables" text NOT NULL,
  "metadata" text NOT NULL,
  "at" bigint,
  "cron" text,
  "timezone" text,
  "status" text NOT NULL,
  "next_run_at" bigint,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "reach" text NOT NULL DEFAULT 'any',
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "workspace_id" text,
  "user_agent" text,
  "ip" text,
  "created_at" bigint NOT NULL,
  "last_used_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "revoked_at" bigint,
  "revoke_reason" text,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "tools" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "name" text NOT NULL,
  "config" text NOT NULL,
  "secret" text NOT NULL,
  "headers" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "users" (
  "id" text NOT NULL,
  "email" text NOT NULL,
  "name" text,
  "password_hash" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "wallets" (
  "workspace_id" text NOT NULL,
  "balance" bigint NOT NULL,
  "auto_recharge_enabled" bigint NOT NULL DEFAULT 0,
  "auto_recharge_threshold" bigint,
  "auto_recharge_amount" bigint,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("workspace_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "delivery_id" text NOT NULL,
  "event_id" text NOT NULL,
  "endpoint_id" text,
  "agent_id" text,
  "attempt" bigint NOT NULL,
  "url" text NOT NULL,
  "status_code" bigint,
  "duration_ms" bigint NOT NULL,
  "response_excerpt" text,
  "error" text,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "event_id" text NOT NULL,
  "endpoint_id" text,
  "agent_id" text,
  "state" text NOT NULL,
  "attempts" bigint NOT NULL DEFAULT 0,
  "first_attempt_at" bigint,
  "next_attempt_at" bigint,
  "last_status_code" bigint,
  "last_error" text,
  "delivered_at" bigint,
  "failed_at" bigint,
  "discarded_reason" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "url" text NOT NULL,
  "description" text,
  "event_types" text NOT NULL,
  "secret" text NOT NULL,
  "previous_secret" text,
  "previous_secret_expires_at" bigint,
  "status" text NOT NULL,
  "disabled_reason" text,
  "failing_since" bigint,
  "consecutive_failures" bigint NOT NULL DEFAULT 0,
  "breaker_open_until" bigint,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "widget_sessions" (
  "id" text NOT NULL,
  "widget_id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "visitor" text NOT NULL,
  "messages" bigint NOT NULL,
  "created_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "widgets" (
  "id" text NOT NULL,
  "workspace_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "name" text NOT NULL,
  "allowed_origins" text NOT NULL,
  "mode" text NOT NULL,
  "look" text NOT NULL,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
  "id" text NOT NULL,
  "name" text NOT NULL,
  "timezone" text NOT NULL,
  "default_language" text NOT NULL,
  "default_country" text,
  "is_operator" bigint NOT NULL DEFAULT 0,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "suspended_at" bigint,
  "suspended_reason" text,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE INDEX "agent_chat_sessions_expiry_idx" ON "agent_chat_sessions" ("expires_at");
--> statement-breakpoint
ALTER TABLE "agent_chat_sessions" ADD FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "agent_chat_sessions" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE UNIQUE INDEX "agent_versions_pk" ON "agent_versions" ("agent_id","version");
--> statement-breakpoint
ALTER TABLE "agent_versions" ADD FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "agent_webhooks" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "agents_workspace_idx" ON "agents" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "agents" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash_unique" ON "api_keys" ("secret_hash");
--> statement-breakpoint
CREATE INDEX "api_keys_workspace_idx" ON "api_keys" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "api_keys" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "audit_log_key_idx" ON "audit_log" ("workspace_id","api_key_id","created_at");
--> statement-breakpoint
CREATE INDEX "audit_log_workspace_idx" ON "audit_log" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "audit_log" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "brand_domains_workspace_idx" ON "brand_domains" ("workspace_id","created_at");
--> statement-breakpoint
ALTER TABLE "brand_domains" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "brand_logos" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "brandings" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "call_events_call_idx" ON "call_events" ("call_id","id");
--> statement-breakpoint
ALTER TABLE "call_events" ADD FOREIGN KEY ("call_id") REFERENCES "calls" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "calls_agent_idx" ON "calls" ("workspace_id","agent_id","created_at");
--> statement-breakpoint
CREATE INDEX "calls_campaign_idx" ON "calls" ("campaign_id");
--> statement-breakpoint
CREATE INDEX "calls_from_number_idx" ON "calls" ("workspace_id","from_number","created_at","id");
--> statement-breakpoint
CREATE INDEX "calls_status_idx" ON "calls" ("status");
--> statement-breakpoint
CREATE INDEX "calls_to_number_idx" ON "calls" ("workspace_id","to_number","created_at","id");
--> statement-breakpoint
CREATE INDEX "calls_workspace_idx" ON "calls" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "calls" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "campaign_contacts_call_idx" ON "campaign_contacts" ("last_call_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_contacts_phone_unique" ON "campaign_contacts" ("campaign_id","phone");
--> statement-breakpoint
CREATE INDEX "campaign_contacts_queue_idx" ON "campaign_contacts" ("campaign_id","status","id");
--> statement-breakpoint
CREATE INDEX "campaign_contacts_retry_idx" ON "campaign_contacts" ("campaign_id","status","next_attempt_at");
--> statement-breakpoint
CREATE INDEX "campaign_contacts_zone_idx" ON "campaign_contacts" ("campaign_id","status","timezone","id");
--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD FOREIGN KEY ("campaign_id") REFERENCES "campaigns" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "campaigns_status_idx" ON "campaigns" ("status");
--> statement-breakpoint
CREATE INDEX "campaigns_workspace_idx" ON "campaigns" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "campaigns" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "carrier_connections_workspace_idx" ON "carrier_connections" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "carrier_connections" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "client_events_name_idx" ON "client_events" ("name","occurred_at");
--> statement-breakpoint
CREATE INDEX "client_events_received_idx" ON "client_events" ("received_at","id");
--> statement-breakpoint
CREATE INDEX "contact_messages_created_idx" ON "contact_messages" ("created_at","id");
--> statement-breakpoint
CREATE INDEX "contact_messages_visitor_idx" ON "contact_messages" ("visitor","created_at");
--> statement-breakpoint
CREATE INDEX "demo_calls_number_idx" ON "demo_calls" ("number","created_at");
--> statement-breakpoint
CREATE INDEX "demo_calls_visitor_idx" ON "demo_calls" ("visitor","created_at");
--> statement-breakpoint
CREATE INDEX "events_call_idx" ON "events" ("workspace_id","call_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" ("workspace_id","type","created_at");
--> statement-breakpoint
CREATE INDEX "events_workspace_idx" ON "events" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "events" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" ("expires_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_unique" ON "invitations" ("token_hash");
--> statement-breakpoint
CREATE INDEX "invitations_workspace_idx" ON "invitations" ("workspace_id");
--> statement-breakpoint
ALTER TABLE "invitations" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" ("type","run_at","id") WHERE state IN ('available', 'scheduled', 'retryable');
--> statement-breakpoint
CREATE INDEX "jobs_leases_idx" ON "jobs" ("locked_until") WHERE state = 'executing';
--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_unique_active" ON "jobs" ("unique_key") WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'executing', 'retryable');
--> statement-breakpoint
CREATE INDEX "knowledge_bases_workspace_idx" ON "knowledge_bases" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "knowledge_chunks_kb_idx" ON "knowledge_chunks" ("knowledge_base_id");
--> statement-breakpoint
CREATE INDEX "knowledge_chunks_source_idx" ON "knowledge_chunks" ("source_id","position");
--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD FOREIGN KEY ("source_id") REFERENCES "knowledge_sources" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "knowledge_sources_kb_idx" ON "knowledge_sources" ("knowledge_base_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "knowledge_sources" ADD FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "ledger_call_charges_idx" ON "ledger_entries" ("ref_id","category","amount","quantity");
--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_dedupe_unique" ON "ledger_entries" ("workspace_id","dedupe");
--> statement-breakpoint
CREATE INDEX "ledger_workspace_idx" ON "ledger_entries" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "members_user_idx" ON "members" ("user_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "members_workspace_idx" ON "members" ("workspace_id","created_at","id");
--> statement-breakpoint
CREATE UNIQUE INDEX "members_workspace_user_unique" ON "members" ("workspace_id","user_id");
--> statement-breakpoint
ALTER TABLE "members" ADD FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "members" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE UNIQUE INDEX "newsletter_email_unique" ON "newsletter_subscriptions" ("email");
--> statement-breakpoint
CREATE UNIQUE INDEX "newsletter_token_unique" ON "newsletter_subscriptions" ("token_hash");
--> statement-breakpoint
CREATE INDEX "number_fees_next_idx" ON "number_fees" ("next_at");
--> statement-breakpoint
ALTER TABLE "number_fees" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE UNIQUE INDEX "password_resets_token_unique" ON "password_resets" ("token_hash");
--> statement-breakpoint
ALTER TABLE "password_resets" ADD FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "payments_pending_idx" ON "payments" ("status","expires_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_provider_ref_unique" ON "payments" ("provider","provider_ref");
--> statement-breakpoint
CREATE INDEX "payments_workspace_idx" ON "payments" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "payments" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "phone_numbers_agent_idx" ON "phone_numbers" ("agent_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_number_unique" ON "phone_numbers" ("number");
--> statement-breakpoint
CREATE INDEX "phone_numbers_workspace_idx" ON "phone_numbers" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "price_lists_effective_idx" ON "price_lists" ("effective_at","created_at");
--> statement-breakpoint
CREATE INDEX "provider_connections_workspace_idx" ON "provider_connections" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "provider_connections" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "realtime_tokens_expiry_idx" ON "realtime_tokens" ("expires_at");
--> statement-breakpoint
ALTER TABLE "realtime_tokens" ADD FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "realtime_tokens" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens" ("session_id");
--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "saved_payment_methods" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_runs_unique" ON "schedule_runs" ("schedule_id","run_at");
--> statement-breakpoint
ALTER TABLE "schedule_runs" ADD FOREIGN KEY ("schedule_id") REFERENCES "schedules" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "schedules_workspace_idx" ON "schedules" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "schedules" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" ("user_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "sessions" ADD FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "tools_workspace_idx" ON "tools" ("workspace_id","created_at","id");
--> statement-breakpoint
CREATE UNIQUE INDEX "tools_workspace_name_unique" ON "tools" ("workspace_id","name");
--> statement-breakpoint
ALTER TABLE "tools" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" ("email");
--> statement-breakpoint
ALTER TABLE "wallets" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" ("delivery_id","attempt");
--> statement-breakpoint
CREATE INDEX "webhook_attempts_workspace_idx" ON "webhook_attempts" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" ("endpoint_id","state");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" ("event_id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_state_idx" ON "webhook_deliveries" ("workspace_id","state","failed_at","id");
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "webhook_endpoints_workspace_idx" ON "webhook_endpoints" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "widget_sessions_expiry_idx" ON "widget_sessions" ("expires_at");
--> statement-breakpoint
CREATE INDEX "widget_sessions_visitor_idx" ON "widget_sessions" ("widget_id","visitor","created_at");
--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD FOREIGN KEY ("widget_id") REFERENCES "widgets" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
--> statement-breakpoint
CREATE INDEX "widgets_agent_idx" ON "widgets" ("agent_id");
--> statement-breakpoint
CREATE INDEX "widgets_workspace_idx" ON "widgets" ("workspace_id","created_at","id");
--> statement-breakpoint
ALTER TABLE "widgets" ADD FOREIGN KEY ("workspace_id") REFERENCES "workspaces" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
