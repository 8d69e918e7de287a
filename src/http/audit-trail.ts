import { Elysia, ElysiaCustomStatusResponse } from "elysia";
import type { AppContext } from "../core/context.ts";
import { recordAudit } from "../modules/audit-log/writer.ts";
import { findRequestMeta } from "./request-meta.ts";
import type { RouteIndex } from "./route-index.ts";

/** Every mutating request, and every API-key request, leaves an audit row in its workspace. */
export function auditTrail(ctx: AppContext, routes: RouteIndex) {
  return new Elysia({ name: "parley.audit-trail" }).onAfterResponse({ as: "global" }, ({ request, route, responseValue, set }) => {
    const meta = findRequestMeta(request);
    if (!meta) return;
    const principal = meta.principal;
    const workspaceId = principal?.workspaceId ?? meta.session?.workspaceId;
    if (!workspaceId) return;
    const mutating = request.method !== "GET" && request.method !== "HEAD";
    if (!mutating && principal?.kind !== "api_key") return;
    const info = routes.find(request.method, route);
    const operationId = (info?.hooks.detail as { operationId?: string } | undefined)?.operationId;
    const actorUser = principal?.userId ?? meta.session?.userId ?? null;
    recordAudit(ctx, {
      workspaceId,
      actorType: principal?.kind === "api_key" ? "api_key" : "user",
      actorId: principal?.apiKeyId ?? actorUser,
      apiKeyId: principal?.apiKeyId ?? null,
      action: operationId ?? `${request.method} ${route}`,
      method: request.method,
      path: new URL(request.url).pathname,
      status: meta.status ?? statusOf(responseValue, set.status),
      ip: meta.ip,
      userAgent: meta.userAgent,
      requestId: meta.id,
    });
  });
}

function statusOf(value: unknown, setStatus: number | string | undefined): number {
  if (value instanceof Response) return value.status;
  if (value instanceof ElysiaCustomStatusResponse) return value.code;
  return typeof setStatus === "number" ? setStatus : 200;
}
