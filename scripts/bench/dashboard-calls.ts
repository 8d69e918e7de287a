// The calls list with 100,000 calls in one workspace (the dashboard's calls screen reads it a page at a
// time): a Parley from source on a temporary database, the calls (and a ledger charge for each answered
// one, which the list reads for its costs) inserted straight into SQLite, then GET /v1/calls over HTTP
// for the first page, pages deep into the cursor chain, and filtered pages. Prints p50/p95 per kind of
// page and the query plans; optionally (--browser) the dashboard's calls screen in Chromium.
// Usage: bun scripts/bench/dashboard-calls.ts [--calls 100000] [--requests 200] [--browser]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { pageRequest } from "../../src/http/pagination.ts";
import { callCosts } from "../../src/modules/calls/costs.ts";
import { listCalls } from "../../src/modules/calls/service.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";

const { values } = parseArgs({ options: { calls: { type: "string", default: "100000" }, requests: { type: "string", default: "200" }, browser: { type: "boolean", default: false } } });
const CALLS = Number(values.calls);
const REQUESTS = Number(values.requests);
const BUDGET_MS = 100;
const STATUSES = ["completed", "completed", "completed", "completed", "failed", "no_answer", "busy", "transferred"];
const DIRECTIONS = ["outbound", "outbound", "inbound", "web"];

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-calls-"));
const ctx = createParley({ config: buildConfig({ host: "127.0.0.1", port: "0", dataDir, rateLimitPerMinute: "1000000" }), logger: createLogger("warn") });
const server = startServer(ctx);
const base = server.url;

async function call(path: string, init: RequestInit & { token?: string } = {}) {
  const res = await fetch(base + path, { ...init, headers: { "content-type": "application/json", ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) } });
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
}

// Page-side code (page.waitForFunction) sees the browser's globals; the script is typed without the DOM library.
declare const document: any;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

