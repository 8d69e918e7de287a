import type { Static } from "elysia";
import type {
  AgentSaysExpectation,
  CheckResult,
  EndedExpectation,
  ExpectationDefinition,
  LatencyExpectation,
  ToolCalledExpectation,
} from "../definition.ts";
import type { CallFacts, ToolInvocation } from "./call-facts.ts";

/** A language model's verdict on one `rubric` expectation (judge.ts), by the expectation's index. */
export interface RubricVerdict {
  pass: boolean;
  reason: string;
  /** The words it judged. */
  said: string;
}

/** Every expectation of a case against what the call did: one Check each, saying why in a sentence. */
export function evaluate(expectations: ExpectationDefinition[], facts: CallFacts, rubrics: ReadonlyMap<number, RubricVerdict> = new Map()): CheckResult[] {
  return expectations.map((expectation, index) => {
    const { passed, detail, actual } = judge(expectation, facts, rubrics.get(index));
    return { index, expectation: expectation as Record<string, unknown>, passed, detail, ...(actual === undefined ? {} : { actual }) };
  });
}

type Outcome = { passed: boolean; detail: string; actual?: unknown };

function judge(expectation: ExpectationDefinition, facts: CallFacts, rubric: RubricVerdict | undefined): Outcome {
  switch (expectation.type) {
    case "agent_says":
      return agentSays(expectation, facts, rubric);
    case "tool_called":
      return toolCalled(expectation, facts);
    case "extracted": {
      const actual = facts.extracted?.[expectation.field];
      const passed = actual !== undefined && sameValue(expectation.equals, actual);
      return { passed, actual: actual ?? null, detail: `extracted ${expectation.field} was ${actual === undefined ? "not set" : json(actual)}; expected ${json(expectation.equals)}` };
    }
    case "ended":
      return ended(expectation, facts);
    case "transferred": {
      const passed = facts.transferredTo !== null && facts.transferredTo.trim() === expectation.to.trim();
      return { passed, actual: facts.transferredTo, detail: `the call was ${facts.transferredTo === null ? "not transferred" : `transferred to ${facts.transferredTo}`}; expected a transfer to ${expectation.to}` };
    }
    case "max_turns": {
      const turns = agentTurns(facts).length;
      return { passed: turns <= expectation.turns, actual: turns, detail: `the agent took ${turns} turn${turns === 1 ? "" : "s"}; expected at most ${expectation.turns}` };
    }
    case "latency":
      return latency(expectation, facts);
    case "max_silence": {
      const gap = longestSilence(facts.transcript);
      const where = gap.ms > 0 ? ` (from ${gap.fromMs} ms to ${gap.fromMs + gap.ms} ms)` : "";
      return { passed: gap.ms <= expectation.max_ms, actual: gap.ms, detail: `the longest silence was ${gap.ms} ms${where}; expected at most ${expectation.max_ms} ms` };
    }
    case "goal_reached": {
      if (facts.goalReached === null) return { passed: false, detail: "only a model-played caller can reach a goal; this case has a script caller" };
      const passed = facts.goalReached !== (expectation.not ?? false);
      return { passed, actual: facts.goalReached, detail: `the caller ${facts.goalReached ? "said its goal was reached" : "did not reach its goal"}; expected it ${expectation.not ? "not " : ""}to reach it` };
    }
  }
}

const agentTurns = (facts: CallFacts) => facts.transcript.filter((turn) => turn.role === "agent");

function agentSays(expectation: Static<typeof AgentSaysExpectation>, facts: CallFacts, rubric: RubricVerdict | undefined): Outcome {
  const negate = expectation.not ?? false;
  const turns = agentTurns(facts);
  const which = expectation.turn === undefined ? "any agent turn" : `agent turn ${expectation.turn}`;
  if (expectation.rubric !== undefined) {
    if (!rubric) return { passed: false, detail: `${which} was not judged against the rubric` };
    const passed = rubric.pass !== negate;
    return { passed, actual: rubric.said, detail: `${which} said ${quote(rubric.said)}; the judge found it ${rubric.pass ? "meets" : "does not meet"} the rubric${negate ? " (expected it not to)" : ""}: ${rubric.reason}` };
  }
  const wanted = expectation.contains !== undefined ? `to contain ${quote(expectation.contains)}` : `to match /${expectation.regex}/i`;
  const matches = (text: string) => (expectation.contains !== undefined ? normalised(text).includes(normalised(expectation.contains)) : new RegExp(expectation.regex!, "i").test(text));
  const expected = `expected it ${negate ? "not " : ""}${wanted}`;
  if (expectation.turn !== undefined) {
    const turn = turns[expectation.turn];
    if (!turn) return { passed: false, actual: null, detail: `the agent took only ${turns.length} turn${turns.length === 1 ? "" : "s"}, so there is no agent turn ${expectation.turn}; ${expected}` };
    return { passed: matches(turn.text) !== negate, actual: turn.text, detail: `agent turn ${expectation.turn} said ${quote(turn.text)}; ${expected}` };
  }
  const hit = turns.findIndex((turn) => matches(turn.text));
  if (hit >= 0) return { passed: !negate, actual: turns[hit].text, detail: `agent turn ${hit} said ${quote(turns[hit].text)}; expected ${negate ? "no" : "an"} agent turn ${wanted}` };
  const said = turns.map((turn) => turn.text);
  const didNot = expectation.contains !== undefined ? `contained ${quote(expectation.contains)}` : `matched /${expectation.regex}/i`;
  return { passed: negate, actual: said, detail: `no agent turn ${didNot}${said.length ? ` (it said ${said.map(quote).join(", ")})` : " (the agent said nothing)"}; expected ${negate ? "none" : "one"} ${wanted}` };
}

