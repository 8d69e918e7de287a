import type { AppContext } from "../../core/context.ts";
import { DAY } from "../../lib/time.ts";
import type { Sweep } from "../../scheduler/system-sweeps.ts";

/** Rows deleted per transaction: ~3 ms of the event loop (and of the write lock) each, so live calls' 20 ms frames keep time. */
const CHUNK_ROWS = 1_000;

/**
 * With --audit-retention-days N, audit rows older than N days are deleted once an hour (0, the default,
 * keeps them all). Every API-key request leaves a row (~400 bytes with its indexes), so a busy
 * integration grows the database by hundreds of MB a day without one.
 */
export function auditRetentionSweeps(ctx: AppContext): Sweep[] {
  const days = ctx.config.auditRetentionDays;
  if (days === 0) return [];
  let running = false;
  return [
    {
      name: "audit retention",
      pattern: "41 * * * *",
      once: true,
      async run() {
        if (running) return; // a large backlog can outlast the hour
        running = true;
        try {
          const deleted = await deleteAuditBefore(ctx, ctx.clock.now() - days * DAY);
          if (deleted) ctx.logger.info("audit rows past their retention deleted", { rows: deleted, retention_days: days });
        } finally {
          running = false;
        }
      },
    },
  ];
}

/**
 * Deletes every committed audit row created before `cutoff` (epoch ms), workspace by workspace, a chunk
 * per transaction; answers how many. Rows still queued behind requests are seconds old, younger than any retention.
 */
export async function deleteAuditBefore(ctx: AppContext, cutoff: number): Promise<number> {
  // Through the (workspace_id, created_at) index, oldest first: a chunk never scans rows it keeps.
  const deleteChunk = ctx.sqlite.prepare(
    "DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE workspace_id = ? AND created_at < ? ORDER BY created_at LIMIT ?)",
  );
  const workspaceIds = ctx.sqlite.prepare("SELECT id FROM workspaces").pluck().all() as string[];
  let deleted = 0;
  for (const workspaceId of workspaceIds) {
    for (;;) {
      const { changes } = deleteChunk.run(workspaceId, cutoff, CHUNK_ROWS);
      deleted += changes;
      if (changes < CHUNK_ROWS) break;
      await new Promise((resolve) => setTimeout(resolve, 0)); // requests and calls go between chunks
    }
  }
  return deleted;
}
