import { t } from "elysia";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { CALL_STATUSES, type calls } from "../../db/schema/index.ts";
import { E164 } from "../phone-numbers/models.ts";
import type { CallCost } from "./costs.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export type CallRow = typeof calls.$inferSelect;

export const Turn = t.Object({
  role: OneOf(["agent", "caller"]),
  text: t.String(),
  start_ms: t.Integer({ description: "From the moment the call was answered" }),
  end_ms: t.Integer(),
  interrupted: t.Boolean({ description: "The caller spoke over it; `text` holds only what was played" }),
});

export const Call = t.Object({
  id: t.String({ description: "`call_…`" }),
  call_id: t.String({ description: "The same as `id` (the name the specification uses)" }),
  object: t.Literal("call"),
  agent_id: t.String(),
  agent_version: t.Integer({ description: "The agent configuration version the call ran with" }),
  direction: OneOf(["inbound", "outbound", "web"]),
  from: t.Union([t.String(), t.Null()]),
  to: t.Union([t.String(), t.Null()]),
  phone_number_id: t.Union([t.String(), t.Null()]),
  carrier: t.String(),
  campaign_id: t.Union([t.String(), t.Null()], { description: "The campaign that placed the call" }),
  test_run_id: t.Union([t.String(), t.Null()], { description: "The agent test run that placed the call (`trun_…`); null for a real call. Test calls are not billed, counted in analytics or listed unless asked for" }),
  status: OneOf(CALL_STATUSES),
  end_reason: t.Union([t.String(), t.Null()], { description: "customer_hangup, agent_hangup, silence_timeout, max_duration, voicemail, transferred, error, …" }),
  variables: t.Record(t.String(), t.Unknown()),
  metadata: t.Record(t.String(), t.Unknown()),
  transcript: t.Union([t.Array(Turn), t.Null()]),
  extracted: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
  summary: t.Union([t.String(), t.Null()]),
  transferred_to: t.Union([t.String(), t.Null()]),
  recording_url: t.Union([t.String(), t.Null()]),
  transcript_url: t.String(),
  erased_at: NullableTimestamp,
  created_at: Timestamp,
  started_at: NullableTimestamp,
  ended_at: NullableTimestamp,
  duration_ms: t.Union([t.Integer(), t.Null()]),
  duration_seconds: t.Union([t.Integer(), t.Null()]),
  cost: t.Object(
    {
      currency: t.String(),
      total: t.Integer({ description: "Micro-units charged: while live, up to the last settlement; final once ended" }),
      breakdown: t.Array(t.Object({ category: t.String({ description: "`telephony.<carrier>.<direction>`, `browser_voice`, `speech.builtin|provider`, `llm.builtin|provider`" }), amount: t.Integer(), seconds: t.Integer() })),
    },
    { description: "What the wallet was charged for this call, at the prices in force when it was answered" },
  ),
  updated_at: Timestamp,
});

export const Simulation = t.Object(
  {
    behaviour: t.Optional(OneOf(["answer", "silent", "busy", "no_answer", "voicemail", "hang_up"], { description: "What the simulated callee does (default: by destination number, see README; otherwise answer and stay silent)" })),
    lines: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 500 }), { maxItems: 50, description: "What it says, one line per turn, as real synthesised audio" })),
    digits: t.Optional(t.String({ pattern: "^[0-9*#]+$", description: "Keys it presses after its last line" })),
    ring_ms: t.Optional(t.Integer({ minimum: 0, maximum: 60000 })),
    hang_up_after_ms: t.Optional(t.Integer({ minimum: 0, maximum: 3_600_000 })),
    greeting: t.Optional(t.String({ maxLength: 500, description: "voicemail: the greeting before the beep" })),
    barge_in: t.Optional(t.Boolean({ description: "Speak its lines over the agent (tests barge-in) instead of waiting for a pause" })),
    voice: t.Optional(t.String({ description: "Built-in voice the callee speaks with (default kal16)" })),
    recognition: t.Optional(
      OneOf(["agent", "simulated"], {
        description:
          "agent: the agent's own recogniser hears the callee's audio; simulated: the carrier hands the agent the text the callee spoke (deterministic tests). Default agent, or simulated when the agent uses the built-in recogniser and none is installed",
      }),
    ),
  },
  { additionalProperties: false, description: "The simulated carrier's callee (only for calls on the simulated carrier)" },
);