function toolCalled(expectation: Static<typeof ToolCalledExpectation>, facts: CallFacts): Outcome {
  const negate = expectation.not ?? false;
  const target = toolKey(expectation.tool, facts.tools);
  const calls = facts.toolCalls.filter((call) => toolKey(call.tool, facts.tools) === target);
  const matching = calls.filter((call) => argumentsMatch(expectation.arguments ?? {}, call.arguments));
  const held = expectation.times === undefined ? matching.length > 0 : matching.length === expectation.times;
  const shape = `${expectation.tool}${expectation.arguments ? ` with ${json(expectation.arguments)}` : ""}`;
  const count = expectation.times === undefined ? "at least once" : `exactly ${expectation.times} time${expectation.times === 1 ? "" : "s"}`;
  const seen = calls.length ? `: ${calls.map(describeCall).join(", ")}` : "";
  return {
    passed: held !== negate,
    actual: calls.map((call) => call.arguments),
    detail: `${expectation.tool} was called ${calls.length} time${calls.length === 1 ? "" : "s"}${seen}, ${matching.length} matching; expected ${shape} ${negate ? "not to be called" : "called"} ${count}`,
  };
}

function ended(expectation: Static<typeof EndedExpectation>, facts: CallFacts): Outcome {
  const statusOk = expectation.status === undefined || expectation.status === facts.status;
  const reasonOk = expectation.end_reason === undefined || expectation.end_reason === facts.endReason;
  const wanted = [expectation.status && `status ${expectation.status}`, expectation.end_reason && `end reason ${expectation.end_reason}`].filter(Boolean).join(" and ");
  return { passed: statusOk && reasonOk, actual: { status: facts.status, end_reason: facts.endReason }, detail: `the call ended with status ${facts.status}, end reason ${facts.endReason ?? "none"}; expected ${wanted}` };
}

function latency(expectation: Static<typeof LatencyExpectation>, facts: CallFacts): Outcome {
  const measured = facts.latencies.filter((entry) => expectation.turn === undefined || entry.turn === expectation.turn);
  const which = expectation.turn === undefined ? "any reply" : `agent turn ${expectation.turn}`;
  if (!measured.length) return { passed: false, actual: [], detail: `no reply latency was measured for ${which} (the agent never answered the caller there); expected at most ${expectation.max_ms} ms` };
  const slow = measured.filter((entry) => entry.perceived_ms > expectation.max_ms);
  const worst = measured.reduce((a, b) => (b.perceived_ms > a.perceived_ms ? b : a));
  return {
    passed: slow.length === 0,
    actual: measured,
    detail: slow.length
      ? `the caller waited ${slow.map((entry) => `${entry.perceived_ms} ms at agent turn ${entry.turn}`).join(", ")}; expected at most ${expectation.max_ms} ms for ${which}`
      : `the longest wait was ${worst.perceived_ms} ms (agent turn ${worst.turn}); expected at most ${expectation.max_ms} ms`,
  };
}

/** The longest stretch with neither side speaking, from the answer to the last words. */
export function longestSilence(transcript: CallFacts["transcript"]): { ms: number; fromMs: number } {
  const spans = transcript.map((turn) => [turn.start_ms, Math.max(turn.start_ms, turn.end_ms)] as const).sort((a, b) => a[0] - b[0]);
  let heardUntil = 0;
  let longest = { ms: 0, fromMs: 0 };
  for (const [start, end] of spans) {
    if (start - heardUntil > longest.ms) longest = { ms: start - heardUntil, fromMs: heardUntil };
    heardUntil = Math.max(heardUntil, end);
  }
  return longest;
}

/** A tool named by id or by name, as one key (its id when the agent has it). */
function toolKey(tool: string, tools: CallFacts["tools"]): string {
  return tools.find((known) => known.id === tool || known.name === tool)?.id ?? tool;
}

function argumentsMatch(wanted: Record<string, unknown>, actual: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([key, value]) => {
    const got = actual[key];
    if (isRegex(value)) return typeof got === "string" && new RegExp(value.regex, "i").test(got);
    return got !== undefined && sameValue(value, got);
  });
}

const isRegex = (value: unknown): value is { regex: string } =>
  typeof value === "object" && value !== null && Object.keys(value).length === 1 && typeof (value as { regex?: unknown }).regex === "string";

/** JSON equality, strings compared case-insensitively and trimmed (a model's "Friday " is Friday). */
export function sameValue(expected: unknown, actual: unknown): boolean {
  if (typeof expected === "string" && typeof actual === "string") return expected.trim().toLowerCase() === actual.trim().toLowerCase();
  if (Array.isArray(expected)) return Array.isArray(actual) && expected.length === actual.length && expected.every((item, i) => sameValue(item, actual[i]));
  if (expected && typeof expected === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual)) return false;
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].every((key) => sameValue((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key]));
  }
  return expected === actual;
}

/** Lower case, punctuation as spaces, single spaces: "Hello, World!" contains "hello world". */
function normalised(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

const json = (value: unknown) => JSON.stringify(value);
const quote = (text: string) => JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);
const describeCall = (call: ToolInvocation) => `${call.tool}(${json(call.arguments)})`;
