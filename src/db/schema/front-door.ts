import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** What the public site's visitors send, kept for the operator to list and export. */
export const contactMessages = sqliteTable("contact_messages", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  company: text("company"),
  message: text("message").notNull(),
  /** The sender's address, hashed with the instance secret (per-IP limits count these). */
  visitor: text("visitor").notNull(),
  userAgent: text("user_agent"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("contact_messages_created_idx").on(t.createdAt, t.id), index("contact_messages_visitor_idx").on(t.visitor, t.createdAt)]);

/** Newsletter sign-ups: pending until the e-mailed link confirms them (double opt-in). */
export const newsletterSubscriptions = sqliteTable("newsletter_subscriptions", {
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  status: text("status", { enum: ["pending", "confirmed", "unsubscribed"] }).notNull(),
  tokenHash: text("token_hash"),
  source: text("source"),
  visitor: text("visitor").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  confirmedAt: integer("confirmed_at"),
}, (t) => [uniqueIndex("newsletter_email_unique").on(t.email), uniqueIndex("newsletter_token_unique").on(t.tokenHash)]);

/** Client-side events (page views, clicks), batched by the site and schema-checked. */
export const clientEvents = sqliteTable("client_events", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  properties: text("properties", { mode: "json" }).$type<Record<string, unknown>>(),
  anonymousId: text("anonymous_id"),
  url: text("url"),
  occurredAt: integer("occurred_at").notNull(),
  visitor: text("visitor").notNull(),
  receivedAt: integer("received_at").notNull(),
}, (t) => [index("client_events_received_idx").on(t.receivedAt, t.id), index("client_events_name_idx").on(t.name, t.occurredAt)]);

/** Demo calls placed for visitors: the caps count these per address and per number. */
export const demoCalls = sqliteTable("demo_calls", {
  id: text("id").primaryKey(),
  number: text("number").notNull(),
  callId: text("call_id"),
  visitor: text("visitor").notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("demo_calls_number_idx").on(t.number, t.createdAt), index("demo_calls_visitor_idx").on(t.visitor, t.createdAt)]);
