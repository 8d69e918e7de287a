import type { Static } from "elysia";
import { mediaClock } from "../../../voice/media/media-clock.ts";
import type { CaseVerdict, CheckResult, TestCaseDefinition, TranscriptTurn } from "../definition.ts";
import { CallerVoice } from "./caller-voice.ts";
import { factsOf } from "./call-facts.ts";
import type { LanguageModel, RunnerDeps, StartedTestCall } from "./deps.ts";
import { evaluate, type RubricVerdict } from "./evaluate.ts";
import { judgeRubrics, JudgeUnavailable } from "./judge.ts";
import { ModelCaller } from "./model-caller.ts";
import { ScriptCaller } from "./script-caller.ts";
import { TestCallerLeg } from "./test-caller-leg.ts";
import { forgetToolMocks, mockToolsOfCall } from "./tool-mocks.ts";

export interface TestCaseRequest {
  workspaceId: string;
  agentId: string;
  agentVersion: number;
  /** The run the call belongs to (calls.test_run_id); null outside a stored run. */
  testRunId: string | null;
  definition: TestCaseDefinition;
}

const DEFAULT_TIMEOUT_S = 120;
const DEFAULT_FROM = "+15550100000";
/**
 * How long a call whose line is over may take to be final (its end, then the extraction `done` waits
 * for, at most a minute) before the case gives up on it.
 */
const END_GRACE_MS = 90_000;

/**
 * One case as a real test call: the caller (script or model) on an in-process leg, the agent's whole
 * voice loop on the other end, then each expectation judged against what the call did. `signal`
 * cancels: the caller hangs up and the case is an error saying so.
 */
export async function runTestCase(deps: RunnerDeps, request: TestCaseRequest, signal: AbortSignal): Promise<CaseVerdict> {
  const { definition, workspaceId } = request;
  const tools = deps.agentTools(workspaceId, request.agentId, request.agentVersion);
  const mocks: { toolId: string; ok: boolean; result: unknown }[] = [];
  for (const mock of definition.tool_mocks ?? []) {
    const tool = tools.find((known) => known.id === mock.tool || known.name === mock.tool);
    if (!tool) return errorVerdict(null, `tool_mocks: the agent has no tool ${mock.tool}`);
    mocks.push({ toolId: tool.id, ok: mock.ok ?? true, result: mock.result });
  }
  const caller = definition.caller;
  let model: LanguageModel | null = null;
  if (caller.type === "model" && !(model = deps.languageModel(workspaceId, caller.provider_id))) {
    return errorVerdict(null, `caller.provider_id: the workspace has no language-model connection ${caller.provider_id}`);
  }
  if (signal.aborted) return errorVerdict(null, "the run was canceled");
  // An uploaded recording's words are unknown: the agent's own recogniser must hear the whole call.
  const announce = caller.type === "model" || !caller.turns.some((turn) => turn.audio !== undefined);

  // Built when the call has its id (makeLeg), read once startTestCall returns.
  const made: { callId?: string; line?: TestCallerLeg; driver?: ScriptCaller | ModelCaller } = {};
  let started: StartedTestCall;
  try {
    started = deps.startTestCall(
      {
        workspaceId,
        agentId: request.agentId,
        agentVersion: request.agentVersion,
        testRunId: request.testRunId,
        channel: definition.channel ?? "phone",
        from: definition.from ?? DEFAULT_FROM,
        variables: definition.variables ?? {},
        scriptedRecognition: announce,
      },
      (callId) => {
        made.callId = callId;
        mockToolsOfCall(callId, mocks);
        const voice = new CallerVoice(callId, announce);
        const driver = (made.driver =
          caller.type === "script"
            ? new ScriptCaller(caller.turns, voice)
            : new ModelCaller(caller, model!, voice, () => deps.readCall(workspaceId, callId)?.transcript ?? [], signal));
        return (made.line = new TestCallerLeg(mediaClock, driver.tick));
      },
    );
  } catch (error) {
    // A leg already made would otherwise tick on the media clock for ever.
    made.line?.hangUpAsCaller();
    if (made.callId) forgetToolMocks(made.callId);
    return errorVerdict(made.callId ?? null, `the test call could not start: ${(error as Error).message}`);
  }
  const { callId } = started;
  const { line, driver } = made;
  if (!line || !driver) return errorVerdict(callId, "the test call started without its caller");

  const ending = await untilEnded(started, line, (definition.timeout_seconds ?? DEFAULT_TIMEOUT_S) * 1000, signal);
  forgetToolMocks(callId);
  const call = deps.readCall(workspaceId, callId);
  const transcript = call?.transcript ?? [];
  if (!call) return errorVerdict(callId, "the test call's record is gone");
  if (ending === "canceled") return errorVerdict(callId, "the run was canceled", transcript);
  if (ending === "stuck") return errorVerdict(callId, `the test call was not final ${END_GRACE_MS / 1000} s after its line was over`, transcript);
  const failure = line.failure ?? driver.failure;
  if (failure) return errorVerdict(callId, failure, transcript);

  const goalReached = driver instanceof ModelCaller ? driver.goalReached : null;
  const facts = factsOf(call, goalReached, tools);
  let judgeError: string | null = null;
  let rubrics = new Map<number, RubricVerdict>();
  try {
    rubrics = await judgeRubrics(definition.expectations, transcript, (providerId) => deps.languageModel(workspaceId, providerId), signal);
  } catch (error) {
    if (!(error instanceof JudgeUnavailable)) throw error;
    judgeError = error.message;
  }
  const checks = evaluate(definition.expectations, facts, rubrics);
  if (ending === "timed_out") checks.push(timeoutCheck(definition.timeout_seconds ?? DEFAULT_TIMEOUT_S));
  const status = judgeError ? "error" : checks.every((check) => check.passed) ? "passed" : "failed";
  return { status, callId, checks, transcript, latencies: facts.latencies, error: judgeError };
}

type Ending = "ended" | "timed_out" | "canceled" | "stuck";

/** Waits for the call to end; at the case's timeout or a cancel the caller hangs up, and the call gets a grace period to finish. */
async function untilEnded(started: StartedTestCall, line: TestCallerLeg, timeoutMs: number, signal: AbortSignal): Promise<Ending> {
  let ending: Ending = "ended";
  const hangUp = (why: Ending) => {
    if (line.endedBy !== null) return;
    ending = why;
    line.hangUpAsCaller();
  };
  const timer = setTimeout(() => hangUp("timed_out"), timeoutMs);
  const onAbort = () => hangUp("canceled");
  signal.addEventListener("abort", onAbort, { once: true });
  let grace: ReturnType<typeof setTimeout> | undefined;
  try {
    const stuck = line.over.then(() => new Promise<"stuck">((resolve) => (grace = setTimeout(() => resolve("stuck"), END_GRACE_MS))));
    const result = await Promise.race([started.done.then(() => "done" as const), stuck]);
    return result === "stuck" ? "stuck" : ending;
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
    signal.removeEventListener("abort", onAbort);
  }
}

function timeoutCheck(seconds: number): CheckResult {
  return { index: -1, expectation: { type: "timeout", timeout_seconds: seconds }, passed: false, detail: `the call was still going after ${seconds} s (timeout_seconds); the caller hung up` };
}

function errorVerdict(callId: string | null, error: string, transcript: Static<typeof TranscriptTurn>[] = []): CaseVerdict {
  return { status: "error", callId, checks: [], transcript, latencies: [], error };
}
