import { isNotNull } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { workspaces } from "../db/schema/index.ts";
import { ApiError } from "./errors.ts";

const suspended = new WeakMap<AppContext, Set<string>>();

/**
 * The workspaces the operator suspended, read from the database once and then kept in step by the
 * operator's console (and, in a cluster, read again: refreshSuspendedWorkspaces): every request and
 * every call checks it in O(1).
 */
export function suspendedWorkspaces(ctx: AppContext): Set<string> {
  let ids = suspended.get(ctx);
  if (!ids) {
    ids = new Set(readSuspended(ctx));
    suspended.set(ctx, ids);
  }
  return ids;
}

function readSuspended(ctx: AppContext): string[] {
  return ctx.db.select({ id: workspaces.id }).from(workspaces).where(isNotNull(workspaces.suspendedAt)).all().map((row) => row.id);
}

/**
 * Reads the set again from the database: in a cluster another node's console suspends or resumes a
 * workspace, and this node must follow (server.ts every few seconds, and at once when told).
 */
export function refreshSuspendedWorkspaces(ctx: AppContext): void {
  const ids = suspendedWorkspaces(ctx);
  const now = new Set(readSuspended(ctx));
  for (const id of ids) if (!now.has(id)) ids.delete(id);
  for (const id of now) ids.add(id);
}

export function assertNotSuspended(ctx: AppContext, workspaceId: string): void {
  if (suspendedWorkspaces(ctx).has(workspaceId)) {
    throw new ApiError("workspace_suspended", "this workspace is suspended by the operator of this instance: its keys, sessions and calls are stopped until it is resumed");
  }
}
