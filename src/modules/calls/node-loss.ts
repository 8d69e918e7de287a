import { and, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { calls } from "../../db/schema/index.ts";
import { endCall, lostCallDuration } from "./lifecycle.ts";

/**
 * A lost node's calls lost their audio with it: each ends `failed` with `node_lost` (a ringing one too:
 * nothing can answer it any more), its terminal events once (endCall's conditional update decides
 * between this node and any other, the lost one's own late end included). Answers how many this ended.
 */
export function endCallsOfLostNode(ctx: AppContext, nodeId: string): number {
  const held = ctx.db.select().from(calls).where(and(eq(calls.nodeId, nodeId), inArray(calls.status, ["ringing", "in_progress"]))).all();
  let ended = 0;
  for (const call of held) if (endCall(ctx, call.id, { status: "failed", endReason: "node_lost", durationMs: lostCallDuration(ctx, call) })) ended++;
  return ended;
}
