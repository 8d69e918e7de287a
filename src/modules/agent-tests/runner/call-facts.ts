import type { Static } from "elysia";
import type { TranscriptTurn, TurnLatency } from "../definition.ts";
import type { EndedTestCall } from "./deps.ts";

/** A tool invocation as the call's timeline recorded it (the flow names the tool by id, a model by name). */
export interface ToolInvocation {
  tool: string;
  arguments: Record<string, unknown>;
}

/** Everything the expectations are judged against: what the call did, read after it ended. */
export interface CallFacts {
  status: string;
  endReason: string | null;
  transferredTo: string | null;
  transcript: Static<typeof TranscriptTurn>[];
  extracted: Record<string, unknown> | null;
  toolCalls: ToolInvocation[];
  latencies: Static<typeof TurnLatency>[];
  /** A model-played caller's word that its goal was reached; null for a script caller. */
  goalReached: boolean | null;
  /** The agent's tools, so an expectation may name one by name or by id. */
  tools: { id: string; name: string }[];
}

export function factsOf(call: EndedTestCall, goalReached: boolean | null, tools: { id: string; name: string }[]): CallFacts {
  const toolCalls = call.events
    .filter((event) => event.type === "tool_call" && typeof event.data.name === "string")
    .map((event) => ({ tool: event.data.name as string, arguments: (event.data.arguments as Record<string, unknown> | undefined) ?? {} }));
  return {
    status: call.status,
    endReason: call.endReason,
    transferredTo: call.transferredTo,
    transcript: call.transcript,
    extracted: call.extracted,
    toolCalls,
    latencies: latenciesOf(call),
    goalReached,
    tools,
  };
}

/**
 * Each `latency` note (written as a reply's first audio went out) belongs to the agent turn that
 * began nearest to it: the note has no turn number, the transcript and timeline share the answer as 0.
 */
export function latenciesOf(call: Pick<EndedTestCall, "events" | "transcript" | "answeredOffsetMs">): Static<typeof TurnLatency>[] {
  const agentStarts = call.transcript.filter((turn) => turn.role === "agent").map((turn) => turn.start_ms);
  const latencies: Static<typeof TurnLatency>[] = [];
  for (const event of call.events) {
    const perceived = event.data.perceived_ms;
    if (event.type !== "latency" || typeof perceived !== "number" || !agentStarts.length) continue;
    const atMs = event.offsetMs - (call.answeredOffsetMs ?? 0);
    let turn = 0;
    for (let i = 1; i < agentStarts.length; i++) if (Math.abs(agentStarts[i] - atMs) < Math.abs(agentStarts[turn] - atMs)) turn = i;
    latencies.push({ turn, perceived_ms: perceived });
  }
  return latencies;
}
