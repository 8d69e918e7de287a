import type { AppContext } from "../../core/context.ts";
import { forgetCredentials } from "../../http/credential-cache.ts";
import { invalid, notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { isValidTimeZone } from "../../lib/time.ts";
import { findWorkspace, insertMember, insertWorkspace, updateWorkspace, type WorkspaceRow } from "./repo.ts";

export interface WorkspaceSettings {
  name?: string;
  timezone?: string;
  default_language?: string;
  default_country?: string | null;
}

/** Creates a workspace owned by `userId`. Call inside the caller's transaction. */
export function createWorkspaceWithOwner(ctx: AppContext, userId: string, input: WorkspaceSettings & { name: string }, options: { operator?: boolean } = {}): WorkspaceRow {
  checkSettings(input);
  const now = ctx.clock.now();
  const row: WorkspaceRow = {
    id: newId("ws"),
    name: input.name.trim(),
    timezone: input.timezone ?? "UTC",
    defaultLanguage: input.default_language ?? "en-US",
    defaultCountry: input.default_country ?? null,
    isOperator: options.operator ?? false,
    suspendedAt: null,
    suspendedReason: null,
    createdAt: now,
    updatedAt: now,
  };
  insertWorkspace(ctx.db, row);
  insertMember(ctx.db, { id: newId("mem"), workspaceId: row.id, userId, role: "owner", createdAt: now });
  return row;
}

export function getWorkspace(ctx: AppContext, workspaceId: string): WorkspaceRow {
  const row = findWorkspace(ctx.db, workspaceId);
  if (!row) throw notFound("workspace");
  return row;
}

export function updateWorkspaceSettings(ctx: AppContext, workspaceId: string, input: WorkspaceSettings): WorkspaceRow {
  checkSettings(input);
  if (input.name !== undefined && !input.name.trim()) throw invalid("name", "must not be blank");
  const changes: Partial<WorkspaceRow> = { updatedAt: ctx.clock.now() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.timezone !== undefined) changes.timezone = input.timezone;
  if (input.default_language !== undefined) changes.defaultLanguage = input.default_language;
  if (input.default_country !== undefined) changes.defaultCountry = input.default_country;
  updateWorkspace(ctx.db, workspaceId, changes);
  forgetCredentials(ctx);
  return getWorkspace(ctx, workspaceId);
}

function checkSettings(input: WorkspaceSettings): void {
  if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) throw invalid("timezone", `"${input.timezone}" is not an IANA time zone`);
  if (input.name !== undefined && input.name.trim().length === 0) throw invalid("name", "must not be blank");
}

