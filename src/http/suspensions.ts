import { isNotNull } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { workspaces } from "../db/schema/index.ts";
import { ApiError } from "./errors.ts";

const suspended = new WeakMap<AppContext, Set<string>>();

/**
 * The workspaces the operator suspended, read from the database once and then kept in step by the
 * operator's console (one process per data dir): every request and every call checks it in O(1).
 */
export function suspendedWorkspaces(ctx: AppContext): Set<string> {
  let ids = suspended.get(ctx);
  if (!ids) {
    ids = new Set(ctx.db.select({ id: workspaces.id }).from(workspaces).where(isNotNull(workspaces.suspendedAt)).all().map((row) => row.id));
    suspended.set(ctx, ids);
  }
  return ids;
}

export function assertNotSuspended(ctx: AppContext, workspaceId: string): void {
  if (suspendedWorkspaces(ctx).has(workspaceId)) {
    throw new ApiError("workspace_suspended", "this workspace is suspended by the operator of this instance: its keys, sessions and calls are stopped until it is resumed");
  }
}
