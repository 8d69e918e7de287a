// `parley test` as CI runs it: a separate process talking HTTP to a real server, its exit codes, what it
// prints, and a JUnit file read back by a real JUnit consumer (Debian's python3-junitparser).
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKey, serverWithUser } from "../helpers/fixtures.ts";
import { FROM_SOURCE, runParley } from "../helpers/process.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const live = serverWithUser("cli-tests");
const tempDir = tempDirs("parley-cli-tests-");
const state = {} as { key: string; agentId: string };

/** Asks the caller's name, thanks them by it and hangs up: a whole call in two turns, no language model. */
const NAME_FLOW = {
  start: "name",
  nodes: {
    name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "bye" },
    bye: { type: "end", text: "Thanks {{name}}, goodbye." },
  },
};

const caseNamed = (name: string, expectations: unknown[]) => ({
  name,
  caller: { type: "script", turns: [{ say: "My name is Ada" }] },
  expectations,
  timeout_seconds: 30,
});

const PASSING = [
  caseNamed("asks for the name", [{ type: "agent_says", turn: 0, contains: "may I have your name" }]),
  caseNamed("thanks Ada and hangs up", [{ type: "agent_says", contains: "thanks Ada" }, { type: "ended", status: "completed", end_reason: "agent_hangup" }]),
];

const suiteFile = (tests: unknown[]) => {
  const file = join(tempDir(), "suite.json");
  writeFileSync(file, JSON.stringify({ object: "test_suite", version: 1, tests }));
  return file;
};

async function createAgent(name: string): Promise<string> {
  const res = await live.server.api.post("/v1/agents", { name, first_message: "Hello, this is Acme.", brain: { type: "flow", flow: NAME_FLOW } }, { token: live.user.token });
  expect(res.status).toBe(201);
  return res.body.id;
}

const parleyTest = (args: string[], env: Record<string, string> = {}) =>
  runParley(FROM_SOURCE, ["test", ...args], { env: { PARLEY_SERVER: live.server.url, PARLEY_API_KEY: state.key, ...env } });

interface JunitCase {
  suite: string;
  name: string;
  classname: string;
  time: number;
  results: { kind: string; message: string | null; type: string | null; text: string | null }[];
  system_out: string | null;
}

/** The report as junitparser reads it (Jenkins-style JUnit XML): every case with its result elements. */
async function junitCases(file: string): Promise<JunitCase[]> {
  const script = `
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
cases = [{"suite": suite.name, "name": case.name, "classname": case.classname, "time": case.time, "system_out": case.system_out,
          "results": [{"kind": type(r).__name__, "message": r.message, "type": r.type, "text": r.text} for r in case.result]}
         for suite in xml for case in suite]
print(json.dumps(cases))`;
  // Debian's python3, where python3-junitparser (APT_PACKAGES in .ci/run) is installed.
  const child = Bun.spawn(["/usr/bin/python3", "-c", script, file], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`junitparser could not read ${file}:\n${stderr}`);
  return JSON.parse(stdout);
}

beforeAll(async () => {
  state.key = (await createKey(live.server.api, live.user.token, "write")).secret;
  state.agentId = await createAgent("Name taker");
});