try {
  const email = "bench@example.com";
  const password = "a long bench password";
  const registered = await call("/v1/auth/register", { method: "POST", body: JSON.stringify({ email, password }) });
  const token: string = registered.access_token;
  const workspaceId: string = registered.workspace.id;
  const agents = [
    (await call("/v1/agents", { method: "POST", token, body: JSON.stringify({ name: "Sales" }) })).id as string,
    (await call("/v1/agents", { method: "POST", token, body: JSON.stringify({ name: "Support" }) })).id as string,
  ];

  // 100,000 calls over the last 90 days, newest last; a tenth of them to one busy number.
  const started = performance.now();
  const now = Date.now();
  const span = 90 * 86_400_000;
  const insertCall = ctx.sqlite.prepare(
    "INSERT INTO calls (id, workspace_id, agent_id, agent_version, direction, from_number, to_number, carrier, status, end_reason, variables, metadata, transcript, summary, created_at, answered_at, ended_at, duration_ms, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?, 'simulated', ?, ?, '{}', '{}', ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertCharge = ctx.sqlite.prepare(
    "INSERT INTO ledger_entries (id, workspace_id, amount, balance_after, cause, category, ref_type, ref_id, quantity, agent_id, created_at) VALUES (?, ?, ?, 0, 'call_usage', ?, 'call', ?, ?, ?, ?)",
  );
  const transcript = JSON.stringify([
    { role: "agent", text: "Hello, how can I help?", start_ms: 500, end_ms: 2000, interrupted: false },
    { role: "caller", text: "What are your opening hours?", start_ms: 2600, end_ms: 4100, interrupted: false },
    { role: "agent", text: "We open at nine and close at six, Monday to Saturday.", start_ms: 4700, end_ms: 8200, interrupted: false },
  ]);
  ctx.sqlite.transaction(() => {
    for (let i = 0; i < CALLS; i++) {
      const id = `call_bench${String(i).padStart(8, "0")}`;
      const at = now - span + Math.floor((i * span) / CALLS);
      const status = STATUSES[i % STATUSES.length];
      const direction = DIRECTIONS[i % DIRECTIONS.length];
      const answered = status === "completed" || status === "transferred";
      const other = i % 10 === 0 ? "+12125550150" : `+1212555${String(i % 10_000).padStart(4, "0")}`;
      const [from, to] = direction === "inbound" ? [other, "+14155550100"] : direction === "web" ? [null, null] : ["+14155550100", other];
      const duration = answered ? 30_000 + (i % 240) * 1000 : null;
      const agent = agents[i % 2];
      insertCall.run(id, workspaceId, agent, direction, from, to, status, answered ? "customer_hangup" : status, answered ? transcript : null, answered ? "Asked for the opening hours." : null, at, answered ? at + 3000 : null, at + 3000 + (duration ?? 0), duration, at + 3000 + (duration ?? 0));
      if (answered) insertCharge.run(`led_bench${i}`, workspaceId, -Math.ceil(duration! / 1000) * 1000, `telephony.simulated.${direction === "web" ? "outbound" : direction}`, id, Math.ceil(duration! / 1000), agent, at + 3000 + duration!);
    }
  })();
  ctx.sqlite.exec("ANALYZE");
  console.log(`${CALLS.toLocaleString("en")} calls inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // Cursors deep into the list, found by paging through it once (100 a page).
  const deep: string[] = [];
  let cursor: string | null = null;
  const step = Math.max(1, Math.floor(CALLS / 100 / 10));
  for (let page = 1; page <= 9 * step && (page === 1 || cursor); page++) {
    const body: any = await call(`/v1/calls?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { token });
    cursor = body.next_cursor;
    if (cursor && page % step === 0) deep.push(cursor);
  }

  const from = new Date(now - 30 * 86_400_000).toISOString();
  const to = new Date(now - 20 * 86_400_000).toISOString();
  const kinds: [string, (i: number) => string][] = [
    ["first page (25)", () => "/v1/calls?limit=25"],
    ["first page (100)", () => "/v1/calls?limit=100"],
    ["deep cursor pages (25)", (i) => `/v1/calls?limit=25&cursor=${encodeURIComponent(deep[i % deep.length])}`],
    ["status=failed", () => "/v1/calls?limit=25&status=failed"],
    ["status=failed, deep", (i) => `/v1/calls?limit=25&status=failed&cursor=${encodeURIComponent(deep[i % deep.length])}`],
    ["direction=web", () => "/v1/calls?limit=25&direction=web"],
    ["agent_id", () => `/v1/calls?limit=25&agent_id=${agents[1]}`],
    ["number (from or to)", () => "/v1/calls?limit=25&number=%2B12125550150"],
    ["number, deep", (i) => `/v1/calls?limit=25&number=%2B12125550150&cursor=${encodeURIComponent(deep[i % deep.length])}`],
    ["number, rare (10 calls)", () => "/v1/calls?limit=25&number=%2B12125550001"],
    ["date range (10 days)", () => `/v1/calls?limit=25&from=${from}&to=${to}`],
    ["status=in_progress (none)", () => "/v1/calls?limit=25&status=in_progress"],
  ];
  console.log(`\nGET /v1/calls over HTTP, ${REQUESTS} requests each (budget ${BUDGET_MS} ms a page)`);
  console.log("  page                          p50 ms   p95 ms   max ms");
  const slow: string[] = [];
  for (const [name, path] of kinds) {
    await call(path(0), { token }); // warm
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const res = await fetch(base + path(i), { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      times.push(performance.now() - t0);
    }
    const p95 = quantile(times, 0.95);
    if (p95 > BUDGET_MS) slow.push(name);
    console.log(`  ${name.padEnd(28)} ${quantile(times, 0.5).toFixed(1).padStart(7)}  ${p95.toFixed(1).padStart(7)}  ${Math.max(...times).toFixed(1).padStart(7)}${p95 > BUDGET_MS ? "  OVER BUDGET" : ""}`);
  }

  // The same pages in process, split into the list query and the cost query (what HTTP adds is the rest).
  console.log("\nin process, p50 ms: list query + cost query");
  for (const [name, filter, deepPage] of [["first page", {}, false], ["deep cursor", {}, true], ["status=failed, deep", { status: "failed" }, true], ["number, deep", { number: "+12125550150" }, true]] as const) {
    const list: number[] = [];
    const costs: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const request = pageRequest({ limit: 25, cursor: deepPage ? deep[i % deep.length] : undefined });
      const t0 = performance.now();
      const rows = listCalls(ctx, workspaceId, filter, request);
      const t1 = performance.now();
      callCosts(ctx, workspaceId, rows.map((row) => row.id));
      costs.push(performance.now() - t1);
      list.push(t1 - t0);
    }
    console.log(`  ${name.padEnd(28)} ${quantile(list, 0.5).toFixed(2).padStart(7)} + ${quantile(costs, 0.5).toFixed(2)}  (p95 ${quantile(list, 0.95).toFixed(2)} + ${quantile(costs, 0.95).toFixed(2)})`);
  }

  // How SQLite answers the filters (the list orders by created_at DESC, id DESC under the workspace).
  console.log("\nquery plans");
  const plans: [string, string, unknown[]][] = [
    ["first page", "SELECT * FROM calls WHERE workspace_id = ? ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId]],
    ["status", "SELECT * FROM calls WHERE workspace_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, "failed"]],
    ["direction", "SELECT * FROM calls WHERE workspace_id = ? AND direction = ? ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, "web"]],
    ["agent", "SELECT * FROM calls WHERE workspace_id = ? AND agent_id = ? ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, agents[1]]],
    ["number", "SELECT * FROM calls WHERE workspace_id = ? AND (from_number = ? OR to_number = ?) ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, "+12125550150", "+12125550150"]],
    ["deep cursor", "SELECT * FROM calls WHERE workspace_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, now - span / 2, now - span / 2, "call_bench"]],
    ["row value", "SELECT * FROM calls WHERE workspace_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, now - span / 2, "call_bench"]],
    ["none match", "SELECT * FROM calls WHERE workspace_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT 26", [workspaceId, "in_progress"]],
  ];
  for (const [name, sql, args] of plans) {
    const steps = ctx.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[];
    console.log(`  ${name.padEnd(11)} ${steps.map((s) => s.detail).join(" | ")}`);
  }

  if (values.browser) {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${base}/login`);
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => !url.pathname.startsWith("/login"));
      const screens: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        await page.goto(`${base}/calls`);
        await page.locator("tbody tr").nth(24).waitFor().catch(async (error) => {
          await page.screenshot({ path: "/tmp/calls-probe/bench.png" });
          throw error;
        });
        screens.push(performance.now() - t0);
      }
      const older: number[] = [];
      for (let i = 0; i < 10; i++) {
        const first = await page.locator("tbody tr th").first().textContent();
        const t0 = performance.now();
        await page.getByRole("button", { name: "Older" }).click();
        await page.waitForFunction((before) => document.querySelector("tbody tr th")?.textContent !== before, first);
        older.push(performance.now() - t0);
      }
      console.log(`\ndashboard calls screen in Chromium: full load to 25 rows p50 ${quantile(screens, 0.5).toFixed(0)} ms; "Older" page p50 ${quantile(older, 0.5).toFixed(0)} ms, max ${Math.max(...older).toFixed(0)} ms`);
    } finally {
      await browser.close();
    }
  }
  console.log(slow.length ? `\nOVER ${BUDGET_MS} ms at p95: ${slow.join(", ")}` : `\nevery page under ${BUDGET_MS} ms at p95`);
} finally {
  await server.stop();
  closeParley(ctx);
  rmSync(dataDir, { recursive: true, force: true });
}
