import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../core/context.ts";

/**
 * The node that served this data dir before this process: answered once and replaced by this node's
 * id. A process holds its data dir's serve lock while it runs, so that node is gone (crashed, or
 * stopped cleanly and said so): its takeover need not wait for its heartbeat to go stale.
 */
export function previousNodeOfDataDir(ctx: AppContext): string | null {
  const file = join(ctx.dataDir.root, "node.id");
  let previous: string | null = null;
  try {
    previous = readFileSync(file, "utf8").trim() || null;
  } catch {
    // First start of this data dir.
  }
  writeFileSync(file, `${ctx.nodeId}\n`);
  return previous;
}
