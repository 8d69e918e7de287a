import { and, eq, gte, isNull, lt, ne } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { VERSION } from "../core/version.ts";
import { nodes } from "../db/schema/index.ts";
import { SECOND } from "../lib/time.ts";

// Every process serving the database is a node: it registers as it starts listening, heartbeats, and
// marks itself stopped on a clean shutdown. One that falls silent for NODE_LOST_AFTER_MS is lost: a
// survivor takes over what it held (calls, job leases). README "Running a cluster" states the bound.

export type NodeRow = typeof nodes.$inferSelect;

export const HEARTBEAT_MS = 3 * SECOND;
/** Five heartbeats missed: longer than a GC pause or a database failover's blip, well inside the 30 s promised. */
export const NODE_LOST_AFTER_MS = 15 * SECOND;

export function registerNode(ctx: AppContext, url: string): NodeRow {
  const now = ctx.clock.now();
  const row: NodeRow = { id: ctx.nodeId, name: ctx.config.nodeName, url, version: VERSION, startedAt: now, heartbeatAt: now, stoppedAt: null, lostAt: null, lostBy: null };
  ctx.db.insert(nodes).values(row).run();
  return row;
}

/** One beat; false when the others already declared this node lost (it must not go on as if it held anything). */
export function beat(ctx: AppContext): boolean {
  return ctx.db.update(nodes).set({ heartbeatAt: ctx.clock.now() }).where(and(eq(nodes.id, ctx.nodeId), isNull(nodes.lostAt), isNull(nodes.stoppedAt))).run().changes === 1;
}

export function markStopped(ctx: AppContext): void {
  ctx.db.update(nodes).set({ stoppedAt: ctx.clock.now() }).where(and(eq(nodes.id, ctx.nodeId), isNull(nodes.stoppedAt))).run();
}

export function findNode(ctx: AppContext, id: string): NodeRow | undefined {
  return ctx.db.select().from(nodes).where(eq(nodes.id, id)).get();
}

/** The nodes that heartbeat within the bound and were neither stopped nor found lost. */
export function liveNodes(ctx: AppContext): NodeRow[] {
  const since = ctx.clock.now() - NODE_LOST_AFTER_MS;
  return ctx.db.select().from(nodes).where(and(isNull(nodes.stoppedAt), isNull(nodes.lostAt), gte(nodes.heartbeatAt, since))).orderBy(nodes.startedAt).all();
}

/** Nodes silent past the bound (`silentBefore`), neither stopped nor already found lost: a survivor may claim them. */
export function silentNodes(ctx: AppContext, silentBefore: number): NodeRow[] {
  return ctx.db.select().from(nodes).where(and(isNull(nodes.stoppedAt), isNull(nodes.lostAt), lt(nodes.heartbeatAt, silentBefore), ne(nodes.id, ctx.nodeId))).all();
}

/**
 * Declares a silent node lost, by this node. A conditional UPDATE: of survivors racing for it (each
 * waits on the row at READ COMMITTED, then finds it taken) only the one whose UPDATE changed the row
 * takes over; a node that beat again in the meantime is not lost. `silentBefore` null: known dead.
 */
export function claimLostNode(ctx: AppContext, id: string, silentBefore: number | null): boolean {
  return ctx.db
    .update(nodes)
    .set({ lostAt: ctx.clock.now(), lostBy: ctx.nodeId })
    .where(and(eq(nodes.id, id), isNull(nodes.lostAt), isNull(nodes.stoppedAt), silentBefore === null ? undefined : lt(nodes.heartbeatAt, silentBefore)))
    .run().changes === 1;
}

/**
 * SQLite: one process serves a data dir (its serve lock), so at start every other node that never
 * said it stopped died with its process: all are lost at once. Answers their ids.
 */
export function declareOthersLost(ctx: AppContext): string[] {
  const others = ctx.db.select({ id: nodes.id }).from(nodes).where(and(isNull(nodes.stoppedAt), isNull(nodes.lostAt), ne(nodes.id, ctx.nodeId))).all();
  if (others.length) ctx.db.update(nodes).set({ lostAt: ctx.clock.now(), lostBy: ctx.nodeId }).where(and(isNull(nodes.stoppedAt), isNull(nodes.lostAt), ne(nodes.id, ctx.nodeId))).run();
  return others.map((node) => node.id);
}

/** Who declared this node lost (null while it is not). */
export function lostBy(ctx: AppContext): string | null {
  return findNode(ctx, ctx.nodeId)?.lostBy ?? null;
}

/** A running heartbeat: stop it, or ask since when its beats have all landed. */
export interface Heartbeat {
  stop(): void;
  /** Since when every beat landed (start, or the first beat after one that failed): this node's view of the database is steady. */
  steadySince(): number;
}

/**
 * Heartbeats on a timer. A beat that finds this node declared lost (it was silent past the bound: a
 * stalled process, a cut network) calls `onLost`: what it held belongs to others now.
 */
export function startHeartbeat(ctx: AppContext, onLost: () => void): Heartbeat {
  let lost = false;
  let steadySince = ctx.clock.now();
  let failing = false;
  const timer = setInterval(() => {
    if (lost) return;
    try {
      if (!beat(ctx)) {
        lost = true;
        onLost();
        return;
      }
      if (failing) steadySince = ctx.clock.now();
      failing = false;
    } catch (error) {
      // The database is away: the next beat tries again; past the bound the others take over.
      failing = true;
      ctx.logger.warn("node heartbeat failed", { error: (error as Error).message });
    }
  }, HEARTBEAT_MS);
  timer.unref?.();
  return { stop: () => clearInterval(timer), steadySince: () => (failing ? Infinity : steadySince) };
}
