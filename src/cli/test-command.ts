// `parley test`: runs an agent's test suite on a Parley server (local or remote) over its API, for CI.
import { readFileSync, writeFileSync } from "node:fs";
import { OPTIONS } from "../config/options.ts";
import { APIConnectionError, APIError, APITimeoutError, Parley, ParleyError, type AgentTestCase as TestCase, type TestRunWithResults, type TestSuiteImportRequest } from "../sdk/ts/src/index.ts";
import type { CommandFlag, ParsedArgs } from "./args.ts";
import { junitXml } from "./junit.ts";
import { cases, finished, progressLine, summary } from "./test-report.ts";

const CONNECTION: CommandFlag[] = [
  { name: "server", help: "the Parley server's URL (or PARLEY_SERVER)" },
  { name: "key", help: "an API key of the agent's workspace (or PARLEY_API_KEY)" },
  { name: "agent", help: "agent_… whose tests run" },
];

export const TEST_FLAGS: Record<"test" | "test export" | "test import", CommandFlag[]> = {
  test: [
    ...CONNECTION,
    { name: "suite", help: "a suite file (JSON, as test export writes): run its cases instead of the stored ones" },
    { name: "junit", help: "write the results as JUnit XML to this file" },
    { name: "version", help: "the agent version to test (default: the live one)" },
    { name: "concurrency", help: "cases run at once, 1–16 (default 4)" },
    { name: "tests", help: "only these stored cases: atest_a,atest_b" },
  ],
  "test export": [...CONNECTION, { name: "out", help: "the suite file to write (default: standard output)" }],
  "test import": [...CONNECTION, { name: "suite", help: "the suite file to upload (cases are matched by name)" }],
};

/** A mistake in how the command was called: said in one line, exit 2. */
class UsageError extends Error {}

const out = (text: string) => process.stdout.write(text);
const fail = (line: string) => process.stderr.write(`parley: error: ${line}\n`);

function flag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function wholeNumber(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const text = flag(args, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`--${name} expects a whole number from ${min} to ${max}, got "${text}"`);
  return value;
}

function connect(args: ParsedArgs): { parley: Parley; agentId: string } {
  // Server settings (--port, --data-dir…) are the server's: this command only talks to one.
  const setting = OPTIONS.find((option) => option.key in args.settings);
  if (setting) throw new UsageError(`--${setting.flag} is a server setting: parley test talks to a running server (--server URL)`);
  const server = flag(args, "server") ?? process.env.PARLEY_SERVER;
  const apiKey = flag(args, "key") ?? process.env.PARLEY_API_KEY;
  const agentId = flag(args, "agent");
  if (!server) throw new UsageError("--server URL (or PARLEY_SERVER) is needed: the Parley server to test on");
  if (!/^https?:\/\/[^/]/.test(server)) throw new UsageError(`--server expects an http(s):// URL, got "${server}"`);
  if (!apiKey) throw new UsageError("--key (or PARLEY_API_KEY) is needed: an API key of the agent's workspace");
  if (!agentId) throw new UsageError("--agent agent_… is needed");
  return { parley: new Parley({ baseUrl: server, apiKey, maxRetries: 2 }), agentId };
}

