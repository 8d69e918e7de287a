import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

/**
 * The wallet's ledger: append-only, amounts in integer micro-units of the instance currency (1 USD =
 * 1,000,000). The balance is the sum; `wallets.balance` caches it and changes only in the transaction
 * that appends the entry. `dedupe` makes a charge idempotent (a call settled twice is one entry).
 */
export const ledgerEntries = sqliteTable("ledger_entries", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  /** Signed: credits positive, charges negative. */
  amount: integer("amount").notNull(),
  balanceAfter: integer("balance_after").notNull(),
  cause: text("cause", { enum: ["topup", "call_usage", "number_fee", "operator_credit", "operator_debit", "refund", "adjustment"] }).notNull(),
  /** For usage: the pricing category (`telephony.simulated.outbound`, `speech.builtin`, …). */
  category: text("category"),
  /** What the entry is about: `call`, `payment`, `phone_number`, `workspace`. */
  refType: text("ref_type"),
  refId: text("ref_id"),
  /** Usage the entry pays for (seconds of a call), for spend reports. */
  quantity: integer("quantity"),
  agentId: text("agent_id"),
  note: text("note"),
  createdBy: text("created_by"),
  dedupe: text("dedupe"),
  createdAt: integer("created_at").notNull(),
}, (t) => [
  index("ledger_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
  uniqueIndex("ledger_dedupe_unique").on(t.workspaceId, t.dedupe),
  // What a call (or payment) was charged is read every settlement interval: answered from the index
  // alone. Ids are unique across kinds (`call_…`, `txn_…`), so no ref_type column leads it.
  index("ledger_call_charges_idx").on(t.refId, t.category, t.amount, t.quantity),
]);

/** Each workspace's cached balance and automatic top-up settings. */
export const wallets = sqliteTable("wallets", {
  workspaceId: text("workspace_id").primaryKey().references(() => workspaces.id, { onDelete: "cascade" }),
  balance: integer("balance").notNull(),
  autoRechargeEnabled: integer("auto_recharge_enabled", { mode: "boolean" }).notNull().default(false),
  autoRechargeThreshold: integer("auto_recharge_threshold"),
  autoRechargeAmount: integer("auto_recharge_amount"),
  updatedAt: integer("updated_at").notNull(),
});

/** The operator's prices: a new row per change, in force from `effective_at` until the next one. */
export const priceLists = sqliteTable("price_lists", {
  id: text("id").primaryKey(),
  currency: text("currency").notNull(),
  /** Per-minute rates by category, per-number monthly fees: micro-units. */
  prices: text("prices", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  effectiveAt: integer("effective_at").notNull(),
  createdBy: text("created_by"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("price_lists_effective_idx").on(t.effectiveAt, t.createdAt)]);

/**
 * Top-ups: one row per attempt to add money, from a card provider (Stripe Checkout, or an automatic
 * recharge charged to the card saved by one) or `offline` (the operator's invoice, settled by a credit).
 * `pending → succeeded | failed | expired`; success appends the ledger entry in the same transaction.
 */
export const payments = sqliteTable("payments", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  provider: text("provider", { enum: ["stripe", "offline"] }).notNull(),
  /** `topup` asked for by a user, `auto_recharge` started by a low balance, `credit` recorded by the operator. */
  kind: text("kind", { enum: ["topup", "auto_recharge", "credit"] }).notNull(),
  status: text("status", { enum: ["pending", "succeeded", "failed", "expired"] }).notNull(),
  /** What was charged, in the currency's minor units (cents), as the provider counts it. */
  amountMinor: integer("amount_minor").notNull(),
  currency: text("currency").notNull(),
  /** What success adds to the wallet, in micro-units. */
  creditMicros: integer("credit_micros").notNull(),
  /** The provider's object: a Checkout Session (`cs_…`) or PaymentIntent (`pi_…`). */
  providerRef: text("provider_ref"),
  checkoutUrl: text("checkout_url"),
  failureReason: text("failure_reason"),
  ledgerEntryId: text("ledger_entry_id"),
  createdBy: text("created_by"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  expiresAt: integer("expires_at"),
  completedAt: integer("completed_at"),
}, (t) => [
  index("payments_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
  uniqueIndex("payments_provider_ref_unique").on(t.provider, t.providerRef),
  index("payments_pending_idx").on(t.status, t.expiresAt),
]);

/** Provider callbacks already handled, by the provider's event id: a replayed event changes nothing. */
export const paymentEvents = sqliteTable("payment_events", {
  provider: text("provider").notNull(),
  eventId: text("event_id").notNull(),
  type: text("type").notNull(),
  paymentId: text("payment_id"),
  /** What it did: `applied`, or why not (`ignored_final`, `unknown_payment`, `mismatch`, …). */
  outcome: text("outcome").notNull(),
  receivedAt: integer("received_at").notNull(),
}, (t) => [primaryKey({ columns: [t.provider, t.eventId] })]);

/** The card a workspace saved at checkout, which automatic recharges charge off-session. */
export const savedPaymentMethods = sqliteTable("saved_payment_methods", {
  workspaceId: text("workspace_id").primaryKey().references(() => workspaces.id, { onDelete: "cascade" }),
  provider: text("provider").notNull(),
  customerRef: text("customer_ref").notNull(),
  paymentMethodRef: text("payment_method_ref"),
  updatedAt: integer("updated_at").notNull(),
});

/** Monthly number fees: each number's next period start; the sweep charges periods that have begun. */
export const numberFees = sqliteTable("number_fees", {
  phoneNumberId: text("phone_number_id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  /** Periods are calendar months from the purchase; `period` is the next one to charge (0 = the first). */
  period: integer("period").notNull(),
  anchorAt: integer("anchor_at").notNull(),
  nextAt: integer("next_at").notNull(),
}, (t) => [index("number_fees_next_idx").on(t.nextAt)]);
