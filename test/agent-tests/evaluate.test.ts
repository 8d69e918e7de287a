// Each expectation kind against what a call did: pass, fail, and the sentence that says why.
import { describe, expect, test } from "bun:test";
import type { ExpectationDefinition } from "../../src/modules/agent-tests/definition.ts";
import { factsOf, latenciesOf, type CallFacts } from "../../src/modules/agent-tests/runner/call-facts.ts";
import { evaluate, longestSilence, sameValue, type RubricVerdict } from "../../src/modules/agent-tests/runner/evaluate.ts";
import { parseVerdict } from "../../src/modules/agent-tests/runner/judge.ts";

const turn = (role: "agent" | "caller", text: string, start_ms: number, end_ms: number) => ({ role, text, start_ms, end_ms, interrupted: false });

function facts(overrides: Partial<CallFacts> = {}): CallFacts {
  return {
    status: "completed",
    endReason: "agent_hangup",
    transferredTo: null,
    transcript: [
      turn("agent", "Hello, this is Acme. How can I help?", 0, 2000),
      turn("caller", "Where is my order 4217?", 2500, 4000),
      turn("agent", "Your order is on its way!", 4800, 6500),
      turn("caller", "Thanks, bye.", 7000, 8000),
    ],
    extracted: { name: "Ada", count: 2, tags: ["a", "b"] },
    toolCalls: [{ tool: "tool_orders", arguments: { order: "4217", express: false } }],
    latencies: [{ turn: 1, perceived_ms: 800 }],
    goalReached: null,
    tools: [{ id: "tool_orders", name: "order_status" }],
    ...overrides,
  };
}

/** The one check of one expectation. */
function check(expectation: ExpectationDefinition, call: CallFacts = facts(), rubrics?: Map<number, RubricVerdict>) {
  const [result] = evaluate([expectation], call, rubrics);
  return result;
}

describe("agent_says", () => {
  test("contains at a turn: case and punctuation do not matter; the detail quotes the turn", () => {
    expect(check({ type: "agent_says", turn: 1, contains: "ON ITS WAY" }).passed).toBe(true);
    expect(check({ type: "agent_says", turn: 0, contains: "acme how can" }).passed).toBe(true);
    const failed = check({ type: "agent_says", turn: 1, contains: "delivered" });
    expect(failed).toMatchObject({ passed: false, actual: "Your order is on its way!" });
    expect(failed.detail).toBe('agent turn 1 said "Your order is on its way!"; expected it to contain "delivered"');
  });

  test("a turn the agent never took fails saying how many it took", () => {
    expect(check({ type: "agent_says", turn: 5, contains: "x" }).detail).toBe('the agent took only 2 turns, so there is no agent turn 5; expected it to contain "x"');
    expect(check({ type: "agent_says", turn: 5, contains: "x", not: true }).passed).toBe(false);
  });

  test("any turn, regex, and not", () => {
    expect(check({ type: "agent_says", regex: "order \\w+ on" }).passed).toBe(true);
    expect(check({ type: "agent_says", regex: "^your" }).detail).toBe('agent turn 1 said "Your order is on its way!"; expected an agent turn to match /^your/i');
    const none = check({ type: "agent_says", contains: "refund" });
    expect(none.passed).toBe(false);
    expect(none.detail).toBe('no agent turn contained "refund" (it said "Hello, this is Acme. How can I help?", "Your order is on its way!"); expected one to contain "refund"');
    expect(check({ type: "agent_says", contains: "refund", not: true }).passed).toBe(true);
    expect(check({ type: "agent_says", contains: "acme", not: true }).passed).toBe(false);
    expect(check({ type: "agent_says", turn: 1, regex: "way", not: true }).detail).toBe('agent turn 1 said "Your order is on its way!"; expected it not to match /way/i');
  });

  test("a rubric takes the judge's verdict; without one it fails rather than passes", () => {
    const rubric: ExpectationDefinition = { type: "agent_says", turn: 1, rubric: "polite", judge_provider_id: "prv_x" };
    const pass = check(rubric, facts(), new Map([[0, { pass: true, reason: "it is courteous", said: "Your order is on its way!" }]]));
    expect(pass).toMatchObject({ passed: true, detail: 'agent turn 1 said "Your order is on its way!"; the judge found it meets the rubric: it is courteous' });
    const fail = check(rubric, facts(), new Map([[0, { pass: false, reason: "curt", said: "Your order is on its way!" }]]));
    expect(fail.passed).toBe(false);
    expect(fail.detail).toContain("does not meet the rubric: curt");
    expect(check({ ...rubric, not: true }, facts(), new Map([[0, { pass: false, reason: "curt", said: "x" }]])).passed).toBe(true);
    expect(check(rubric).passed).toBe(false);
  });
});

