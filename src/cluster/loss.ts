import type { AppContext } from "../core/context.ts";
import { failureLevel } from "../db/refusals.ts";
import { claimLostNode, findNode, NODE_LOST_AFTER_MS, silentNodes } from "./nodes.ts";

/** How often every node looks for silent ones: with the 15 s bound and 3 s beats, a node is taken over within ~23 s of its last beat. */
export const LOSS_SWEEP_PATTERN = "*/5 * * * * *";

/** What a survivor does with a lost node's holdings (its calls, its job leases), in the claim's transaction; answers what it took, for the log. */
export type TakeOver = (nodeId: string) => Record<string, number>;

/**
 * One look for nodes silent past NODE_LOST_AFTER_MS: each is claimed and taken over. Answers the nodes
 * this node took over. Only a node whose own beats have all landed for the bound (`steadySince`) looks:
 * after a database outage every node's heartbeat is stale, and the first one back must not declare the
 * others lost before they had the bound to beat again.
 */
export function takeOverLostNodes(ctx: AppContext, takeOver: TakeOver, steadySince: number): string[] {
  const silentBefore = ctx.clock.now() - NODE_LOST_AFTER_MS;
  if (steadySince > silentBefore) return [];
  return silentNodes(ctx, silentBefore).map((node) => node.id).filter((id) => takeOverNode(ctx, id, silentBefore, takeOver));
}

/** A node known to be gone (the one that served this data dir before this process): taken over now, if nobody has. */
export function takeOverDeadNode(ctx: AppContext, id: string, takeOver: TakeOver): boolean {
  return takeOverNode(ctx, id, null, takeOver);
}

/**
 * Claims a node and takes it over in one transaction: the claim's row lock makes other survivors wait
 * and then find it taken, and a survivor that dies halfway rolls its claim back with its work, so the
 * next look (its own or another node's) claims the node again.
 */
function takeOverNode(ctx: AppContext, id: string, silentBefore: number | null, takeOver: TakeOver): boolean {
  try {
    const taken = ctx.sqlite.transaction(() => (claimLostNode(ctx, id, silentBefore) ? takeOver(id) : null)).immediate();
    if (taken) {
      const node = findNode(ctx, id);
      ctx.logger.warn("a node was declared lost: this node took over its calls and job leases", { lost_node: id, name: node?.name, url: node?.url, silent_ms: node ? ctx.clock.now() - node.heartbeatAt : null, ...taken });
    }
    return taken !== null;
  } catch (error) {
    // Rolled back whole: the node stays claimable.
    ctx.logger[failureLevel(error)]("taking over a lost node failed", { lost_node: id, error });
    return false;
  }
}
