import type { AppContext } from "../../core/context.ts";
import type { CallLeg } from "../../telephony/types.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { agentReadinessProblems } from "../../voice/readiness.ts";
import { configOf } from "../agents/models.ts";
import { agentConfigForCall, connectLeg } from "./connect.ts";
import { endCall, findCall, type TurnRecord } from "./lifecycle.ts";
import { callsPorts } from "./ports.ts";
import type { StartedTestCall, TestCallRequest } from "./models.ts";
import { callTimeline, insertRingingCall, notReady } from "./service.ts";

/** The carrier column of an agent test's calls (README "Testing your agents"). */
export const TEST_CARRIER = "test";

/** How often a test call's end is looked for until its record is final (the finalize job wrote `extracted`). */
const FINAL_POLL_MS = 25;
/** A finalize job that has not run by then (a model extraction stuck) no longer holds the case back. */
const FINAL_WAIT_MS = 60_000;

/**
 * Starts an agent test's call: a call row kept apart (test_run_id, carrier `test`) with the given leg
 * connected to the agent, like an inbound (or web) call minus the money: no funds check here, and
 * metering and settlement skip calls with a test run. Throws (4xx ApiError) when the agent cannot talk.
 */
export function startTestCall(ctx: AppContext, brains: BrainServices, request: TestCallRequest, makeLeg: (callId: string) => CallLeg): StartedTestCall {
  const ports = callsPorts(ctx);
  const agent = ports.getAgent(request.workspaceId, request.agentId);
  const config = ports.agentConfigAt(request.workspaceId, agent.id, request.agentVersion) ?? configOf(agent);
  const problems = agentReadinessProblems(ctx, request.workspaceId, config, { simulatedRecognition: request.scriptedRecognition });
  if (problems.length) throw notReady(problems);
  const phone = request.channel === "phone";
  const number = phone ? ports.numberOfAgent(request.workspaceId, agent.id) : undefined;
  const numberVariables = (number?.inbound as { variables?: Record<string, unknown> } | undefined)?.variables ?? {};
  const call = insertRingingCall(ctx, {
    workspaceId: request.workspaceId,
    agent: { id: agent.id, version: request.agentVersion },
    direction: phone ? "inbound" : "web",
    from: phone ? request.from : null,
    to: number?.number ?? null,
    phoneNumberId: number?.id ?? null,
    carrier: TEST_CARRIER,
    variables: phone ? { ...numberVariables, caller_number: request.from, ...request.variables } : { ...request.variables },
    metadata: {},
    carrierOptions: { recognition: request.scriptedRecognition ? "simulated" : "agent" },
    status: "ringing",
    testRunId: request.testRunId,
  });
  try {
    const session = connectLeg(ctx, brains, call, agentConfigForCall(ctx, call)!, makeLeg(call.id), { carrierKind: TEST_CARRIER, screenForMachine: false, scriptedRecognition: request.scriptedRecognition });
    return { callId: call.id, done: session.done.then(() => finalized(ctx, call.id), () => finalized(ctx, call.id)) };
  } catch (error) {
    endCall(ctx, call.id, { status: "failed", endReason: "error" });
    throw error;
  }
}

/** Resolves once the ended call's extraction is written (or it is gone, or the wait is over). */
async function finalized(ctx: AppContext, callId: string): Promise<void> {
  const until = Date.now() + FINAL_WAIT_MS;
  for (;;) {
    const call = findCall(ctx, callId);
    if (!call || call.extracted !== null || call.erasedAt !== null || Date.now() > until) return;
    await Bun.sleep(FINAL_POLL_MS);
  }
}

/** An ended test call as its expectations read it: status, transcript, extraction and timeline. */
export function readTestCall(ctx: AppContext, workspaceId: string, callId: string) {
  const call = findCall(ctx, callId);
  if (!call || call.workspaceId !== workspaceId) return null;
  return {
    id: call.id,
    status: call.status as string,
    endReason: call.endReason,
    transferredTo: call.transferredTo,
    transcript: ((call.transcript as TurnRecord[] | null) ?? []).map((turn) => ({ role: turn.role, text: turn.text, start_ms: turn.start_ms, end_ms: turn.end_ms, interrupted: turn.interrupted })),
    extracted: call.extracted ?? null,
    events: callTimeline(ctx, call).map((event) => ({ type: event.type, offsetMs: event.offsetMs, data: event.data as Record<string, unknown> })),
  };
}
