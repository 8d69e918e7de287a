import { integer, primaryKey, sqliteTable, text, index } from "drizzle-orm/sqlite-core";

/** First response to each (credential, Idempotency-Key); a row without status is still in flight. */
export const idempotencyKeys = sqliteTable("idempotency_keys", {
  scope: text("scope").notNull(),
  key: text("key").notNull(),
  requestHash: text("request_hash").notNull(),
  status: integer("status"),
  responseBody: text("response_body"),
  contentType: text("content_type"),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
}, (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)]);
