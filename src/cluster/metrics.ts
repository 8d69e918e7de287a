import type { AppContext } from "../core/context.ts";
import { liveNodes } from "./nodes.ts";

/** The nodes that heartbeat within the bound, read at each scrape: a fall below the count deployed is a node lost. */
export function clusterMetrics(ctx: AppContext): void {
  const live = ctx.metrics.gauge("parley_cluster_live_nodes", "Nodes serving this database that heartbeat within the bound (this one included), read at scrape.").labels();
  ctx.metrics.onCollect("cluster", () => live.set(liveNodes(ctx).length));
}
