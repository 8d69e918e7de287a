import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { invalid, notFound } from "../../http/errors.ts";
import { IdParam, Timestamp } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { parseIso, toIso } from "../../lib/time.ts";
import { findAudit, listAudit, type AuditRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const doc = docsFor("Audit log");

export const AuditEntry = t.Object({
  id: t.String({ description: "`aud_…`" }),
  object: t.Literal("audit_entry"),
  actor_type: t.Union([t.Literal("user"), t.Literal("api_key"), t.Literal("system")]),
  actor_id: t.Union([t.String(), t.Null()], { description: "User id or API key id" }),
  api_key_id: t.Union([t.String(), t.Null()]),
  action: t.String({ description: "The operation's operationId, e.g. `createApiKey`" }),
  method: t.String(),
  path: t.String(),
  status: t.Integer(),
  ip: t.Union([t.String(), t.Null()]),
  user_agent: t.Union([t.String(), t.Null()]),
  request_id: t.String(),
  created_at: Timestamp,
});

const AuditQuery = t.Object({
  ...listQuery,
  key_id: t.Optional(t.String({ description: "Only requests made with this API key (confirm traffic on a new key during rotation)" })),
  actor_id: t.Optional(t.String({ description: "Only this user or key" })),
  action: t.Optional(t.String({ description: "Only this operation, e.g. `createApiKey`" })),
  from: t.Optional(t.String({ format: "date-time", description: "Inclusive lower bound (ISO 8601)" })),
  to: t.Optional(t.String({ format: "date-time", description: "Exclusive upper bound (ISO 8601)" })),
});

function auditJson(row: AuditRow) {
  return {
    id: row.id,
    object: "audit_entry" as const,
    actor_type: row.actorType,
    actor_id: row.actorId,
    api_key_id: row.apiKeyId,
    action: row.action,
    method: row.method,
    path: row.path,
    status: row.status,
    ip: row.ip,
    user_agent: row.userAgent,
    request_id: row.requestId,
    created_at: toIso(row.createdAt),
  };
}

function timeFilter(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseIso(value);
  if (ms === null) throw invalid(field, "must be an ISO 8601 date-time");
  return ms;
}

export function auditLogRoutes(ctx: HttpContext) {
  return new Elysia({ prefix: "/v1/audit-log" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) => {
        ctx.writeBehind.flush(); // rows are written behind; a reader must see its own recent requests
        const page = pageRequest(query);
        const filter = { apiKeyId: query.key_id, actorId: query.actor_id, action: query.action, from: timeFilter("from", query.from), to: timeFilter("to", query.to) };
        return toPage(listAudit(ctx.db, principal.workspaceId, filter, page), page, (r) => ({ at: r.createdAt, id: r.id }), auditJson);
      },
      { auth: "admin", query: AuditQuery, response: { 200: ListOf(AuditEntry) }, detail: doc("listAuditLog", "Who did what, with which key, from where; filter by key, actor, action, time") },
    )
    .get(
      "/:id",
      ({ principal, params }) => {
        ctx.writeBehind.flush();
        const row = findAudit(ctx.db, principal.workspaceId, params.id);
        if (!row) throw notFound("audit entry");
        return auditJson(row);
      },
      { auth: "admin", params: IdParam, response: { 200: AuditEntry }, detail: doc("getAuditEntry", "One audit entry") },
    );
}

nameSchemas({ AuditEntry });
