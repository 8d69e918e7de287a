import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
