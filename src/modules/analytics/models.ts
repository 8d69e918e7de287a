import { t } from "elysia";
import { OneOf, Timestamp } from "../../http/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const Ms = t.Union([t.Integer(), t.Null()]);
export const LatencyPercentiles = t.Object(
  { samples: t.Integer({ description: "Agent turns measured" }), p50_ms: Ms, p95_ms: Ms, p99_ms: Ms },
  { description: "End-to-end response latency of the agent's turns (caller stops speaking → first agent audio); null without samples" },
);

const Outcomes = t.Record(t.String(), t.Integer(), { description: "Calls by final status (`completed`, `failed`, `busy`, `no_answer`, …; `live` for calls not ended yet)" });

const Figures = {
  calls: t.Integer(),
  answered: t.Integer({ description: "Calls that reached the agent" }),
  seconds: t.Integer({ description: "Talk time of the answered calls" }),
  minutes: t.Number({ description: "`seconds` / 60, one decimal" }),
  outcomes: Outcomes,
  latency: LatencyPercentiles,
};

export const CallAnalytics = t.Object({
  object: t.Literal("call_analytics"),
  from: Timestamp,
  to: Timestamp,
  interval: OneOf(["hour", "day", "week"]),
  totals: t.Object(Figures),
  series: t.Array(t.Object({ start: Timestamp, ...Figures }), { description: "One bucket per interval from `from`, empty ones included (UTC; weeks start on Monday)" }),
  by_agent: t.Array(t.Object({ agent_id: t.String(), ...Figures }), { description: "Busiest first" }),
});

export const AnalyticsQuery = t.Object({
  from: t.Optional(t.String({ format: "date-time", description: "Start (inclusive); default 30 days before `to`" })),
  to: t.Optional(t.String({ format: "date-time", description: "End (exclusive); default now" })),
  interval: t.Optional(OneOf(["hour", "day", "week"], { description: "Bucket size of `series` (default day)" })),
  agent_id: t.Optional(t.String({ description: "Only this agent's calls" })),
});

nameSchemas({ CallAnalytics, LatencyPercentiles });
