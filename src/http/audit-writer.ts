import { sql } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { prepared } from "../db/prepared.ts";
import { auditLog } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";

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

type AuditRow = AuditEntry & { id: string; createdAt: number };

const COLUMNS = ["id", "workspaceId", "actorType", "actorId", "apiKeyId", "action", "method", "path", "status", "ip", "userAgent", "requestId", "createdAt"] as const;

const insertAudit = prepared((db) =>
  db
    .insert(auditLog)
    .values(Object.fromEntries(COLUMNS.map((column) => [column, sql.placeholder(column)])) as unknown as typeof auditLog.$inferInsert)
    .prepare(),
);

/** Queues an audit row; it commits with the next batch, so requests never wait for it. */
export function recordAudit(ctx: AppContext, entry: AuditEntry): void {
  const row: AuditRow = { id: newId("aud"), createdAt: ctx.clock.now(), ...entry };
  ctx.writeBehind.add(() => {
    insertAudit(ctx.db).run(row as unknown as Record<string, unknown>);
  });
}
