import { Elysia, ElysiaCustomStatusResponse } from "elysia";
import type { AppContext } from "../core/context.ts";
import { recordAudit } from "./audit-writer.ts";
import { redactedPath } from "./redaction.ts";
import { findRequestMeta } from "./request-meta.ts";
import type { RouteIndex } from "./route-index.ts";

/**
 * Every mutating request, and every API-key request, leaves an audit row in its workspace.
 * Queued before the response leaves (after the handler, or by the error handler), so a client
 * that reads the audit log next sees its previous request. Every route passes one of the two (early
 * answers from beforeHandle and WebSocket upgrades run afterHandle too): an after-response hook cost
 * every request a setImmediate, ~8 µs of the main thread under load, and the suite found nothing it caught.
 */
export function auditTrail(ctx: AppContext, routes: RouteIndex) {
  return new Elysia({ name: "parley.audit-trail" })
    .onAfterHandle({ as: "global" }, ({ request, route, responseValue, set }) => {
      auditRequest(ctx, routes, request, route, statusOf(responseValue, set.status));
    });
}

export function auditRequest(ctx: AppContext, routes: RouteIndex, request: Request, route: string, status: number): void {
  const meta = findRequestMeta(request);
  if (!meta || meta.audited) return;
  const principal = meta.principal;
  const workspaceId = principal?.workspaceId ?? meta.session?.workspaceId;
  if (!workspaceId) return;
  const mutating = request.method !== "GET" && request.method !== "HEAD";
  if (!mutating && principal?.kind !== "api_key") return;
  meta.audited = true;
  const operationId = (routes.find(request.method, route)?.hooks.detail as { operationId?: string } | undefined)?.operationId;
  recordAudit(ctx, {
    workspaceId,
    actorType: principal?.kind === "api_key" ? "api_key" : "user",
    actorId: principal?.apiKeyId ?? principal?.userId ?? meta.session?.userId ?? null,
    apiKeyId: principal?.apiKeyId ?? null,
    action: operationId ?? `${request.method} ${route}`,
    method: request.method,
    // A one-time token in the path (an invitation's) must not outlive its use in the log.
    path: redactedPath(route, pathOf(request.url)),
    status: meta.status ?? status,
    ip: meta.ip,
    userAgent: meta.userAgent,
    requestId: meta.id,
  });
}

/** The path of an absolute request URL, without parsing all of it. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** The status a route's answer carries (a Response, an Elysia status(), or set.status). */
export function statusOf(value: unknown, setStatus: number | string | undefined): number {
  if (value instanceof Response) return value.status;
  if (value instanceof ElysiaCustomStatusResponse) return value.code;
  return typeof setStatus === "number" ? setStatus : 200;
}
