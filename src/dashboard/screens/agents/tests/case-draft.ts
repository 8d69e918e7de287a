// A test case as the form edits it: a new case's starting point, the kinds of script turn and of
// expectation with their labels and fresh values, and how a case reads in the list.
import type { AgentTest, Expectation, ScriptTurn, TestCaseInput } from "./api.ts";

export const newCase = (): TestCaseInput => ({
  name: "",
  caller: { type: "script", turns: [{ say: "" }] },
  channel: "phone",
  variables: {},
  expectations: [{ type: "agent_says", contains: "" }],
});

export const TURN_KINDS = [
  { value: "say", label: "Say", fresh: (): ScriptTurn => ({ say: "" }) },
  { value: "dtmf", label: "Press keys", fresh: (): ScriptTurn => ({ dtmf: "" }) },
  { value: "pause_ms", label: "Pause (then go on)", fresh: (): ScriptTurn => ({ pause_ms: 1000 }) },
  { value: "silence_ms", label: "Stay silent", fresh: (): ScriptTurn => ({ silence_ms: 5000 }) },
  { value: "hangup", label: "Hang up", fresh: (): ScriptTurn => ({ hangup: true }) },
  { value: "audio", label: "Play a WAV file", fresh: (): ScriptTurn => ({ audio: "" }) },
] as const;

/** Which action a turn takes (its first one, when a stored turn has more: the server says so on saving). */
export const turnKind = (turn: ScriptTurn): string => TURN_KINDS.find((kind) => kind.value in turn)?.value ?? "say";

export const EXPECTATION_KINDS: { value: string; label: string; fresh: () => Expectation }[] = [
  { value: "agent_says", label: "The agent says", fresh: () => ({ type: "agent_says", contains: "" }) },
  { value: "tool_called", label: "A tool is called", fresh: () => ({ type: "tool_called", tool: "" }) },
  { value: "extracted", label: "An extracted field equals", fresh: () => ({ type: "extracted", field: "", equals: "" }) },
  { value: "ended", label: "The call ends", fresh: () => ({ type: "ended", status: "completed" }) },
  { value: "transferred", label: "The call is transferred", fresh: () => ({ type: "transferred", to: "" }) },
  { value: "max_turns", label: "At most N agent turns", fresh: () => ({ type: "max_turns", turns: 5 }) },
  { value: "latency", label: "Each reply within a time", fresh: () => ({ type: "latency", max_ms: 1500 }) },
  { value: "max_silence", label: "No silence longer than", fresh: () => ({ type: "max_silence", max_ms: 8000 }) },
  { value: "goal_reached", label: "The model caller reaches its goal", fresh: () => ({ type: "goal_reached" }) },
];

export const expectationLabel = (type: string) => EXPECTATION_KINDS.find((kind) => kind.value === type)?.label ?? type;

/** "Script, 3 turns" or "Played by a model". */
export const callerKind = (test: TestCaseInput) => (test.caller.type === "script" ? `Script, ${test.caller.turns.length} ${test.caller.turns.length === 1 ? "turn" : "turns"}` : "Played by a model");

/** The case's definition alone (what the form and the JSON view edit, and what is saved). */
export function definitionOf(test: AgentTest): TestCaseInput {
  const { object: _o, id: _i, agent_id: _a, created_at: _c, updated_at: _u, ...definition } = test;
  return definition;
}

/** A copy without the fields left unset (undefined) or emptied (an empty optional text), as the API wants it. */
export function withoutEmpty<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== "")) as T;
}