/** The `tests` of a suite file (`{ "object": "test_suite", "tests": [...] }`, as test export writes). */
function readSuite(file: string): { tests: unknown[]; body: Record<string, unknown> } {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--suite ${file}: ${(error as Error).message}`);
  }
  const tests = (body as { tests?: unknown } | null)?.tests;
  if (!Array.isArray(tests)) throw new UsageError(`--suite ${file}: not a suite file (an object with a "tests" array, as parley test export writes)`);
  return { tests, body: body as Record<string, unknown> };
}

/** Shows each case as it finishes; on a terminal, a counter line that rewrites itself in between. */
function progressPrinter(live: boolean) {
  const seen = new Set<number>();
  const started = Date.now();
  let counter = "";
  return {
    update(run: TestRunWithResults) {
      if (counter) out("\r\x1b[2K");
      const total = run.results.length;
      run.results.forEach((result, index) => {
        if (seen.has(index) || !finished(result)) return;
        seen.add(index);
        out(progressLine(result, seen.size, total) + "\n");
      });
      const { completed, total: all, running, queued } = run.progress;
      counter = live ? `${completed}/${all} done, ${running} running, ${queued} queued · ${Math.round((Date.now() - started) / 1000)} s` : "";
      if (counter) out(counter);
    },
    end() {
      if (counter) out("\r\x1b[2K");
      counter = "";
    },
  };
}

async function runSuite(args: ParsedArgs): Promise<number> {
  const { parley, agentId } = connect(args);
  const suite = flag(args, "suite");
  const ids = flag(args, "tests")?.split(",").map((id) => id.trim()).filter(Boolean);
  if (suite && ids) throw new UsageError("--tests picks stored cases; with --suite the file's cases run (pass one or the other)");
  const inline = suite ? readSuite(suite).tests : undefined;
  const version = wholeNumber(args, "version", 1, 1_000_000);
  const concurrency = wholeNumber(args, "concurrency", 1, 16);
  const junit = flag(args, "junit");
  const agent = await parley.agents.get(agentId);
  out(`Testing ${agent.name} (${agent.id}) version ${version ?? agent.version} on ${parley.baseUrl}: ${inline ? `${cases(inline.length)} from ${suite}` : ids ? `${cases(ids.length)} picked` : "its stored cases"}\n`);
  const printer = progressPrinter(Boolean(process.stdout.isTTY));
  // Ctrl-C stops waiting, and the run is canceled so its calls do not go on unseen.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort(new Error("interrupted: the run was canceled"));
  process.once("SIGINT", onSignal);
  let run: TestRunWithResults;
  try {
    run = await parley.runAgentTests(agentId, { test_ids: ids, cases: inline as TestCase[] | undefined, version, concurrency, signal: interrupt.signal }, (state) => printer.update(state));
  } finally {
    printer.end();
    process.off("SIGINT", onSignal);
  }
  out(summary(run, agent));
  if (junit) {
    writeFileSync(junit, junitXml(run, agent));
    out(`JUnit report: ${junit}\n`);
  }
  return run.status === "passed" ? 0 : 1;
}

async function exportSuite(args: ParsedArgs): Promise<number> {
  const { parley, agentId } = connect(args);
  const suite = await parley.agentTests.exportSuite(agentId);
  const text = JSON.stringify(suite, null, 2) + "\n";
  const file = flag(args, "out");
  if (!file) return out(text), 0;
  writeFileSync(file, text);
  process.stderr.write(`${cases(suite.tests.length)} written to ${file}\n`);
  return 0;
}

async function importSuite(args: ParsedArgs): Promise<number> {
  const { parley, agentId } = connect(args);
  const file = flag(args, "suite");
  if (!file) throw new UsageError("--suite FILE is needed: the suite file to upload");
  const { body } = readSuite(file);
  const answer = await parley.agentTests.importSuite(agentId, body as unknown as TestSuiteImportRequest);
  out(`${answer.created} cases created, ${answer.updated} updated on ${agentId}\n`);
  return 0;
}

/** Exit codes for CI: 0 every case passed, 1 a case failed (or errored, or was canceled), 2 the command itself could not run. */
export async function testCommand(command: keyof typeof TEST_FLAGS, args: ParsedArgs): Promise<number> {
  try {
    if (command === "test export") return await exportSuite(args);
    if (command === "test import") return await importSuite(args);
    return await runSuite(args);
  } catch (error) {
    if (error instanceof APIError) {
      // The server's problem+json: its detail, and each field it names.
      fail(`${error.status} ${error.code}: ${error.detail}`);
      const fields = error.errors.map((field) => `${field.field}: ${field.message}`).filter((line) => !error.detail.includes(line));
      for (const line of fields) process.stderr.write(`  ${line}\n`);
    } else if (error instanceof APIConnectionError || error instanceof APITimeoutError) fail(`the server did not answer: ${error.message}`);
    else if (error instanceof UsageError || error instanceof ParleyError) fail(error.message);
    else fail((error as Error)?.message ?? String(error));
    return 2;
  }
}
