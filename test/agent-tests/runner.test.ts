// Test cases run as real simulated calls through the whole voice loop (runTestCase), against a real
// server: flow and LLM agents, tools called for real and mocked, keys, hang-ups, a model-played caller,
// rubrics judged by a local OpenAI-protocol fake, and a judge that cannot be reached.
import { describe, expect, test } from "bun:test";
import type { TestCaseDefinition } from "../../src/modules/agent-tests/definition.ts";
import { runTestCase } from "../../src/modules/agent-tests/runner/run-case.ts";
import { runnerDepsOf } from "../helpers/agent-test-deps.ts";
import { CALL_TIMEOUT, conversationFile } from "../helpers/call-driver.ts";

const { s, calls } = conversationFile("runner");
const numbers = new Map<string, string>();

/** An agent with a simulated number of its own (test calls arrive on it). */
async function agentWithNumber(body: Record<string, unknown>): Promise<{ id: string; version: number }> {
  const agent = await calls().createAgent(body);
  const bought = await calls().post("/v1/phone-numbers/buy", { area_code: "415" });
  expect(bought.status).toBe(201);
  expect((await calls().post(`/v1/phone-numbers/${bought.body.id}/assign`, { agent_id: agent.id })).status).toBe(200);
  numbers.set(agent.id, bought.body.number);
  const read = await s.server.api.get(`/v1/agents/${agent.id}`, { token: s.user.token });
  return { id: agent.id, version: read.body.version };
}

function run(agent: { id: string; version: number }, definition: TestCaseDefinition, signal = new AbortController().signal) {
  const deps = runnerDepsOf(s.server.ctx, (agentId) => numbers.get(agentId)!);
  return runTestCase(deps, { workspaceId: s.user.workspaceId, agentId: agent.id, agentVersion: agent.version, testRunId: null, definition }, signal);
}

const failures = (verdict: Awaited<ReturnType<typeof run>>) => verdict.checks.filter((check) => !check.passed).map((check) => check.detail);

function helpDesk() {
  return agentWithNumber({
    name: "Help desk",
    first_message: "Hello, this is Acme.",
    brain: {
      type: "flow",
      flow: {
        start: "name",
        nodes: {
          name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "thanks" },
          thanks: { type: "end", text: "Thanks {{name}}. Goodbye!" },
        },
      },
    },
    extraction: [{ name: "name", type: "string", description: "The caller's name" }],
  });
}

describe.concurrent("runTestCase", () => {
  test("a flow agent answers a scripted caller: every expectation passes, with the transcript and latencies", async () => {
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "gives a name",
      caller: { type: "script", turns: [{ say: "My name is Ada" }] },
      expectations: [
        { type: "agent_says", turn: 0, contains: "may I have your name" },
        { type: "agent_says", turn: 1, regex: "thanks ada" },
        { type: "extracted", field: "name", equals: "ada" },
        { type: "ended", status: "completed", end_reason: "agent_hangup" },
        { type: "max_turns", turns: 2 },
        { type: "latency", max_ms: 10_000 },
        { type: "max_silence", max_ms: 10_000 },
      ],
    });
    expect(failures(verdict)).toEqual([]);
    expect(verdict).toMatchObject({ status: "passed", error: null });
    expect(verdict.transcript.map((turn) => `${turn.role}: ${turn.text}`)).toEqual(["agent: Hello, this is Acme. May I have your name?", "caller: My name is Ada", "agent: Thanks Ada. Goodbye!"]);
    expect(verdict.latencies).toHaveLength(1);
    expect(verdict.latencies[0].turn).toBe(1);
  }, CALL_TIMEOUT);
});