// Independent of each other (each test its own agent or read-only use of the shared one): run at once, as most of their time is calls.
describe.concurrent("parley test", () => {
  test("imports a suite, runs the stored cases: exit 0, a line per case, and a JUnit report a JUnit consumer reads", async () => {
    const imported = await parleyTest(["import", "--agent", state.agentId, "--suite", suiteFile(PASSING)]);
    expect(imported.stderr).toBe("");
    expect(imported).toMatchObject({ exitCode: 0 });
    expect(imported.stdout).toContain("2 cases created, 0 updated");

    const junit = join(tempDir(), "report.xml");
    const run = await parleyTest(["--agent", state.agentId, "--junit", junit]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/\[\d\/2\] PASS asks for the name/);
    expect(run.stdout).toMatch(/\[\d\/2\] PASS thanks Ada and hangs up/);
    expect(run.stdout).toMatch(/PASSED: 2 cases, 2 passed, 0 failed, 0 errored, 0 canceled/);

    const cases = await junitCases(junit);
    expect(cases.map((c) => c.name).sort()).toEqual(["asks for the name", "thanks Ada and hangs up"]);
    for (const each of cases) {
      expect(each).toMatchObject({ classname: state.agentId, results: [] });
      expect(each.time).toBeGreaterThanOrEqual(0);
      expect(each.suite).toContain("Name taker");
      expect(each.system_out).toContain("caller: My name is Ada");
      expect(each.system_out).toMatch(/agent: Thanks Ada, goodbye/i);
    }

    // --tests picks stored cases by id.
    const stored = await live.server.api.get(`/v1/agents/${state.agentId}/tests`, { token: live.user.token });
    const picked = stored.body.data.find((t: { name: string }) => t.name === "asks for the name").id;
    const one = await parleyTest(["--agent", state.agentId, "--tests", picked]);
    expect(one.exitCode).toBe(0);
    expect(one.stdout).toContain("[1/1] PASS asks for the name");
    expect(one.stdout).not.toContain("thanks Ada and hangs up");
  }, 60_000);

  test("an inline suite file whose expectation the agent breaks: exit 1, which expectation and why, and a <failure>", async () => {
    // A name XML must escape: the report still reads back exactly.
    const name = `tells the "opening hours" <9 & 5>`;
    const broken = caseNamed(name, [{ type: "ended", status: "completed" }, { type: "agent_says", contains: "we open at nine" }]);
    const junit = join(tempDir(), "failed.xml");
    const run = await parleyTest(["--agent", state.agentId, "--suite", suiteFile([PASSING[0], broken]), "--junit", junit, "--concurrency", "2"]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain("cases from");
    expect(run.stdout).toMatch(/PASS asks for the name/);
    // The progress line and the summary both name the failed expectation (the second, numbered from 1).
    expect(run.stdout).toMatch(/FAIL tells the "opening hours" <9 & 5>.*: expectation 2 \(agent_says contains "we open at nine"\): /);
    expect(run.stdout).toMatch(/FAIL tells the "opening hours" <9 & 5> · call call_\w+/);
    expect(run.stdout).toMatch(/agent: Thanks Ada, goodbye/i);
    expect(run.stdout).toMatch(/FAILED: 2 cases, 1 passed, 1 failed/);

    const cases = await junitCases(junit);
    const failed = cases.find((c) => c.name === name)!;
    expect(failed.results).toHaveLength(1);
    expect(failed.results[0]).toMatchObject({ kind: "Failure", type: "agent_says" });
    expect(failed.results[0].message).toBeTruthy();
    expect(failed.results[0].text).toContain('expectation 2 (agent_says contains "we open at nine")');
    expect(cases.find((c) => c.name === "asks for the name")!.results).toEqual([]);
  }, 60_000);

  test("--version runs the suite against a draft before it is live", async () => {
    const agentId = await createAgent("Drafted");
    const draft = await live.server.api.post(`/v1/agents/${agentId}/versions`, { first_message: "Bonjour, this is Acme." }, { token: live.user.token });
    expect(draft.status).toBe(201);
    const greets = suiteFile([caseNamed("greets in French", [{ type: "agent_says", turn: 0, contains: "bonjour" }])]);
    const onDraft = await parleyTest(["--agent", agentId, "--suite", greets, "--version", String(draft.body.version)]);
    expect(onDraft.stdout).toContain(`version ${draft.body.version}`);
    expect(onDraft.exitCode).toBe(0);
    const onLive = await parleyTest(["--agent", agentId, "--suite", greets]);
    expect(onLive.exitCode).toBe(1);
    expect(onLive.stdout).toMatch(/FAIL greets in French.*expectation 1 \(agent_says turn 0, contains "bonjour"\)/);
  }, 60_000);

  test("export then import: the suite file carries the cases to another agent unchanged", async () => {
    const source = await createAgent("Name taker to export");
    const stored = await live.server.api.post(`/v1/agents/${source}/tests/import`, { tests: PASSING }, { token: live.user.token });
    expect(stored.body).toMatchObject({ created: 2, updated: 0 });
    const file = join(tempDir(), "exported.json");
    const exported = await parleyTest(["export", "--agent", source, "--out", file]);
    expect(exported.exitCode).toBe(0);
    const suite = JSON.parse(readFileSync(file, "utf8"));
    expect(suite).toMatchObject({ object: "test_suite", version: 1, agent_id: source });
    expect(suite.tests.map((t: { name: string }) => t.name).sort()).toEqual(["asks for the name", "thanks Ada and hangs up"]);

    const other = await createAgent("Name taker copy");
    const imported = await parleyTest(["import", "--agent", other, "--suite", file]);
    expect(imported.exitCode).toBe(0);
    expect(imported.stdout).toContain("2 cases created, 0 updated");
    const again = await parleyTest(["import", "--agent", other, "--suite", file]);
    expect(again.stdout).toContain("0 cases created, 2 updated");
    const copy = await parleyTest(["export", "--agent", other]);
    expect(copy.exitCode).toBe(0);
    expect(JSON.parse(copy.stdout).tests).toEqual(suite.tests);
  }, 60_000);

  test("a run that cannot start exits 2 and says why: bad key, unknown agent, no server, bad flags", async () => {
    const badKey = await parleyTest(["--agent", state.agentId], { PARLEY_API_KEY: "sk_parley_live_not_a_key" });
    expect(badKey.exitCode).toBe(2);
    expect(badKey.stderr).toMatch(/^parley: error: 401 \w+: /m);

    const unknown = await parleyTest(["--agent", "agent_doesnotexist"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^parley: error: 404 not_found: /m);

    const badSuite = await parleyTest(["--agent", state.agentId, "--suite", suiteFile([{ name: "no caller", expectations: [] }])]);
    expect(badSuite.exitCode).toBe(2);
    expect(badSuite.stderr).toMatch(/^parley: error: 422 validation_failed: .*cases\[0\]\.caller/m);

    // A port nothing listens on: the server is unreachable.
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const unreachable = await parleyTest(["--agent", state.agentId, "--server", url]);
    expect(unreachable.exitCode).toBe(2);
    expect(unreachable.stderr).toMatch(/^parley: error: /m);

    const noAgent = await parleyTest([]);
    expect(noAgent.exitCode).toBe(2);
    expect(noAgent.stderr).toContain("--agent agent_… is needed");
    const badNumber = await parleyTest(["--agent", state.agentId, "--concurrency", "99"]);
    expect(badNumber.exitCode).toBe(2);
    expect(badNumber.stderr).toContain("--concurrency expects a whole number from 1 to 16");
    const help = await runParley(FROM_SOURCE, ["help"]);
    expect(help.stdout).toContain("test --server URL --key KEY --agent A");
  }, 60_000);
});
