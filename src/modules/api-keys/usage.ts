import { eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { apiKeys } from "../../db/schema/index.ts";

// last_used_at is bookkeeping: coalesce per key and write with the next batch, never per request.
const pendingByContext = new WeakMap<AppContext, Map<string, number>>();

export function recordKeyUse(ctx: AppContext, keyId: string): void {
  let pending = pendingByContext.get(ctx);
  if (!pending) {
    const map = new Map<string, number>();
    pending = map;
    pendingByContext.set(ctx, map);
    ctx.writeBehind.register(() => {
      for (const [id, at] of map) ctx.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id)).run();
      map.clear();
    });
  }
  pending.set(keyId, ctx.clock.now());
  ctx.writeBehind.schedule();
}
