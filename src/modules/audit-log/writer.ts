import type { AppContext } from "../../core/context.ts";
import { auditLog } from "../../db/schema/index.ts";
import { newId } from "../../lib/ids.ts";

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

/** Queues an audit row; it commits with the next batch, so requests never wait for it. */
export function recordAudit(ctx: AppContext, entry: AuditEntry): void {
  const row = { id: newId("aud"), createdAt: ctx.clock.now(), ...entry };
  ctx.writeBehind.add(() => {
    ctx.db.insert(auditLog).values(row).run();
  });
}