describe("tool_called", () => {
  test("by name or id, arguments matched (case-insensitive strings, regex), times counted", () => {
    expect(check({ type: "tool_called", tool: "order_status" }).passed).toBe(true);
    expect(check({ type: "tool_called", tool: "tool_orders", arguments: { order: "4217" } }).passed).toBe(true);
    expect(check({ type: "tool_called", tool: "order_status", arguments: { order: { regex: "^42" } } }).passed).toBe(true);
    expect(check({ type: "tool_called", tool: "order_status", times: 1 }).passed).toBe(true);
    expect(check({ type: "tool_called", tool: "order_status", times: 2 }).passed).toBe(false);
    const wrong = check({ type: "tool_called", tool: "order_status", arguments: { order: "9999" } });
    expect(wrong.passed).toBe(false);
    expect(wrong.detail).toBe('order_status was called 1 time: tool_orders({"order":"4217","express":false}), 0 matching; expected order_status with {"order":"9999"} called at least once');
    expect(check({ type: "tool_called", tool: "order_status", arguments: { missing: "x" } }).passed).toBe(false);
  });

  test("a model naming the tool by its name matches an expectation by id; not", () => {
    const byName = facts({ toolCalls: [{ tool: "order_status", arguments: { order: "1" } }] });
    expect(check({ type: "tool_called", tool: "tool_orders" }, byName).passed).toBe(true);
    expect(check({ type: "tool_called", tool: "order_status", not: true }, facts({ toolCalls: [] })).passed).toBe(true);
    const called = check({ type: "tool_called", tool: "order_status", not: true });
    expect(called.passed).toBe(false);
    expect(called.detail).toContain("expected order_status not to be called");
  });
});

test("extracted: JSON equality, strings trimmed and case-insensitive", () => {
  expect(check({ type: "extracted", field: "name", equals: " ada " }).passed).toBe(true);
  expect(check({ type: "extracted", field: "count", equals: 2 }).passed).toBe(true);
  expect(check({ type: "extracted", field: "tags", equals: ["A", "b"] }).passed).toBe(true);
  expect(check({ type: "extracted", field: "count", equals: "2" }).passed).toBe(false);
  expect(check({ type: "extracted", field: "name", equals: "Bob" }).detail).toBe('extracted name was "Ada"; expected "Bob"');
  expect(check({ type: "extracted", field: "email", equals: "a@b.c" })).toMatchObject({ passed: false, detail: 'extracted email was not set; expected "a@b.c"' });
  expect(check({ type: "extracted", field: "name", equals: "Ada" }, facts({ extracted: null })).passed).toBe(false);
});

test("ended: status and/or end reason", () => {
  expect(check({ type: "ended", status: "completed" }).passed).toBe(true);
  expect(check({ type: "ended", end_reason: "agent_hangup" }).passed).toBe(true);
  const failed = check({ type: "ended", status: "completed", end_reason: "customer_hangup" });
  expect(failed).toMatchObject({ passed: false, detail: "the call ended with status completed, end reason agent_hangup; expected status completed and end reason customer_hangup" });
});

test("transferred: the target", () => {
  const transferred = facts({ status: "transferred", transferredTo: "+15550001111" });
  expect(check({ type: "transferred", to: "+15550001111" }, transferred).passed).toBe(true);
  expect(check({ type: "transferred", to: "+15550002222" }, transferred).detail).toBe("the call was transferred to +15550001111; expected a transfer to +15550002222");
  expect(check({ type: "transferred", to: "+15550001111" }).detail).toBe("the call was not transferred; expected a transfer to +15550001111");
});

test("max_turns counts the agent's turns", () => {
  expect(check({ type: "max_turns", turns: 2 }).passed).toBe(true);
  expect(check({ type: "max_turns", turns: 1 })).toMatchObject({ passed: false, actual: 2, detail: "the agent took 2 turns; expected at most 1" });
});

