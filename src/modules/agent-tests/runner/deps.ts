import type { Static } from "elysia";
import type { ProviderConnection } from "../../../providers/connection.ts";
import type { CallLeg } from "../../../telephony/types.ts";
import type { StartedTestCall, TestCallRequest } from "../../calls/models.ts";
import type { TranscriptTurn } from "../definition.ts";

export type { StartedTestCall, TestCallRequest };

/**
 * What the runner needs from elsewhere, handed in by the composition root (src/server.ts) through the
 * orchestrator: the runner reaches the calls feature, tools and providers only through these.
 */
export interface RunnerDeps {
  /**
   * Records a test call (calls.test_run_id, carrier "test", direction inbound for `phone` / web for
   * `web`) and connects the leg `makeLeg` builds for it to the agent at `agentVersion`, like an
   * inbound call. Throws (an ApiError or Error saying why) when the call cannot start.
   */
  startTestCall(request: TestCallRequest, makeLeg: (callId: string) => CallLeg): StartedTestCall;
  /** The call as stored, or null when it is gone (another workspace's call is gone too). */
  readCall(workspaceId: string, callId: string): EndedTestCall | null;
  /** The workspace's language-model connection (OpenAI chat protocol), or null when it does not exist. */
  languageModel(workspaceId: string, providerId: string): LanguageModel | null;
  /** The agent's tools at that version, to match `tool_called` / `tool_mocks` written by name or by id. */
  agentTools(workspaceId: string, agentId: string, agentVersion: number): { id: string; name: string }[];
}

/** A connection that plays a caller or judges a rubric. */
export interface LanguageModel {
  connection: ProviderConnection;
  /** The connection's `settings.chat_model`, used when the case names no model. */
  chatModel: string | null;
}

/**
 * One timeline event (`call_events`): `latency` notes carry perceived_ms, `tool_call` ones
 * name/arguments/ok/result, `turn` ones role/index (the transcript index).
 */
export interface CallTimelineEvent {
  type: string;
  /** Milliseconds since the call was created. */
  offsetMs: number;
  data: Record<string, unknown>;
}

/** What the expectations are judged against, read after the call ended. */
export interface EndedTestCall {
  id: string;
  status: string;
  endReason: string | null;
  transferredTo: string | null;
  /** Turns with start_ms/end_ms from the answer, as the call's transcript. */
  transcript: Static<typeof TranscriptTurn>[];
  /** Null until the finalize job ran. */
  extracted: Record<string, unknown> | null;
  /** Every timeline event, in the order written. */
  events: CallTimelineEvent[];
}
