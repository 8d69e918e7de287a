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
 * Each `latency` note is written as a reply's first audio goes out, and the agent's turn it began is
 * written (a `turn` event) once that turn is over: the note belongs to the first agent turn written
 * after it. Timeline order, not clock time: the two run on different clocks.
 */
export function latenciesOf(call: Pick<EndedTestCall, "events" | "transcript">): Static<typeof TurnLatency>[] {
  const agentOrdinal = new Map<number, number>();
  call.transcript.forEach((turn, index) => turn.role === "agent" && agentOrdinal.set(index, agentOrdinal.size));
  const latencies: Static<typeof TurnLatency>[] = [];
  let waiting: number[] = [];
  for (const event of call.events) {
    if (event.type === "latency" && typeof event.data.perceived_ms === "number") waiting.push(event.data.perceived_ms);
    if (event.type !== "turn" || event.data.role !== "agent" || !waiting.length) continue;
    const turn = agentOrdinal.get(Number(event.data.index));
    if (turn !== undefined) latencies.push(...waiting.map((perceived) => ({ turn, perceived_ms: perceived })));
    waiting = [];
  }
  return latencies;
}