test("latency: every reply (or one turn) under the bound; none measured fails", () => {
  const two = facts({ latencies: [{ turn: 1, perceived_ms: 800 }, { turn: 2, perceived_ms: 2400 }] });
  expect(check({ type: "latency", max_ms: 3000 }, two)).toMatchObject({ passed: true, detail: "the longest wait was 2400 ms (agent turn 2); expected at most 3000 ms" });
  expect(check({ type: "latency", max_ms: 1000 }, two)).toMatchObject({ passed: false, detail: "the caller waited 2400 ms at agent turn 2; expected at most 1000 ms for any reply" });
  expect(check({ type: "latency", max_ms: 1000, turn: 1 }, two).passed).toBe(true);
  expect(check({ type: "latency", max_ms: 1000, turn: 3 }, two).detail).toBe("no reply latency was measured for agent turn 3 (the agent never answered the caller there); expected at most 1000 ms");
  expect(check({ type: "latency", max_ms: 1000 }, facts({ latencies: [] })).passed).toBe(false);
});

test("max_silence: the longest gap from the answer to the last words, overlaps merged", () => {
  expect(longestSilence(facts().transcript)).toEqual({ ms: 800, fromMs: 4000 });
  expect(check({ type: "max_silence", max_ms: 800 }).passed).toBe(true);
  expect(check({ type: "max_silence", max_ms: 500 })).toMatchObject({ passed: false, detail: "the longest silence was 800 ms (from 4000 ms to 4800 ms); expected at most 500 ms" });
  // The caller talking over the agent is no silence; a late first word is.
  expect(longestSilence([turn("agent", "a", 3000, 6000), turn("caller", "b", 4000, 5000), turn("agent", "c", 6200, 7000)])).toEqual({ ms: 3000, fromMs: 0 });
});

test("goal_reached: a model caller's word; a script caller fails it", () => {
  expect(check({ type: "goal_reached" }, facts({ goalReached: true })).passed).toBe(true);
  expect(check({ type: "goal_reached" }, facts({ goalReached: false })).detail).toBe("the caller did not reach its goal; expected it to reach it");
  expect(check({ type: "goal_reached", not: true }, facts({ goalReached: false })).passed).toBe(true);
  expect(check({ type: "goal_reached" })).toMatchObject({ passed: false, detail: "only a model-played caller can reach a goal; this case has a script caller" });
});

test("checks keep each expectation's index and the expectation itself", () => {
  const checks = evaluate([{ type: "max_turns", turns: 9 }, { type: "ended", status: "failed" }], facts());
  expect(checks.map((c) => [c.index, c.passed, c.expectation.type])).toEqual([[0, true, "max_turns"], [1, false, "ended"]]);
});

test("facts from the call: tool calls and latencies from its timeline, each latency on the agent turn written after it", () => {
  const transcript = facts().transcript;
  const events = [
    { type: "turn", offsetMs: 0, data: { role: "agent", index: 0 } },
    { type: "turn", offsetMs: 0, data: { role: "caller", index: 1 } },
    { type: "tool_call", offsetMs: 0, data: { name: "order_status", arguments: { order: "4217" }, ok: true, result: "x" } },
    { type: "latency", offsetMs: 0, data: { perceived_ms: 950 } },
    { type: "turn", offsetMs: 0, data: { role: "agent", index: 2 } },
  ];
  expect(latenciesOf({ events, transcript })).toEqual([{ turn: 1, perceived_ms: 950 }]);
  const made = factsOf({ id: "call_1", status: "completed", endReason: "customer_hangup", transferredTo: null, transcript, extracted: {}, events }, null, []);
  expect(made.toolCalls).toEqual([{ tool: "order_status", arguments: { order: "4217" } }]);
  expect(made.endReason).toBe("customer_hangup");
});

test("sameValue and the judge's verdict parsing", () => {
  expect(sameValue({ a: [1, "X"] }, { a: [1, "x "] })).toBe(true);
  expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  expect(sameValue(null, null)).toBe(true);
  expect(parseVerdict('Sure: ```json\n{"pass": false, "reason": "rude"}\n```')).toEqual({ pass: false, reason: "rude" });
  expect(parseVerdict("yes")).toBeNull();
  expect(parseVerdict('{"pass": "yes"}')).toBeNull();
});
