import type { AppContext } from "../core/context.ts";

/**
 * Claims one firing of a periodic sweep for this node: every node's timer fires at the same scheduled
 * time (`firedAt`, the pattern's own instant, not when the timer ran), and the node whose UPDATE moves
 * the sweep's row forward runs it; the others find the row already there (at READ COMMITTED the later
 * UPDATE waits on the row lock and then re-reads it) and skip that firing.
 */
export function claimSweepRun(ctx: AppContext, name: string, firedAt: number): boolean {
  const now = ctx.clock.now();
  ctx.sqlite.prepare("INSERT INTO sweep_runs (name, fired_at, node_id, updated_at) VALUES (?, 0, ?, ?) ON CONFLICT DO NOTHING").run(name, ctx.nodeId, now);
  return ctx.sqlite.prepare("UPDATE sweep_runs SET fired_at = ?, node_id = ?, updated_at = ? WHERE name = ? AND fired_at < ?").run(firedAt, ctx.nodeId, now, name, firedAt).changes === 1;
}

