import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { providerConnections } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { seal, unseal } from "../../lib/sealed.ts";
import { checkUrlShape, OutboundRefused } from "../../net/outbound.ts";
import { checkConnection } from "../../providers/check.ts";
import { connectionOf, DEFAULT_BASE_URLS } from "../../providers/connection.ts";
import { findProvider, type ProviderKind, type ProviderRow } from "../../providers/store.ts";

function checkBaseUrl(ctx: AppContext, kind: ProviderKind, url: string | null | undefined): string | null {
  if (!url) {
    if (!DEFAULT_BASE_URLS[kind]) throw invalid("base_url", `is required for ${kind} (e.g. https://api.openai.com/v1 or http://localhost:11434/v1)`);
    return null;
  }
  try {
    return checkUrlShape(url, { allowPrivate: ctx.config.allowPrivateUrls }).toString().replace(/\/+$/, "");
  } catch (error) {
    if (error instanceof OutboundRefused) throw invalid("base_url", error.message);
    throw error;
  }
}

export function lastFour(ctx: AppContext, row: ProviderRow): string | null {
  return row.apiKey ? unseal(ctx.keys.encryption, row.apiKey).slice(-4) : null;
}

export function createProvider(ctx: AppContext, workspaceId: string, input: { name: string; kind: ProviderKind; base_url?: string; api_key?: string; settings?: Record<string, unknown> }) {
  if ((input.kind === "deepgram" || input.kind === "elevenlabs") && !input.api_key) throw invalid("api_key", `is required for ${input.kind}`);
  const now = ctx.clock.now();
  const row: ProviderRow = {
    id: newId("prv"),
    workspaceId,
    name: input.name.trim(),
    kind: input.kind,
    baseUrl: checkBaseUrl(ctx, input.kind, input.base_url),
    apiKey: input.api_key ? seal(ctx.keys.encryption, input.api_key) : null,
    settings: input.settings ?? {},
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(providerConnections).values(row).run();
  return row;
}

export function getProvider(ctx: AppContext, workspaceId: string, id: string): ProviderRow {
  const row = findProvider(ctx.db, workspaceId, id);
  if (!row) throw notFound("provider connection");
  return row;
}

export function updateProvider(ctx: AppContext, workspaceId: string, id: string, input: { name?: string; base_url?: string | null; api_key?: string | null; settings?: Record<string, unknown> }) {
  const current = getProvider(ctx, workspaceId, id);
  const changes: Partial<ProviderRow> = { updatedAt: ctx.clock.now() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.base_url !== undefined) changes.baseUrl = checkBaseUrl(ctx, current.kind, input.base_url);
  if (input.api_key !== undefined) changes.apiKey = input.api_key === null ? null : seal(ctx.keys.encryption, input.api_key);
  if (input.settings !== undefined) changes.settings = input.settings;
  ctx.db.update(providerConnections).set(changes).where(and(eq(providerConnections.workspaceId, workspaceId), eq(providerConnections.id, id))).run();
  return getProvider(ctx, workspaceId, id);
}

/** Refused while an agent or knowledge base still uses it. */
export function deleteProvider(ctx: AppContext, workspaceId: string, id: string, agentsUsing: (workspaceId: string, id: string) => { id: string; name: string }[]): void {
  getProvider(ctx, workspaceId, id);
  const agents = agentsUsing(workspaceId, id);
  const kbs = ctx.sqlite.prepare("SELECT id, name FROM knowledge_bases WHERE workspace_id = ? AND embedder_provider = ?").all(workspaceId, id) as { id: string; name: string }[];
  const users = [...agents, ...kbs].map((u) => `${u.name} (${u.id})`);
  if (users.length) throw new ApiError("resource_in_use", `the connection is used by ${users.join(", ")}`);
  ctx.db.delete(providerConnections).where(and(eq(providerConnections.workspaceId, workspaceId), eq(providerConnections.id, id))).run();
}

export function checkProvider(ctx: AppContext, workspaceId: string, id: string) {
  return checkConnection(connectionOf(ctx, getProvider(ctx, workspaceId, id)));
}
