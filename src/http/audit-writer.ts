import type { AppContext } from "../core/context.ts";
import { newTimeOrderedId } from "../lib/ids.ts";

export interface AuditEntry {
  workspaceId: string;
  actorType: "user" | "api_key" | "system";
  actorId: string | null;
  apiKeyId: string | null;
  action: string;
  method: string;
  path: string;
  status: number;
  ip: string | null;
  userAgent: string | null;
  requestId: string;
}

const COLUMNS = ["id", "workspace_id", "actor_type", "actor_id", "api_key_id", "action", "method", "path", "status", "ip", "user_agent", "request_id", "created_at"];

// Written for every API-key request: a plain statement, bound by position, skips the query builder.
const INSERT_AUDIT = `INSERT INTO audit_log (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`;

/** Queues an audit row; it commits with the next batch, so requests never wait for it. */
export function recordAudit(ctx: AppContext, entry: AuditEntry): void {
  const now = ctx.clock.now();
  const values = [
    newTimeOrderedId("aud", now),
    entry.workspaceId,
    entry.actorType,
    entry.actorId,
    entry.apiKeyId,
    entry.action,
    entry.method,
    entry.path,
    entry.status,
    entry.ip,
    entry.userAgent,
    entry.requestId,
    now,
  ];
  ctx.writeBehind.add(INSERT_AUDIT, values);
}
