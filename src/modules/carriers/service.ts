// Carrier connections (77–81): each kind checks its own settings; secrets are sealed before they are
// stored, and a connection is rebuilt as a live carrier when it changes.
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { carrierConnections } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { seal } from "../../lib/sealed.ts";
import { findConnectionRow, SIMULATED_CONNECTION_ID, unsealConnection, type CarrierConnectionRow } from "../../telephony/connections.ts";
import type { CarrierKind, PreparedConnection } from "../../telephony/kind.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import type { CarrierConnection } from "../../telephony/types.ts";

/** What still uses a connection (its numbers), one sentence each: it cannot be removed until none is left. */
export type CarrierUsage = (workspaceId: string, connectionId: string) => string[];

function kindOf(carriers: CarrierRegistry, name: string): CarrierKind {
  const kind = carriers.kind(name);
  if (!kind) throw invalid("kind", `this build has no carrier kind ${name}`);
  return kind;
}

const refuseBuiltIn = (id: string) => {
  if (id === SIMULATED_CONNECTION_ID) throw new ApiError("invalid_state", "the built-in simulated carrier cannot be changed or removed");
};

export function getCarrierConnection(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, id: string): CarrierConnection & { createdAt: number | null } {
  if (id === SIMULATED_CONNECTION_ID) return { ...carriers.connection(workspaceId, id)!, createdAt: null };
  const row = findConnectionRow(ctx, workspaceId, id);
  if (!row) throw notFound("carrier connection");
  return { ...unsealConnection(ctx, row), createdAt: row.createdAt };
}

export function createCarrierConnection(
  ctx: AppContext,
  carriers: CarrierRegistry,
  workspaceId: string,
  input: { name: string; kind: string; settings?: Record<string, unknown>; credentials?: Record<string, string> },
) {
  const prepared = kindOf(carriers, input.kind).prepare({ settings: input.settings ?? {}, credentials: input.credentials ?? {} }, { publicUrl: ctx.publicUrl, allowPrivateUrls: ctx.config.allowPrivateUrls });
  const now = ctx.clock.now();
  const row: CarrierConnectionRow = {
    id: newId("car"),
    workspaceId,
    name: input.name.trim(),
    kind: input.kind,
    settings: prepared.settings,
    credentials: seal(ctx.keys.encryption, JSON.stringify(prepared.credentials)),
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(carrierConnections).values(row).run();
  carriers.changed(workspaceId, row.id);
  return getCarrierConnection(ctx, carriers, workspaceId, row.id);
}

/** Keys set to null are removed; the rest replace or add. */
function merged<T>(current: Record<string, T>, changes: Record<string, T | null> | undefined): Record<string, T> {
  if (!changes) return current;
  const next = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

export function updateCarrierConnection(
  ctx: AppContext,
  carriers: CarrierRegistry,
  workspaceId: string,
  id: string,
  input: { name?: string; settings?: Record<string, unknown>; credentials?: Record<string, string | null> },
) {
  refuseBuiltIn(id);
  const current = getCarrierConnection(ctx, carriers, workspaceId, id);
  const changes: Partial<CarrierConnectionRow> = { updatedAt: ctx.clock.now() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.settings !== undefined || input.credentials !== undefined) {
    const next: PreparedConnection = { settings: merged(current.settings, input.settings as Record<string, unknown | null>), credentials: merged(current.credentials, input.credentials) };
    const prepared = kindOf(carriers, current.kind).prepare(next, { publicUrl: ctx.publicUrl, allowPrivateUrls: ctx.config.allowPrivateUrls });
    changes.settings = prepared.settings;
    changes.credentials = seal(ctx.keys.encryption, JSON.stringify(prepared.credentials));
  }
  ctx.db.update(carrierConnections).set(changes).where(and(eq(carrierConnections.workspaceId, workspaceId), eq(carrierConnections.id, id))).run();
  carriers.changed(workspaceId, id);
  return getCarrierConnection(ctx, carriers, workspaceId, id);
}

/** Refused while numbers are on it: their calls would have no way out. */
export function deleteCarrierConnection(ctx: AppContext, carriers: CarrierRegistry, usage: CarrierUsage, workspaceId: string, id: string): void {
  refuseBuiltIn(id);
  getCarrierConnection(ctx, carriers, workspaceId, id);
  const users = usage(workspaceId, id);
  if (users.length) throw new ApiError("resource_in_use", `the connection is still used: ${users.join("; ")}`);
  ctx.db.delete(carrierConnections).where(and(eq(carrierConnections.workspaceId, workspaceId), eq(carrierConnections.id, id))).run();
  carriers.changed(workspaceId, id);
}
