import { eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { workspaces } from "../../db/schema/index.ts";
import { ApiError, notFound } from "../../http/errors.ts";
import { suspendedWorkspaces } from "../../http/suspensions.ts";

type WorkspaceRow = typeof workspaces.$inferSelect;

/** What suspending needs from the calls feature (handed over by the composition root). */
export type StopWorkspaceCalls = (workspaceId: string, reason: string) => Promise<number>;

function tenant(ctx: AppContext, id: string): WorkspaceRow {
  const row = ctx.db.select().from(workspaces).where(eq(workspaces.id, id)).get();
  if (!row) throw notFound("workspace");
  return row;
}

/** Its keys and sessions are refused from the next request on, and its calls end now. */
export async function suspendTenant(ctx: AppContext, id: string, reason: string, stopCalls: StopWorkspaceCalls): Promise<WorkspaceRow> {
  const row = tenant(ctx, id);
  if (row.isOperator) throw new ApiError("invalid_state", "the operator's own workspace cannot be suspended");
  const now = ctx.clock.now();
  ctx.db.update(workspaces).set({ suspendedAt: row.suspendedAt ?? now, suspendedReason: reason, updatedAt: now }).where(eq(workspaces.id, id)).run();
  suspendedWorkspaces(ctx).add(id);
  const stopped = await stopCalls(id, "workspace_suspended");
  ctx.logger.info("workspace suspended", { workspace_id: id, reason, calls_stopped: stopped });
  return tenant(ctx, id);
}

export function resumeTenant(ctx: AppContext, id: string): WorkspaceRow {
  tenant(ctx, id);
  ctx.db.update(workspaces).set({ suspendedAt: null, suspendedReason: null, updatedAt: ctx.clock.now() }).where(eq(workspaces.id, id)).run();
  suspendedWorkspaces(ctx).delete(id);
  return tenant(ctx, id);
}
