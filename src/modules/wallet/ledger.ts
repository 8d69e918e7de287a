import { and, eq, sql } from "drizzle-orm";
import type { Statement } from "better-sqlite3";
import type { AppContext } from "../../core/context.ts";
import { prepared } from "../../db/prepared.ts";
import { ledgerEntries, wallets } from "../../db/schema/index.ts";
import { newTimeOrderedId } from "../../lib/ids.ts";
import { countCharge } from "./metrics.ts";

export type LedgerEntryRow = typeof ledgerEntries.$inferSelect;
export type WalletRow = typeof wallets.$inferSelect;
export type LedgerCause = LedgerEntryRow["cause"];

export interface NewEntry {
  workspaceId: string;
  /** Micro-units, signed: credits positive, charges negative. */
  amount: number;
  cause: LedgerCause;
  category?: string | null;
  refType?: string | null;
  refId?: string | null;
  quantity?: number | null;
  agentId?: string | null;
  note?: string | null;
  createdBy?: string | null;
  /** The same key twice is one entry: a settlement or webhook that runs again charges nothing more. */
  dedupe?: string | null;
}

// Settling live calls appends thousands of entries a second: every statement of it is prepared once.
const walletById = prepared((db) => db.select().from(wallets).where(eq(wallets.workspaceId, sql.placeholder("workspaceId"))).prepare());
const entryByDedupe = prepared((db) =>
  db.select().from(ledgerEntries).where(and(eq(ledgerEntries.workspaceId, sql.placeholder("workspaceId")), eq(ledgerEntries.dedupe, sql.placeholder("dedupe")))).prepare(),
);
/** The two writes of every entry, as raw better-sqlite3 statements: drizzle's parameter mapping cost a quarter of a settlement. */
const writes = new WeakMap<AppContext["sqlite"], { insert: Statement<unknown[]>; add: Statement<unknown[]>; addWithin: Statement<unknown[]> }>();

function ledgerWrites(ctx: AppContext) {
  let statements = writes.get(ctx.sqlite);
  if (!statements) {
    statements = {
      insert: ctx.sqlite.prepare<unknown[]>(
        "INSERT INTO ledger_entries (id, workspace_id, amount, balance_after, cause, category, ref_type, ref_id, quantity, agent_id, note, created_by, dedupe, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, dedupe) DO NOTHING",
      ),
      add: ctx.sqlite.prepare<unknown[]>("UPDATE wallets SET balance = balance + ?, updated_at = ? WHERE workspace_id = ? RETURNING balance"),
      // The balance it lands on is checked by the update itself: on PostgreSQL a concurrent debit's row lock
      // is waited for and the condition read again, where a balance read first could be spent twice.
      addWithin: ctx.sqlite.prepare<unknown[]>("UPDATE wallets SET balance = balance + ?, updated_at = ? WHERE workspace_id = ? AND balance + ? >= 0 RETURNING balance"),
    };
    writes.set(ctx.sqlite, statements);
  }
  return statements;
}

/** The workspace's wallet, created empty on first use. */
export function walletOf(ctx: AppContext, workspaceId: string): WalletRow {
  const found = walletById(ctx.db).get({ workspaceId });
  if (found) return found;
  const row: WalletRow = { workspaceId, balance: 0, autoRechargeEnabled: false, autoRechargeThreshold: null, autoRechargeAmount: null, updatedAt: ctx.clock.now() };
  ctx.db.insert(wallets).values(row).onConflictDoNothing().run();
  return walletById(ctx.db).get({ workspaceId })!;
}

/**
 * Appends one entry and moves the cached balance with it, in one transaction (joining the caller's if
 * there is one). An entry whose `dedupe` key exists already is not written again: the existing one is
 * returned with `duplicate: true`.
 */
export function appendEntry(ctx: AppContext, entry: NewEntry): { entry: LedgerEntryRow; duplicate: boolean } {
  return appendMoved(ctx, entry, false)!;
}

/** appendEntry for a debit that may not take the balance below zero: null, and nothing written, when it would. */
export function appendWithinBalance(ctx: AppContext, entry: NewEntry): { entry: LedgerEntryRow; duplicate: boolean } | null {
  return appendMoved(ctx, entry, true);
}

function appendMoved(ctx: AppContext, entry: NewEntry, withinBalance: boolean): { entry: LedgerEntryRow; duplicate: boolean } | null {
  if (!Number.isSafeInteger(entry.amount)) throw new Error(`ledger amounts are whole micro-units, got ${entry.amount}`);
  const write = () => {
    const now = ctx.clock.now();
    // Two statements in the common case: the balance moves (and says where it landed), the entry goes in.
    const { insert, add, addWithin } = ledgerWrites(ctx);
    const move = () => (withinBalance ? addWithin.get(entry.amount, now, entry.workspaceId, entry.amount) : add.get(entry.amount, now, entry.workspaceId)) as { balance: number } | undefined;
    let moved = move();
    if (!moved) {
      walletOf(ctx, entry.workspaceId);
      moved = move();
      if (!moved) return null; // the balance cannot take it
    }
    const row: LedgerEntryRow = {
      id: newTimeOrderedId("led", now),
      workspaceId: entry.workspaceId,
      amount: entry.amount,
      balanceAfter: moved.balance,
      cause: entry.cause,
      category: entry.category ?? null,
      refType: entry.refType ?? null,
      refId: entry.refId ?? null,
      quantity: entry.quantity ?? null,
      agentId: entry.agentId ?? null,
      note: entry.note ?? null,
      createdBy: entry.createdBy ?? null,
      dedupe: entry.dedupe ?? null,
      createdAt: now,
    };
    const inserted = insert.run(row.id, row.workspaceId, row.amount, row.balanceAfter, row.cause, row.category, row.refType, row.refId, row.quantity, row.agentId, row.note, row.createdBy, row.dedupe, row.createdAt);
    if (inserted.changes === 1) {
      // Counted as written: a transaction rolled back after this (a refusal, rare) leaves it counted.
      if (row.amount < 0) countCharge(ctx, row.cause, -row.amount);
      return { entry: row, duplicate: false };
    }
    // Its dedupe key was written before: put the balance back and answer the entry that stands.
    add.get(-entry.amount, now, entry.workspaceId);
    return { entry: entryByDedupe(ctx.db).get({ workspaceId: entry.workspaceId, dedupe: entry.dedupe })!, duplicate: true };
  };
  return ctx.sqlite.inTransaction ? write() : ctx.sqlite.transaction(write).immediate();
}
