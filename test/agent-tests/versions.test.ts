// Draft versions: saved without going live, tested with a run against them, published only when the
// latest run against that version passed (README "Testing your agents").
import { expect, test } from "bun:test";
import { serverWithUser } from "../helpers/fixtures.ts";

const env = serverWithUser("versions");
const flow = (line: string) => ({ start: "bye", nodes: { bye: { type: "end", text: line } } });
const says = (words: string) => ({ name: `says ${words}`, caller: { type: "script", turns: [{ say: "Hello" }] }, expectations: [{ type: "agent_says", contains: words }] });

/** The run's verdict; the test clock then moves on, so the next run is the latest (it stands still otherwise). */
async function finished(agentId: string, runId: string) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(100)) {
    const run = (await env.server.api.get(`/v1/agents/${agentId}/test-runs/${runId}`, { token: env.user.token })).body;
    if (!["queued", "running"].includes(run.status)) {
      env.server.clock.advance(1000);
      return run;
    }
  }
  throw new Error(`run ${runId} did not finish`);
}

test("a draft is not live; a run takes it; publishing with require_passing_tests waits for a passing run against it", async () => {
  const { api } = env.server;
  const token = env.user.token;
  const agent = (await api.post("/v1/agents", { name: "Drafted", first_message: "Hi.", brain: { type: "flow", flow: flow("Goodbye now.") } }, { token })).body;
  const draft = await api.post(`/v1/agents/${agent.id}/versions`, { brain: { type: "flow", flow: flow("Farewell now.") }, note: "new farewell" }, { token });
  expect(draft.status).toBe(201);
  expect(draft.body).toMatchObject({ object: "agent_version", version: 2, draft: true, live: false, note: "new farewell" });
  expect((await api.get(`/v1/agents/${agent.id}`, { token })).body).toMatchObject({ version: 1, brain: { flow: { nodes: { bye: { text: "Goodbye now." } } } } });
  const versions = await api.get(`/v1/agents/${agent.id}/versions`, { token });
  expect(versions.body.data.map((v: any) => [v.version, v.draft, v.live])).toEqual([[2, true, false], [1, false, true]]);

  // Unpublished: no run says it passes.
  const none = await api.post(`/v1/agents/${agent.id}/versions/2/publish`, { require_passing_tests: true }, { token });
  expect(none.status).toBe(409);
  expect(none.body.code).toBe("tests_failing");
  expect(none.body.detail).toContain("no completed test run against version 2");

  // The live version still says goodbye; the draft says farewell, so this suite fails against the draft.
  await api.post(`/v1/agents/${agent.id}/tests`, says("goodbye"), { token });
  const live = (await api.post(`/v1/agents/${agent.id}/test-runs`, {}, { token })).body;
  expect(live.agent_version).toBe(1);
  expect((await finished(agent.id, live.id)).status).toBe("passed");
  const failing = (await api.post(`/v1/agents/${agent.id}/test-runs`, { version: 2 }, { token })).body;
  expect(failing.agent_version).toBe(2);
  const failed = await finished(agent.id, failing.id);
  expect(failed.status).toBe("failed");
  expect(failed.results[0].failures[0].expectation).toMatchObject({ type: "agent_says", contains: "goodbye" });
  const call = (await api.get(`/v1/calls/${failed.results[0].call_id}`, { token })).body;
  expect(call).toMatchObject({ agent_version: 2, test_run_id: failing.id, carrier: "test" });
  const refused = await api.post(`/v1/agents/${agent.id}/versions/2/publish`, { require_passing_tests: true }, { token });
  expect(refused.status).toBe(409);
  expect(refused.body.code).toBe("tests_failing");
  expect(refused.body.detail).toContain(failing.id);
  expect((await api.get(`/v1/agents/${agent.id}`, { token })).body.version).toBe(1);

  // The suite fixed for the new words, run against the draft: it passes, and the draft may go live.
  const cases = [says("farewell")];
  const passing = (await api.post(`/v1/agents/${agent.id}/test-runs`, { version: 2, cases }, { token })).body;
  expect((await finished(agent.id, passing.id)).status).toBe("passed");
  const published = await api.post(`/v1/agents/${agent.id}/versions/2/publish`, { require_passing_tests: true }, { token });
  expect(published.status).toBe(200);
  expect(published.body).toMatchObject({ version: 2, brain: { flow: { nodes: { bye: { text: "Farewell now." } } } } });
  const after = await api.get(`/v1/agents/${agent.id}/versions`, { token });
  expect(after.body.data.map((v: any) => [v.version, v.draft, v.live])).toEqual([[2, false, true], [1, false, false]]);

  // A later change takes the next number after every stored version; publishing without the flag is not gated.
  await api.post(`/v1/agents/${agent.id}/versions`, { first_message: "Hey." }, { token });
  const patched = await api.patch(`/v1/agents/${agent.id}`, { first_message: "Hello there." }, { token });
  expect(patched.body.version).toBe(4);
  expect((await api.post(`/v1/agents/${agent.id}/versions/3/publish`, undefined, { token })).body.version).toBe(3);
  expect((await api.post(`/v1/agents/${agent.id}/versions/9/publish`, {}, { token })).status).toBe(404);
}, 60_000);
