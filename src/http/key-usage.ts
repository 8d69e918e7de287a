import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { prepared } from "../db/prepared.ts";
import { apiKeys } from "../db/schema/index.ts";

// last_used_at is bookkeeping: coalesced per key and written with the next batch, never per request.
const pendingByContext = new WeakMap<AppContext, Map<string, number>>();

const touchKey = prepared((db) =>
  db.update(apiKeys).set({ lastUsedAt: sql.placeholder("at") as unknown as number }).where(eq(apiKeys.id, sql.placeholder("id"))).prepare(),
);

export function recordKeyUse(ctx: AppContext, keyId: string): void {
  let pending = pendingByContext.get(ctx);
  if (!pending) {
    const map = new Map<string, number>();
    pending = map;
    pendingByContext.set(ctx, map);
    ctx.writeBehind.register(() => {
      for (const [id, at] of map) touchKey(ctx.db).run({ id, at });
      map.clear();
    });
  }
  pending.set(keyId, ctx.clock.now());
  ctx.writeBehind.schedule();
}

/** The newest use of a key, counting uses not yet written: readers see it without forcing a write. */
export function lastUsedAt(ctx: AppContext, keyId: string, stored: number | null): number | null {
  return pendingByContext.get(ctx)?.get(keyId) ?? stored;
}
