import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { tools } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { seal, unseal } from "../../lib/sealed.ts";
import { newWebhookSecret } from "../../webhooks/signing.ts";
import { checkOutboundUrlField } from "../../http/url-field.ts";
import { toolConfigOf, type ToolConfig } from "./models.ts";
import { findTool, type ToolRow } from "./repo.ts";

type ToolInput = Partial<ToolConfig> & { headers?: Record<string, string> };

function complete(input: ToolInput & Pick<ToolConfig, "name" | "description" | "url">): ToolConfig {
  return {
    name: input.name,
    description: input.description,
    url: input.url,
    parameters: input.parameters ?? { type: "object", properties: {} },
    timeout_ms: input.timeout_ms ?? 5000,
    response_path: input.response_path ?? null,
    messages: input.messages ?? {},
  };
}

function stored(config: ToolConfig): Record<string, unknown> {
  const { name: _name, ...rest } = config;
  return rest;
}

function nameTaken(ctx: AppContext, workspaceId: string, name: string, except?: string): boolean {
  const row = ctx.db.select({ id: tools.id }).from(tools).where(and(eq(tools.workspaceId, workspaceId), eq(tools.name, name))).get();
  return Boolean(row && row.id !== except);
}

export function headerNames(ctx: AppContext, row: ToolRow): string[] {
  return row.headers ? Object.keys(JSON.parse(unseal(ctx.keys.encryption, row.headers))) : [];
}

export function createTool(ctx: AppContext, workspaceId: string, input: ToolInput & Pick<ToolConfig, "name" | "description" | "url">) {
  const config = complete(input);
  config.url = checkOutboundUrlField(ctx, "url", config.url);
  if (nameTaken(ctx, workspaceId, config.name)) throw new ApiError("name_taken", `a tool named ${config.name} already exists`, { errors: [{ field: "name", message: "is taken in this workspace" }] });
  const secret = newWebhookSecret();
  const now = ctx.clock.now();
  const row: ToolRow = {
    id: newId("tool"),
    workspaceId,
    name: config.name,
    config: stored(config),
    secret: seal(ctx.keys.encryption, secret),
    headers: input.headers && Object.keys(input.headers).length ? seal(ctx.keys.encryption, JSON.stringify(input.headers)) : null,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(tools).values(row).run();
  return { row, secret };
}

export function getTool(ctx: AppContext, workspaceId: string, id: string): ToolRow {
  const row = findTool(ctx.db, workspaceId, id);
  if (!row) throw notFound("tool");
  return row;
}

export function updateTool(ctx: AppContext, workspaceId: string, id: string, input: ToolInput): ToolRow {
  const current = getTool(ctx, workspaceId, id);
  const { headers, ...changes } = input;
  const config = { ...toolConfigOf(current), ...changes } as ToolConfig;
  if (changes.url !== undefined) config.url = checkOutboundUrlField(ctx, "url", changes.url);
  if (changes.name !== undefined && nameTaken(ctx, workspaceId, changes.name, id)) throw invalid("name", "is taken in this workspace");
  const update: Partial<ToolRow> = { name: config.name, config: stored(config), updatedAt: ctx.clock.now() };
  if (headers !== undefined) update.headers = Object.keys(headers).length ? seal(ctx.keys.encryption, JSON.stringify(headers)) : null;
  ctx.db.update(tools).set(update).where(and(eq(tools.workspaceId, workspaceId), eq(tools.id, id))).run();
  return getTool(ctx, workspaceId, id);
}

/** A tool an agent still lists cannot go: the agent would break mid-call. */
export function deleteTool(ctx: AppContext, workspaceId: string, id: string, usedBy: string[]): void {
  getTool(ctx, workspaceId, id);
  if (usedBy.length) throw new ApiError("resource_in_use", `the tool is used by ${usedBy.join(", ")}; remove it from those agents first`);
  ctx.db.delete(tools).where(and(eq(tools.workspaceId, workspaceId), eq(tools.id, id))).run();
}
