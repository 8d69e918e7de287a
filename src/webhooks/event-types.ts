import { t, type TSchema } from "elysia";

/** Set A, the call lifecycle, sent to the agent's webhook_url. */
export const AGENT_EVENT_TYPES = ["call.started", "call.transcript", "call.ended", "call.error", "call.transfer"] as const;
/** Set B, outcomes, sent to the workspace endpoints subscribed to them. */
export const WORKSPACE_EVENT_TYPES = ["call.completed", "call.transferred", "call.failed", "campaign.completed", "payment.succeeded", "test_run.completed"] as const;
/** Sent only by "send test event" on an endpoint or an agent. */
export const TEST_EVENT_TYPE = "webhook.test";

export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];
export type WorkspaceEventType = (typeof WORKSPACE_EVENT_TYPES)[number];

const Iso = t.String({ format: "date-time" });
const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

const Turn = t.Object({
  role: t.Union([t.Literal("agent"), t.Literal("caller")]),
  text: t.String(),
  start_ms: t.Integer({ description: "From the start of the call" }),
  end_ms: t.Integer(),
  interrupted: t.Boolean({ description: "The caller spoke over it; `text` holds only what was played" }),
});

const CallParties = {
  call_id: t.String(),
  agent_id: t.String(),
  direction: t.Union([t.Literal("inbound"), t.Literal("outbound"), t.Literal("web")]),
  from: Nullable(t.String({ description: "E.164" })),
  to: Nullable(t.String({ description: "E.164" })),
};

const CallOutcome = t.Object({
  ...CallParties,
  status: t.String({ description: "completed, transferred, failed, no_answer, busy, canceled" }),
  end_reason: Nullable(t.String()),
  started_at: Nullable(Iso),
  ended_at: Iso,
  duration_seconds: t.Integer(),
  transcript: t.String({ description: "Speaker-labelled lines, one per turn: `Agent: …` / `Caller: …` (as the specification gives it)" }),
  transcript_turns: t.Array(Turn, { description: "The same transcript as structured turns (role, text, start_ms, end_ms, interrupted)" }),
  extracted: t.Record(t.String(), t.Unknown(), { description: "The agent's extraction fields" }),
  summary: Nullable(t.String()),
  recording_url: Nullable(t.String()),
  metadata: t.Record(t.String(), t.Unknown()),
});

/** The `data` of every event type, published in the OpenAPI document's `webhooks` section. */
export const EVENT_DATA: Record<string, TSchema> = {
  "call.started": t.Object({ ...CallParties, started_at: Iso }),
  "call.transcript": t.Object({ turn: t.Integer({ description: "0-based turn index" }), ...Turn.properties }),
  "call.ended": t.Object({
    status: t.String(),
    end_reason: Nullable(t.String()),
    duration_ms: t.Integer(),
    transcript_url: t.String(),
    recording_url: Nullable(t.String()),
  }),
  "call.error": t.Object({ code: t.String(), message: t.String(), fatal: t.Boolean({ description: "Whether the call ended because of it" }) }),
  "call.transfer": t.Object({ to: t.String({ description: "E.164 or SIP URI" }), reason: Nullable(t.String()) }),
  "call.completed": CallOutcome,
  "call.transferred": t.Composite([CallOutcome, t.Object({ transferred_to: t.String() })]),
  "call.failed": CallOutcome,
  "campaign.completed": t.Object({
    campaign_id: t.String(),
    name: t.String(),
    completed_at: Iso,
    counts: t.Record(t.String(), t.Integer(), { description: "Contacts per final state" }),
    calls: t.Integer(),
    minutes: t.Number(),
  }),
  "payment.succeeded": t.Object({
    payment_id: t.String(),
    provider: t.String({ description: "`stripe` or `offline`" }),
    kind: t.String({ description: "`topup`, `auto_recharge` or `credit` (the operator's)" }),
    amount: t.Integer({ description: "Micro-units of the instance currency added to the wallet" }),
    amount_minor: t.Integer({ description: "What was paid, in minor units of the currency (cents)" }),
    currency: t.String(),
    balance: t.Integer({ description: "Wallet balance after the payment, micro-units" }),
  }),
  "test_run.completed": t.Object({
    run_id: t.String({ description: "`trun_…`; GET /v1/agents/{agent_id}/test-runs/{run_id} gives every case's result" }),
    agent_id: t.String(),
    agent_version: t.Integer(),
    status: t.String({ description: "passed (every case passed), failed (any failed or could not be run) or canceled" }),
    total: t.Integer(),
    passed: t.Integer(),
    failed: t.Integer(),
    errored: t.Integer(),
    canceled: t.Integer(),
    started_at: Nullable(Iso),
    completed_at: Iso,
    duration_ms: Nullable(t.Integer()),
  }),
  [TEST_EVENT_TYPE]: t.Object({ message: t.String(), destination_id: t.String() }),
};

/** Envelope of Set A (call lifecycle). */
export function agentEnvelope(type: string, data: TSchema) {
  return t.Object({
    type: t.Literal(type),
    event_id: t.String({ description: "`evt_…`, the same on every retry and replay: de-duplicate on it" }),
    call_id: Nullable(t.String()),
    agent_id: t.String(),
    timestamp: Iso,
    data,
  });
}

/** Envelope of Set B (outcomes). */
export function workspaceEnvelope(type: string, data: TSchema) {
  return t.Object({
    event: t.Literal(type),
    id: t.String({ description: "`evt_…`, the same on every retry and replay: de-duplicate on it" }),
    ts: Iso,
    data,
  });
}
