import type { Static } from "@sinclair/typebox";
import { and, eq, gte, isNull, lt, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { callEvents, calls, LIVE_STATUSES } from "../../db/schema/index.ts";
import { invalid } from "../../http/errors.ts";
import { periodOf } from "../../http/period.ts";
import { DAY, HOUR, toIso } from "../../lib/time.ts";
import type { CallAnalytics } from "./models.ts";

type Interval = "hour" | "day" | "week";
const SIZE: Record<Interval, number> = { hour: HOUR, day: DAY, week: 7 * DAY };
/** 1970-01-05, the first Monday after the epoch: weeks are aligned on it. */
const MONDAY = 4 * DAY;
const MAX_BUCKETS = 2_000;

interface Figures {
  calls: number;
  answered: number;
  seconds: number;
  outcomes: Record<string, number>;
  latencies: number[];
}

const empty = (): Figures => ({ calls: 0, answered: 0, seconds: 0, outcomes: {}, latencies: [] });

/** Volume, talk time, outcomes and response latency of a workspace's calls in [from, to), over time and per agent. */
export function callAnalytics(ctx: AppContext, workspaceId: string, query: { from?: string; to?: string; interval?: Interval; agent_id?: string }): Static<typeof CallAnalytics> {
  const { from, to } = periodOf(query, ctx.clock.now());
  const interval = query.interval ?? "day";
  const size = SIZE[interval];
  const origin = interval === "week" ? Math.floor((from - MONDAY) / size) * size + MONDAY : Math.floor(from / size) * size;
  const buckets = Math.ceil((to - origin) / size);
  if (buckets > MAX_BUCKETS) throw invalid("interval", `${buckets} ${interval}s is too many buckets (at most ${MAX_BUCKETS}): pick a larger interval or a shorter period`);

  // Agent tests' calls are not the business's calls: left out of every figure.
  const inRange = and(eq(calls.workspaceId, workspaceId), gte(calls.createdAt, from), lt(calls.createdAt, to), isNull(calls.testRunId), query.agent_id ? eq(calls.agentId, query.agent_id) : undefined);
  const rows = ctx.db.select({ id: calls.id, agentId: calls.agentId, status: calls.status, answeredAt: calls.answeredAt, durationMs: calls.durationMs, createdAt: calls.createdAt }).from(calls).where(inRange).all();
  const latency = new Map<string, number[]>();
  const events = ctx.db
    .select({ callId: callEvents.callId, value: sql<number | null>`json_extract(${callEvents.data}, '$.end_to_end_ms')` })
    .from(callEvents)
    .innerJoin(calls, eq(calls.id, callEvents.callId))
    .where(and(inRange, eq(callEvents.type, "latency")))
    .all();
  for (const event of events) if (typeof event.value === "number") latency.set(event.callId, [...(latency.get(event.callId) ?? []), event.value]);

  const totals = empty();
  const series = Array.from({ length: buckets }, empty);
  const agents = new Map<string, Figures>();
  for (const call of rows) {
    const agent = agents.get(call.agentId) ?? empty();
    agents.set(call.agentId, agent);
    for (const figures of [totals, series[Math.floor((call.createdAt - origin) / size)], agent]) add(figures, call, latency.get(call.id) ?? []);
  }
  return {
    object: "call_analytics",
    from: toIso(from),
    to: toIso(to),
    interval,
    totals: report(totals),
    series: series.map((figures, i) => ({ start: toIso(origin + i * size), ...report(figures) })),
    by_agent: [...agents].sort(([, a], [, b]) => b.calls - a.calls).map(([agentId, figures]) => ({ agent_id: agentId, ...report(figures) })),
  };
}

function add(figures: Figures, call: { status: string; answeredAt: number | null; durationMs: number | null }, latencies: number[]): void {
  figures.calls++;
  if (call.answeredAt !== null) figures.answered++;
  figures.seconds += Math.round((call.durationMs ?? 0) / 1000);
  const outcome = (LIVE_STATUSES as string[]).includes(call.status) ? "live" : call.status;
  figures.outcomes[outcome] = (figures.outcomes[outcome] ?? 0) + 1;
  figures.latencies.push(...latencies);
}

function report(figures: Figures) {
  const sorted = [...figures.latencies].sort((a, b) => a - b);
  const rank = (p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]) : null);
  return {
    calls: figures.calls,
    answered: figures.answered,
    seconds: figures.seconds,
    minutes: Math.round((figures.seconds / 60) * 10) / 10,
    outcomes: figures.outcomes,
    latency: { samples: sorted.length, p50_ms: rank(50), p95_ms: rank(95), p99_ms: rank(99) },
  };
}
