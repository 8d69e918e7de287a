// Ledger benchmark: settlements per second with the balance exact afterwards, and what metering costs
// a live call.
//  1. settle: N answered calls in one workspace, each settled every `--step` seconds of talk time for
//     `--minutes` minutes (line + speech + LLM at non-zero prices: three ledger entries per settlement
//     that charges), on a real data dir; settlements/s, and the wallet's cached balance against the sum
//     of its ledger and against the charges computed independently here (goal ≥ 5,000/s, exact);
//  2. overhead: one metering pass over `--calls` live calls (what the loop does every interval), its
//     time as a share of the interval: the CPU metering takes from each call (goal < 1 % per call).
// Usage: bun scripts/bench/ledger.ts [--calls 300] [--minutes 5] [--step 10]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { appendEntry, walletOf } from "../../src/modules/wallet/ledger.ts";
import { settleCall, type MeteredCall } from "../../src/modules/wallet/metering.ts";
import { setPrices } from "../../src/modules/wallet/pricing.ts";
import { closeParley, createParley } from "../../src/server.ts";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const CALLS = Number(args.calls ?? 300);
const MINUTES = Number(args.minutes ?? 5);
const STEP = Number(args.step ?? 10);
const INTERVAL_MS = 10_000;

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-ledger-"));
const ctx = createParley({ config: buildConfig({ host: "127.0.0.1", port: "0", dataDir, logLevel: "error" }), logger: createLogger("error") });
try {
  const line = { inbound: 13_000, outbound: 14_000 };
  const rates = { line: 14_000, speech: 15_000, llm: 30_000 };
  setPrices(ctx, { per_minute: { telephony: { simulated: line, sip: line, twilio: line, telnyx: line }, browser_voice: 4_000, speech: { builtin: rates.speech, provider: rates.speech }, llm: { builtin: rates.llm, provider: rates.llm } }, number_monthly: { simulated: 0, sip: 0, twilio: 0, telnyx: 0 } }, null);
  const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "x", name: "Bench" });
  const credit = 1_000_000_000_000;
  appendEntry(ctx, { workspaceId: workspace.id, amount: credit, cause: "operator_credit" });
  const answeredAt = ctx.clock.now();
  const calls: MeteredCall[] = Array.from({ length: CALLS }, (_, i) => ({ id: `call_bench_${i}`, workspaceId: workspace.id, agentId: `agent_${i % 10}`, carrier: "simulated", direction: "outbound", answeredAt }));
  const engines = { speech: "builtin", llm: "provider" } as const;

  // 1. settlements
  const steps = Math.floor((MINUTES * 60) / STEP);
  let settlements = 0;
  const started = performance.now();
  // As the metering loop does: one transaction per pass over the live calls.
  for (let step = 1; step <= steps; step++) {
    ctx.sqlite
      .transaction(() => {
        for (const call of calls) {
          settleCall(ctx, call, answeredAt + step * STEP * 1000, engines);
          settlements++;
        }
      })
      .immediate();
  }
  const seconds = (performance.now() - started) / 1000;
  const talk = steps * STEP;
  const perCall = Math.ceil((rates.line * talk) / 60) + Math.ceil((rates.speech * talk) / 60) + Math.ceil((rates.llm * talk) / 60);
  const expected = credit - perCall * CALLS;
  const cached = walletOf(ctx, workspace.id).balance;
  const summed = (ctx.sqlite.prepare("SELECT sum(amount) AS total, count(*) AS n FROM ledger_entries WHERE workspace_id = ?").get(workspace.id) as { total: number; n: number });
  console.log(`settle: ${settlements.toLocaleString("en")} settlements (${CALLS} calls × ${steps} passes, ${summed.n.toLocaleString("en")} ledger entries) in ${seconds.toFixed(2)} s = ${Math.round(settlements / seconds).toLocaleString("en")} settlements/s (goal ≥ 5,000)`);
  console.log(`        balance cached ${cached} = ledger sum ${summed.total} = expected ${expected}: ${cached === summed.total && cached === expected ? "exact" : "MISMATCH"}`);

  // 2. overhead of one pass (every interval) per live call
  const passes = 20;
  const t0 = performance.now();
  for (let pass = 1; pass <= passes; pass++) ctx.sqlite.transaction(() => calls.forEach((call) => settleCall(ctx, call, answeredAt + (talk + pass * 10) * 1000, engines))).immediate();
  const perPassMs = (performance.now() - t0) / passes;
  console.log(`overhead: one pass over ${CALLS} live calls takes ${perPassMs.toFixed(1)} ms every ${INTERVAL_MS / 1000} s = ${((perPassMs / INTERVAL_MS) * 100).toFixed(3)} % of one core for all of them, ${((perPassMs / CALLS / INTERVAL_MS) * 100).toFixed(5)} % per call (goal < 1 % of a call's own cost)`);
} finally {
  closeParley(ctx);
  rmSync(dataDir, { recursive: true, force: true });
}
