import { databaseRefusal, type Refusal } from "../db/refusals.ts";
import type { MetricsRegistry } from "./metrics.ts";

/** Where a refused write was met and handled: an API request (503), the job runner, a live call's report, metering, a sweep, the write-behind. */
const REFUSAL_SITES = ["http", "jobs", "calls", "metering", "sweeps", "write_behind"] as const;
export type RefusalSite = (typeof REFUSAL_SITES)[number];

function refusalsMetric(metrics: MetricsRegistry) {
  return metrics.counter("parley_db_refusals_total", "Writes the database refused for a while (busy: another connection held the write lock past the busy timeout; full: the disk is full; io: the disk failed; unavailable: the PostgreSQL server could not be reached), by where they were met.", ["site", "kind"]);
}

/** Declares the counter with each site's busy series at 0 (the refusal an operator alerts on). */
export function refusalMetrics(metrics: MetricsRegistry): void {
  const family = refusalsMetric(metrics);
  for (const site of REFUSAL_SITES) family.labels(site, "busy");
}

/** Counts `error` when it is a refusal (anything else is a defect, logged where it happens). */
export function countRefusal(metrics: MetricsRegistry, site: RefusalSite, error: unknown): void {
  const kind = databaseRefusal(error);
  if (kind) countRefusalKind(metrics, site, kind);
}

export function countRefusalKind(metrics: MetricsRegistry, site: RefusalSite, kind: Refusal): void {
  refusalsMetric(metrics).labels(site, kind).inc();
}
