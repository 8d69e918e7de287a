// An agent test suite on one box: N cases of 5 caller turns each (Flite speaking for both sides, the
// simulated recogniser, a flow agent), run by the real server in its own process through
// POST /v1/agents/{id}/test-runs at a given concurrency; wall time, the server's CPU, and the cases'
// verdicts and reply latencies.
// Usage: bun scripts/bench/agent-tests.ts [--cases 100] [--concurrency 16]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { apiAt, spawnParley } from "./spawn-parley.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { cases: { type: "string", default: "100" }, concurrency: { type: "string", default: "16" } } });
const CASES = Number(values.cases);
const CONCURRENCY = Number(values.concurrency);

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-tests-"));
const { process: server, url: base } = await spawnParley(dataDir, { PARLEY_RATE_LIMIT_PER_MINUTE: "10000000", PARLEY_LOG_LEVEL: "warn" });
const cpuMs = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const rssMiB = () => Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1]) / 1024;

const api = apiAt(base);
try {
  const token = (await api("POST", "/v1/auth/register", null, { email: "bench@example.com", password: "bench password 1" })).access_token;
  const agent = await api("POST", "/v1/agents", token, {
    name: "Front desk",
    first_message: "Hello, this is Acme.",
    brain: { type: "flow", flow: { start: "answer", nodes: { answer: { type: "answer", text: "How can I help?", fallback: "I see. Tell me more.", next: "answer" } } } },
  });
  const lines = ["I have a question", "It is about my order", "It has not arrived", "It was due on Monday", "Can you check it"];
  const cases = Array.from({ length: CASES }, (_, i) => ({
    name: `case ${i + 1}`,
    caller: { type: "script", turns: [...lines.map((say) => ({ say })), { hangup: true }] },
    expectations: [
      { type: "agent_says", turn: 0, contains: "this is Acme" },
      { type: "max_turns", turns: 7 },
      { type: "ended", end_reason: "customer_hangup" },
      { type: "latency", max_ms: 5000 },
    ],
  }));
  const startedAt = performance.now();
  const cpuBefore = cpuMs();
  const run = await api("POST", `/v1/agents/${agent.id}/test-runs`, token, { cases, concurrency: CONCURRENCY });
  let current = run;
  while (!["passed", "failed", "canceled"].includes(current.status)) {
    await Bun.sleep(1000);
    current = await api("GET", `/v1/agents/${agent.id}/test-runs/${run.id}`, token);
  }
  const wallS = (performance.now() - startedAt) / 1000;
  const cpuS = (cpuMs() - cpuBefore) / 1000;
  const perceived = (current.results as { latencies: { perceived_ms: number }[] }[]).flatMap((result) => result.latencies.map((entry) => entry.perceived_ms)).sort((a, b) => a - b);
  const pct = (p: number) => perceived[Math.min(perceived.length - 1, Math.floor((p / 100) * perceived.length))];
  const byStatus = (current.results as { status: string }[]).reduce<Record<string, number>>((counts, result) => ({ ...counts, [result.status]: (counts[result.status] ?? 0) + 1 }), {});
  console.log(`${CASES} cases × 5 caller turns, concurrency ${CONCURRENCY}: run ${current.status} (${JSON.stringify(byStatus)})`);
  console.log(`wall ${wallS.toFixed(1)} s (${((wallS * CONCURRENCY) / CASES).toFixed(1)} s per case per slot), server CPU ${cpuS.toFixed(1)} s (${((cpuS / CASES) * 1000).toFixed(0)} ms per case, ${((cpuS / wallS) * 100).toFixed(0)}% of one core), peak RSS ${rssMiB().toFixed(0)} MiB`);
  console.log(`reply latency (perceived_ms) over ${perceived.length} replies: p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${perceived.at(-1)} ms`);
  const failed = (current.results as { status: string; failures: { detail: string }[]; error: string | null }[]).find((result) => result.status !== "passed");
  if (failed) console.log(`first case not passed: ${failed.error ?? failed.failures.map((check) => check.detail).join("; ")}`);
} finally {
  server.kill();
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
