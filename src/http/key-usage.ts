import type { AppContext } from "../core/context.ts";

// last_used_at is bookkeeping: coalesced per key and written with the next batch, never per request.
// The newest use of each key stays here after it is handed on, so readers never see an older one
// while the writer thread is still committing it.
const usesByContext = new WeakMap<AppContext, { newest: Map<string, number>; unwritten: Set<string> }>();

const TOUCH_KEY = "UPDATE api_keys SET last_used_at = ? WHERE id = ?";

export function recordKeyUse(ctx: AppContext, keyId: string): void {
  let uses = usesByContext.get(ctx);
  if (!uses) {
    const created = { newest: new Map<string, number>(), unwritten: new Set<string>() };
    uses = created;
    usesByContext.set(ctx, created);
    ctx.writeBehind.register(() => {
      for (const id of created.unwritten) ctx.writeBehind.add(TOUCH_KEY, [created.newest.get(id)!, id]);
      created.unwritten.clear();
    });
  }
  uses.newest.set(keyId, ctx.clock.now());
  uses.unwritten.add(keyId);
  ctx.writeBehind.schedule();
}

/** The newest use of a key, counting uses not yet written: readers see it without forcing a write. */
export function lastUsedAt(ctx: AppContext, keyId: string, stored: number | null): number | null {
  const newest = usesByContext.get(ctx)?.newest.get(keyId);
  return newest !== undefined && (stored === null || newest > stored) ? newest : stored;
}
