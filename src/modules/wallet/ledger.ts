import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { ledgerEntries, wallets } from "../../db/schema/index.ts";
import { newTimeOrderedId } from "../../lib/ids.ts";

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

/** The workspace's wallet, created empty on first use. */
export function walletOf(ctx: AppContext, workspaceId: string): WalletRow {
  const found = ctx.db.select().from(wallets).where(eq(wallets.workspaceId, workspaceId)).get();
  if (found) return found;
  const row: WalletRow = { workspaceId, balance: 0, autoRechargeEnabled: false, autoRechargeThreshold: null, autoRechargeAmount: null, updatedAt: ctx.clock.now() };
  ctx.db.insert(wallets).values(row).onConflictDoNothing().run();
  return ctx.db.select().from(wallets).where(eq(wallets.workspaceId, workspaceId)).get()!;
}

/**
 * Appends one entry and moves the cached balance with it, in one transaction (joining the caller's if
 * there is one). An entry whose `dedupe` key exists already is not written again: the existing one is
 * returned with `duplicate: true`.
 */
export function appendEntry(ctx: AppContext, entry: NewEntry): { entry: LedgerEntryRow; duplicate: boolean } {
  if (!Number.isSafeInteger(entry.amount)) throw new Error(`ledger amounts are whole micro-units, got ${entry.amount}`);
  const write = () => {
    if (entry.dedupe) {
      const existing = ctx.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.workspaceId, entry.workspaceId), eq(ledgerEntries.dedupe, entry.dedupe))).get();
      if (existing) return { entry: existing, duplicate: true };
    }
    const now = ctx.clock.now();
    const wallet = walletOf(ctx, entry.workspaceId);
    const balanceAfter = wallet.balance + entry.amount;
    const row: LedgerEntryRow = {
      id: newTimeOrderedId("led", now),
      workspaceId: entry.workspaceId,
      amount: entry.amount,
      balanceAfter,
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
    ctx.db.insert(ledgerEntries).values(row).run();
    ctx.db.update(wallets).set({ balance: balanceAfter, updatedAt: now }).where(eq(wallets.workspaceId, entry.workspaceId)).run();
    return { entry: row, duplicate: false };
  };
  return ctx.sqlite.inTransaction ? write() : ctx.sqlite.transaction(write).immediate();
}
