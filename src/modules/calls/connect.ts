import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../../core/context.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { addTimelineEvent, endCall, findCall, markRinging, type CallRow } from "./lifecycle.ts";
import { callJournal } from "./journal.ts";
import { callsPorts } from "./ports.ts";
import type { RunningJob } from "../../jobs/runner.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import type { CallLeg } from "../../telephony/types.ts";
import { builtinStt, simulatedUtterances } from "../../voice/speech/builtin/index.ts";
import { offlineRecognition, sttFor, ttsFor } from "../../voice/speech/engines.ts";
import type { SpeechToText } from "../../voice/speech/types.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { CallSession } from "../../voice/runtime/call-session.ts";
import { mediaClock } from "../../voice/media/media-clock.ts";

/** The agent as it was when the call was created (later edits do not change a call in flight). */
export function agentConfigForCall(ctx: AppContext, call: CallRow): AgentConfig | null {
  return callsPorts(ctx).agentConfigAt(call.workspaceId, call.agentId, call.agentVersion);
}

export function recordingPathFor(ctx: AppContext, call: CallRow): string {
  const dir = join(ctx.dataDir.root, "recordings", call.workspaceId);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${call.id}.wav`);
}

interface Recognition {
  stt: SpeechToText;
  sampleRate: number;
  context?: Record<string, unknown>;
}

/**
 * The recogniser for this call. Where the carrier knows what the far end says (scripted callees),
 * its text may stand in: chosen explicitly, or because the agent wants the offline recogniser and
 * this machine has none.
 */
function recognitionFor(ctx: AppContext, call: CallRow, config: AgentConfig, lineRate: number, scripted: boolean): Recognition & { why: string | null } {
  const wanted = (call.carrierOptions as { recognition?: string } | null)?.recognition;
  if (scripted && (wanted === "simulated" || (wanted === undefined && config.transcriber.provider_id === "builtin" && !offlineRecognition().available))) {
    return {
      stt: builtinStt("simulated"),
      sampleRate: lineRate,
      context: { callId: call.id },
      why: wanted === "simulated" ? "asked for by the call" : "no offline recogniser is installed",
    };
  }
  // Recognisers get the line's own rate: each resamples if it must, and knows the channel is narrowband.
  return { stt: sttFor(ctx, call.workspaceId, config.transcriber), sampleRate: lineRate, why: null };
}

/** Puts a CallSession on a leg: engines chosen, recording opened, the conversation loop wired. */
export function connectLeg(ctx: AppContext, brains: BrainServices, call: CallRow, config: AgentConfig, leg: CallLeg, options: { carrierKind: string; screenForMachine: boolean; scriptedRecognition: boolean }): CallSession {
  const tts = ttsFor(ctx, call.workspaceId, config.voice.provider_id);
  tts.warm?.(); // an outbound call is still ringing here
  const recognition = recognitionFor(ctx, call, config, leg.format.sampleRate, options.scriptedRecognition);
  addTimelineEvent(ctx, call, "engines", { tts: tts.id, stt: recognition.stt.id, ...(recognition.why ? { stt_reason: recognition.why } : {}) });
  const session = new CallSession({
    ctx,
    call,
    journal: callJournal(ctx, call),
    brains,
    agent: config,
    leg,
    carrierKind: options.carrierKind,
    tts,
    stt: recognition.stt,
    sttSampleRate: recognition.sampleRate,
    recognitionContext: recognition.context,
    screenForMachine: options.screenForMachine,
    recordingPath: recordingPathFor(ctx, call),
    clock: mediaClock,
  });
  session.start();
  void session.done.then(() => {
    if (recognition.context) simulatedUtterances.forget(call.id);
  });
  return session;
}

const LEASE_LOST = new Error("the placing job's lease was lost");

/**
 * The `calls.place` job: dials a queued call. The job completes as the call starts ringing (in the
 * same transaction), so a crash can never dial the same call twice; a call left ringing by a crash
 * is ended at the next start.
 */
export async function placeCall(ctx: AppContext, brains: BrainServices, carriers: CarrierRegistry, job: RunningJob<{ call_id: string }>): Promise<void> {
  const call = findCall(ctx, job.payload.call_id);
  if (!call || call.status !== "queued") return;
  const config = agentConfigForCall(ctx, call);
  if (!config) {
    endCall(ctx, call.id, { status: "failed", endReason: "error" });
    return;
  }
  let leg: CallLeg | null = null;
  try {
    // Ringing and the job's completion commit together or not at all: a call another node moved on, or
    // whose job is no longer this node's (it was found lost and the job handed to another), is not dialled here.
    const placing = ctx.sqlite.transaction(() => {
      if (!markRinging(ctx, call.id)) return false;
      if (!job.complete()) throw LEASE_LOST;
      return true;
    })();
    if (!placing) return;
    const carrier = carriers.carrier(call.workspaceId, call.carrier);
    if (!carrier) throw new Error(`carrier connection ${call.carrier} no longer exists`);
    leg = carrier.dial({ callId: call.id, from: call.fromNumber ?? "", to: call.toNumber ?? "", options: call.carrierOptions ?? {} });
    connectLeg(ctx, brains, { ...call, status: "ringing" }, config, leg, { carrierKind: carrier.kind, screenForMachine: true, scriptedRecognition: carrier.scriptedRecognition("outbound", call.carrierOptions) });
  } catch (error) {
    if (error === LEASE_LOST) return;
    leg?.hangup();
    ctx.sqlite.transaction(() => {
      addTimelineEvent(ctx, call, "error", { code: "dial_failed", message: (error as Error).message, fatal: true });
      endCall(ctx, call.id, { status: "failed", endReason: "error" });
    })();
  }
}
