import type { Statement } from "better-sqlite3";
import type { AppContext } from "../core/context.ts";

/** What became of a delivery attempt: delivered, failed and to be tried again, or the delivery settled as failed (a dead letter) or discarded (its event or target is gone). */
export type DeliveryOutcome = "delivered" | "retried" | "failed" | "discarded";
const OUTCOMES: DeliveryOutcome[] = ["delivered", "retried", "failed", "discarded"];

function deliveries(ctx: AppContext) {
  return ctx.metrics.counter("parley_webhook_deliveries_total", "Webhook delivery attempts by outcome: delivered (2xx), retried (failed, tried again later), failed (given up: a dead letter), discarded (its event or destination is gone).", ["outcome"]);
}

export function countDelivery(ctx: AppContext, outcome: DeliveryOutcome): void {
  deliveries(ctx).labels(outcome).inc();
}

// Per workspace, a seek into webhook_deliveries_state_idx (workspace_id, state, …): no scan of the deliveries themselves.
const deadLetterCounts = new WeakMap<AppContext["sqlite"], Statement<[]>>();

/** Declares the delivery counters and reads the dead letters at each scrape. */
export function webhookMetrics(ctx: AppContext): void {
  const family = deliveries(ctx);
  for (const outcome of OUTCOMES) family.labels(outcome);
  const deadLetters = ctx.metrics.gauge("parley_webhook_dead_letters", "Webhook deliveries that failed for good and wait in the dead letters (listed and replayable), across workspaces.").labels();
  ctx.metrics.onCollect("webhooks", () => {
    let statement = deadLetterCounts.get(ctx.sqlite);
    if (!statement) {
      statement = ctx.sqlite.prepare("SELECT coalesce(sum((SELECT count(*) FROM webhook_deliveries d WHERE d.workspace_id = w.id AND d.state = 'failed')), 0) AS n FROM workspaces w");
      deadLetterCounts.set(ctx.sqlite, statement);
    }
    deadLetters.set((statement.get() as { n: number }).n);
  });
}
