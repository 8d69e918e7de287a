import { t, type Static } from "elysia";

/**
 * What a test case is (README "Testing your agents"): a caller, where the call comes from, tool answers
 * to use instead of the real ones, and what the agent must do. The API, the suite files, the runner and
 * the dashboard all read this one shape.
 */
const E164 = t.String({ pattern: "^\\+[1-9]\\d{6,14}$", description: "E.164" });
const Ms = (description: string, maximum = 600_000) => t.Integer({ minimum: 0, maximum, description });

export const ScriptTurn = t.Object(
  {
    say: t.Optional(t.String({ minLength: 1, maxLength: 2000, description: "What the caller says, spoken by the built-in voice" })),
    audio: t.Optional(t.String({ minLength: 8, maxLength: 4_000_000, description: "A WAV file (PCM 16-bit, 8–48 kHz; the first channel is played), base64: the caller plays it instead of `say`" })),
    dtmf: t.Optional(t.String({ pattern: "^[0-9*#A-D]{1,32}$", description: "Keys the caller presses" })),
    pause_ms: t.Optional(Ms("The caller stays quiet this long, then goes on without waiting for the agent (a pause inside the caller's turn)", 60_000)),
    silence_ms: t.Optional(Ms("The caller says nothing this long after the agent's turn (to test reprompts)", 120_000)),
    hangup: t.Optional(t.Literal(true, { description: "The caller hangs up" })),
    barge_in: t.Optional(t.Boolean({ description: "With say/audio: speak over the agent once it has talked `barge_in_after_ms` instead of waiting for it to finish" })),
    barge_in_after_ms: t.Optional(Ms("How far into the agent's speech a barge-in starts (default 800)", 30_000)),
    voice: t.Optional(t.String({ description: "A built-in voice for `say` (default kal16)" })),
  },
  { additionalProperties: false, description: "Exactly one of say, audio, dtmf, pause_ms, silence_ms, hangup" },
);