export const OutboundBody = t.Object(
  {
    agent_id: t.String(),
    to: E164,
    from: t.Optional(E164),
    variables: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Fill the agent's {{variables}}" })),
    metadata: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Your data, returned with the call and its events" })),
    simulation: t.Optional(Simulation),
  },
  { additionalProperties: false },
);

export const CallsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: t.Optional(t.String()),
  agent_id: t.Optional(t.String()),
  campaign_id: t.Optional(t.String({ description: "Calls a campaign placed" })),
  status: t.Optional(OneOf(CALL_STATUSES)),
  direction: t.Optional(OneOf(["inbound", "outbound", "web"])),
  number: t.Optional(t.String({ description: "Calls from or to this number" })),
  from: t.Optional(t.String({ format: "date-time", description: "Created at or after" })),
  to: t.Optional(t.String({ format: "date-time", description: "Created before" })),
  include_tests: t.Optional(t.Boolean({ description: "Also list the calls agent tests placed (left out by default)" })),
  test_run_id: t.Optional(t.String({ description: "Only the calls of this agent test run (`trun_…`)" })),
});

export const CallEvent = t.Object({
  object: t.Literal("call_event"),
  type: t.String({ description: "status, turn, tool_call, latency, dtmf, transfer, error, say, amd, …" }),
  offset_ms: t.Integer({ description: "Milliseconds since the call was created" }),
  at: Timestamp,
  data: t.Record(t.String(), t.Unknown()),
});

/** A transcript as speaker-labelled lines ("Agent: …", "Caller: …"), as call.completed and `?format=text` give it. */
export function transcriptText(turns: { role: "agent" | "caller"; text: string; interrupted: boolean }[]): string {
  return turns.map((turn) => `${turn.role === "agent" ? "Agent" : "Caller"}: ${turn.text}${turn.interrupted ? " [interrupted]" : ""}`).join("\n");
}

export function callUrls(publicUrl: string, row: CallRow) {
  return {
    recording_url: row.recordingPath && !row.erasedAt ? `${publicUrl}/v1/calls/${row.id}/recording.mp3` : null,
    transcript_url: `${publicUrl}/v1/calls/${row.id}/transcript`,
  };
}

export function callJson(row: CallRow, publicUrl: string, cost: CallCost) {
  return {
    id: row.id,
    call_id: row.id,
    object: "call" as const,
    agent_id: row.agentId,
    agent_version: row.agentVersion,
    direction: row.direction,
    from: row.fromNumber,
    to: row.toNumber,
    phone_number_id: row.phoneNumberId,
    carrier: row.carrier,
    campaign_id: row.campaignId,
    test_run_id: row.testRunId,
    status: row.status,
    end_reason: row.endReason,
    variables: row.variables,
    metadata: row.metadata,
    transcript: (row.transcript as (typeof Turn.static)[] | null) ?? null,
    extracted: row.extracted ?? null,
    summary: row.summary,
    transferred_to: row.transferredTo,
    ...callUrls(publicUrl, row),
    erased_at: toIso(row.erasedAt),
    created_at: toIso(row.createdAt),
    started_at: toIso(row.answeredAt),
    ended_at: toIso(row.endedAt),
    duration_ms: row.durationMs,
    duration_seconds: row.durationMs === null ? null : Math.round(row.durationMs / 1000),
    cost,
    updated_at: toIso(row.updatedAt),
  };
}

/** A call an agent test places: the version it runs, its run, where it comes from. */
export interface TestCallRequest {
  workspaceId: string;
  agentId: string;
  /** The agent version the call runs (a draft too). */
  agentVersion: number;
  /** The run that placed it; null only for a case run outside a stored run. */
  testRunId: string | null;
  /** phone: inbound from `from` to the agent's number; web: a browser-like session without numbers. */
  channel: "phone" | "web";
  from: string;
  variables: Record<string, string | number | boolean>;
  /** The caller's words are handed to the simulated recogniser as text; false: the agent's own recogniser hears the audio. */
  scriptedRecognition: boolean;
}

export interface StartedTestCall {
  callId: string;
  /** Settles once the call has ended and its record is final (extraction written); never rejects. */
  done: Promise<void>;
}

nameSchemas({ CallTurn: Turn, Call, Simulation, OutboundCallRequest: OutboundBody, CallEvent });