export const ScriptCaller = t.Object(
  { type: t.Literal("script"), turns: t.Array(ScriptTurn, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);

export const ModelCaller = t.Object(
  {
    type: t.Literal("model"),
    provider_id: t.String({ description: "One of the workspace's language-model connections (`prv_…`) that plays the caller" }),
    model: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Default: the connection's default model" })),
    persona: t.String({ minLength: 1, maxLength: 4000, description: "Who the caller is" }),
    goal: t.String({ minLength: 1, maxLength: 2000, description: "What the caller wants; the model says when it is reached" }),
    opening: t.Optional(t.String({ minLength: 1, maxLength: 2000, description: "The caller's first words (default: the model chooses, after the agent's greeting)" })),
    max_turns: t.Optional(t.Integer({ minimum: 1, maximum: 50, description: "The caller hangs up after this many turns of its own (default 10)" })),
  },
  { additionalProperties: false },
);

export const TestCaller = t.Union([ScriptCaller, ModelCaller]);

const TurnIndex = t.Integer({ minimum: 0, maximum: 200, description: "0-based index among the agent's turns (its greeting is turn 0); omitted: any turn" });
const Negate = t.Boolean({ description: "Pass when the condition does NOT hold" });

export const AgentSaysExpectation = t.Object(
  {
    type: t.Literal("agent_says"),
    turn: t.Optional(TurnIndex),
    contains: t.Optional(t.String({ minLength: 1, maxLength: 2000, description: "Case-insensitive, punctuation-insensitive substring" })),
    regex: t.Optional(t.String({ minLength: 1, maxLength: 2000, description: "A JavaScript regular expression, case-insensitive" })),
    rubric: t.Optional(t.String({ minLength: 1, maxLength: 4000, description: "Judged by a language model: does what the agent said meet this?" })),
    judge_provider_id: t.Optional(t.String({ description: "The language-model connection that judges a rubric (required with rubric)" })),
    not: t.Optional(Negate),
  },
  { additionalProperties: false, description: "Exactly one of contains, regex, rubric" },
);

export const ToolCalledExpectation = t.Object(
  {
    type: t.Literal("tool_called"),
    tool: t.String({ minLength: 1, maxLength: 200, description: "The tool's name (as the model sees it) or its id (`tool_…`)" }),
    arguments: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Each given argument must equal the call's (a string may be `{\"regex\": \"…\"}`); others are free" })),
    times: t.Optional(t.Integer({ minimum: 0, maximum: 100, description: "Exactly this many matching calls (default: at least one)" })),
    not: t.Optional(Negate),
  },
  { additionalProperties: false },
);

export const ExtractedExpectation = t.Object(
  { type: t.Literal("extracted"), field: t.String({ minLength: 1, maxLength: 100 }), equals: t.Unknown({ description: "JSON equality (strings compared case-insensitively, trimmed)" }) },
  { additionalProperties: false },
);

export const EndedExpectation = t.Object(
  {
    type: t.Literal("ended"),
    status: t.Optional(t.String({ description: "completed, transferred, failed…" })),
    end_reason: t.Optional(t.String({ description: "agent_hangup, customer_hangup…" })),
  },
  { additionalProperties: false, description: "At least one of status, end_reason" },
);

export const TransferredExpectation = t.Object({ type: t.Literal("transferred"), to: t.String({ minLength: 1, maxLength: 300, description: "E.164 or SIP URI" }) }, { additionalProperties: false });
export const MaxTurnsExpectation = t.Object({ type: t.Literal("max_turns"), turns: t.Integer({ minimum: 1, maximum: 200, description: "The agent took at most this many turns" }) }, { additionalProperties: false });
export const LatencyExpectation = t.Object(
  { type: t.Literal("latency"), max_ms: t.Integer({ minimum: 1, maximum: 60_000, description: "What the caller waited for each reply (perceived_ms)" }), turn: t.Optional(TurnIndex) },
  { additionalProperties: false },
);
export const MaxSilenceExpectation = t.Object(
  { type: t.Literal("max_silence"), max_ms: t.Integer({ minimum: 1, maximum: 600_000, description: "No stretch with neither side speaking longer than this, from the answer to the last words" }) },
  { additionalProperties: false },
);
export const GoalReachedExpectation = t.Object({ type: t.Literal("goal_reached"), not: t.Optional(Negate) }, { additionalProperties: false, description: "A model-played caller said its goal was reached" });

export const Expectation = t.Union([
  AgentSaysExpectation,
  ToolCalledExpectation,
  ExtractedExpectation,
  EndedExpectation,
  TransferredExpectation,
  MaxTurnsExpectation,
  LatencyExpectation,
  MaxSilenceExpectation,
  GoalReachedExpectation,
]);

export const ToolMock = t.Object(
  {
    tool: t.String({ minLength: 1, maxLength: 200, description: "The tool's name or id" }),
    result: t.Unknown({ description: "What the tool answers instead of calling its URL" }),
    ok: t.Optional(t.Boolean({ description: "false: answer as a failed call (default true)" })),
  },
  { additionalProperties: false },
);

/** A case's fields (everything but the ids and times); the name identifies it across runs and in suite files. */
export const TestCaseFields = {
  name: t.String({ minLength: 1, maxLength: 200 }),
  description: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  caller: TestCaller,
  channel: t.Optional(t.Union([t.Literal("phone"), t.Literal("web")], { description: "phone (default): an inbound call from `from`; web: a browser session" })),
  from: t.Optional(E164),
  variables: t.Optional(t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()]), { description: "Values for the agent's {{variables}}" })),
  tool_mocks: t.Optional(t.Array(ToolMock, { maxItems: 50 })),
  expectations: t.Array(Expectation, { maxItems: 100 }),
  timeout_seconds: t.Optional(t.Integer({ minimum: 5, maximum: 600, description: "The call is ended (and the case fails) after this long; default 120" })),
};

export const TestCaseInput = t.Object(TestCaseFields, { additionalProperties: false });

export type TestCaseDefinition = Static<typeof TestCaseInput>;
export type ScriptTurnDefinition = Static<typeof ScriptTurn>;
export type ExpectationDefinition = Static<typeof Expectation>;

/** One expectation's verdict. */
export const Check = t.Object({
  index: t.Integer({ description: "Position in the case's expectations" }),
  expectation: t.Record(t.String(), t.Unknown()),
  passed: t.Boolean(),
  detail: t.String({ description: "What was expected and what happened, in a sentence" }),
  actual: t.Optional(t.Unknown({ description: "What the call did (the words, the arguments, the value)" })),
});
export type CheckResult = Static<typeof Check>;

export const TranscriptTurn = t.Object({
  role: t.Union([t.Literal("agent"), t.Literal("caller")]),
  text: t.String(),
  start_ms: t.Integer(),
  end_ms: t.Integer(),
  interrupted: t.Boolean(),
});

export const TurnLatency = t.Object({
  turn: t.Integer({ description: "The agent turn (0-based) this reply began" }),
  perceived_ms: t.Integer({ description: "From the caller's last words to the agent's first audio" }),
});

/** What running one case gives back (runner → orchestration). */
export interface CaseVerdict {
  status: "passed" | "failed" | "error";
  callId: string | null;
  checks: CheckResult[];
  transcript: Static<typeof TranscriptTurn>[];
  latencies: Static<typeof TurnLatency>[];
  /** Why the case could not be judged (status `error`), else null. */
  error: string | null;
}
