// GET /metrics on its own listener (--metrics-listen): what it serves and where it does not, that labels
// carry templates and closed sets, never ids, and that each series moves with what it counts
// (requests, calls, jobs, webhook deliveries, wallet charges, refused writes).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { JobDiscard } from "../../src/jobs/outcomes.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { createKey, registerOperator, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { parseSamples, PROMTOOL, prometheusAvailable, promtoolCheck, scrape, valueOf, type Sample } from "../helpers/prometheus.ts";
import { sqliteOnly, startTestServer } from "../helpers/server.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { holdWriteLock } from "../helpers/write-lock.ts";
import { FROM_SOURCE, ROOT, runParley, spawnServer } from "../helpers/process.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const s = serverWithUser("metrics", { settings: { metricsListen: "127.0.0.1:0" } });
const tempDir = tempDirs("parley-metrics-");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 45_000;
/** Tests that start `parley` from source: a second or more each on a busy box. */
const PROCESS_TIMEOUT = 30_000;
const metrics = () => scrape(s.server.metricsUrl!);
/** How much a series moved between two scrapes. */
const moved = (before: Sample[], after: Sample[], name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);

async function post(path: string, body?: unknown, token = s.user.token) {
  const res = await s.server.api.post(path, body, { token });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** Every metric the operator section of the README lists. */
const FAMILIES = [
  "parley_http_requests_total",
  "parley_http_request_duration_seconds",
  "parley_calls_live",
  "parley_calls_ended_total",
  "parley_call_turn_latency_seconds",
  "parley_call_preemptions_total",
  "parley_media_frames_received_total",
  "parley_media_frames_lost_total",
  "parley_media_frames_late_total",
  "parley_jobs_queued",
  "parley_jobs_scheduled",
  "parley_jobs_running",
  "parley_jobs_oldest_due_age_seconds",
  "parley_jobs_completed_total",
  "parley_jobs_retried_total",
  "parley_jobs_failed_total",
  "parley_webhook_deliveries_total",
  "parley_webhook_dead_letters",
  "parley_db_refusals_total",
  "parley_write_behind_backlog_rows",
  "parley_write_behind_rows_lost_total",
  "parley_wallet_charges_total",
  "parley_wallet_charged_micros_total",
  "parley_process_resident_memory_bytes",
  "parley_process_heap_used_bytes",
  "parley_process_cpu_seconds_total",
  "parley_process_start_time_seconds",
  "parley_event_loop_lag_seconds",
  "parley_build_info",
  "parley_metrics_collector_errors_total",
  "parley_cluster_live_nodes",
  "parley_sweep_runs_total",
];

describe("the metrics listener", () => {
  test.skipIf(!prometheusAvailable)("serves GET /metrics in the text format promtool accepts, every metric declared", async () => {
    await s.server.api.get("/v1/agents", opts());
    const res = await fetch(s.server.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    expect(await promtoolCheck(text)).toEqual({ exitCode: 0, output: "" });
    const declared = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    expect(declared.sort()).toEqual([...FAMILIES].sort());
    // Read at the scrape: the process's own memory and a live figure.
    const samples = parseSamples(text);
    expect(valueOf(samples, "parley_process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);
    expect(valueOf(samples, "parley_calls_live", { carrier: "simulated" })).toBe(0);
  });

  test("answers nothing but GET /metrics", async () => {
    const base = s.server.metricsUrl!.replace(/\/metrics$/, "");
    for (const path of ["/", "/v1/health", "/metrics/x"]) {
      const res = await fetch(base + path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
    const posted = await fetch(s.server.metricsUrl!, { method: "POST" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
  });

  test("is not on the API's port, and there is none unless asked for", async () => {
    const res = await fetch(`${s.server.url}/metrics`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).not.toContain("parley_");
    expect(JSON.parse(text).code).toBe("not_found");
    const plain = await startTestServer();
    try {
      expect(plain.metricsUrl).toBeNull();
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });

  test("a bearer token, when set, is required", async () => {
    const token = "metrics-token-0123456789";
    const guarded = await startTestServer({ settings: { metricsListen: "127.0.0.1:0", metricsToken: token } });
    try {
      const url = guarded.metricsUrl!;
      for (const authorization of [undefined, "Bearer wrong-token-0123456789", token, `Basic ${btoa(`x:${token}`)}`]) {
        const res = await fetch(url, { headers: authorization ? { authorization } : {} });
        expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
        expect(await res.text()).not.toContain("parley_");
      }
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("parley_http_requests_total");
    } finally {
      await guarded.stop();
    }
  });

  test("serve says where the metrics are, and warns when anyone on the network could read them", async () => {
    /** The start lines end with the data dir's. */
    const started = async (server: { stderr(): string }) => {
      for (const deadline = Date.now() + 5_000; !server.stderr().includes("Data dir:") && Date.now() < deadline; ) await Bun.sleep(20);
    };
    const open = await spawnServer(FROM_SOURCE, ["--data-dir", tempDir(), "--metrics-listen", "0.0.0.0:0"]);
    try {
      await started(open);
      const url = /Metrics: +(\S+)/.exec(open.stderr())![1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(new URL(url).port).not.toBe(new URL(open.url).port);
      expect((await fetch(url)).status).toBe(200);
      expect(open.stderr()).toContain("the metrics listener answers anyone who reaches it: firewall it, or set --metrics-token");
    } finally {
      expect(await open.stop()).toBe(0);
    }
    const loopback = await spawnServer(FROM_SOURCE, ["--data-dir", tempDir(), "--metrics-listen", "127.0.0.1:0", "--metrics-token", "0123456789abcdef"]);
    try {
      await started(loopback);
      expect(loopback.stderr()).toMatch(/Metrics: +http:\/\/127\.0\.0\.1:\d+\/metrics +\(Authorization: Bearer <--metrics-token>\)/);
      expect(loopback.stderr()).not.toContain("answers anyone");
    } finally {
      expect(await loopback.stop()).toBe(0);
    }
  }, PROCESS_TIMEOUT);

  test("a bad --metrics-listen or --metrics-token is refused in one line with exit 2, before anything starts", async () => {
    const cases: [string[], RegExp][] = [
      [["--metrics-listen", "9464"], /--metrics-listen must be HOST:PORT \(127\.0\.0\.1:9464, \[::1\]:9464\), got "9464"/],
      [["--metrics-listen", "localhost:99999"], /--metrics-listen must be HOST:PORT/],
      [["--metrics-listen", "::1:9464"], /--metrics-listen must be HOST:PORT/],
      [["--metrics-listen", "999.1.1.1:9464"], /--metrics-listen must be HOST:PORT/],
      [["--port", "18089", "--metrics-listen", "127.0.0.1:18089"], /--metrics-listen 127\.0\.0\.1:18089 is on the API's port/],
      [["--metrics-token", "0123456789abcdefgh"], /--metrics-token needs --metrics-listen/],
      [["--metrics-listen", "127.0.0.1:0", "--metrics-token", "short"], /--metrics-token must be at least 16 printable characters/],
    ];
    for (const [args, message] of cases) {
      const result = await runParley(FROM_SOURCE, ["serve", "--data-dir", "/nonexistent/never-created", ...args]);
      const errors = result.stderr.trim().split("\n").filter((line) => line.startsWith("parley: error: "));
      expect({ args, exitCode: result.exitCode, errors: errors.length }).toEqual({ args, exitCode: 2, errors: 1 });
      expect(errors[0]).toMatch(message);
    }
    const env = await runParley(FROM_SOURCE, ["serve", "--data-dir", "/nonexistent/never-created"], { env: { PARLEY_METRICS_LISTEN: "[::1]" } });
    expect(env.exitCode).toBe(2);
    expect(env.stderr).toContain('--metrics-listen must be HOST:PORT (127.0.0.1:9464, [::1]:9464), got "[::1]"');
  }, PROCESS_TIMEOUT);
});

describe("labels carry no ids", () => {
  test("requests are counted by route template, method and status class; unknown paths and methods collapse", async () => {
    const agent = await post("/v1/agents", { name: "Labelled" });
    const missing = "agent_zzSECRETzz1";
    const stray = `/v1/agents/${agent.id}/no-such-thing/${crypto.randomUUID()}`;
    const before = await metrics();
    expect((await s.server.api.get(`/v1/agents/${agent.id}`, opts())).status).toBe(200);
    expect((await s.server.api.get(`/v1/agents/${missing}`, opts())).status).toBe(404);
    expect((await s.server.api.get(`/v1/agents/${missing}`, opts())).status).toBe(404);
    expect((await s.server.api.get("/v1/agents", opts())).status).toBe(200);
    expect((await s.server.api.get(stray, opts())).status).toBe(404);
    expect((await fetch(`${s.server.url}/v1/agents`, { method: "PROPFIND" })).status).toBeGreaterThanOrEqual(400);
    const after = await metrics();

    const byId = { route: "/v1/agents/:id", method: "GET" };
    expect(moved(before, after, "parley_http_requests_total", { ...byId, status_class: "2xx" })).toBe(1);
    expect(moved(before, after, "parley_http_requests_total", { ...byId, status_class: "4xx" })).toBe(2);
    expect(moved(before, after, "parley_http_request_duration_seconds_count", byId)).toBe(3);
    expect(moved(before, after, "parley_http_request_duration_seconds_bucket", { ...byId, le: "+Inf" })).toBe(3);
    expect(moved(before, after, "parley_http_requests_total", { route: "/v1/agents", method: "GET", status_class: "2xx" })).toBe(1);
    expect(moved(before, after, "parley_http_requests_total", { route: "unmatched", method: "GET", status_class: "4xx" })).toBe(1);
    expect(moved(before, after, "parley_http_requests_total", { route: "unmatched", method: "OTHER", status_class: "4xx" })).toBe(1);

    const text = await (await fetch(s.server.metricsUrl!)).text();
    for (const secret of [agent.id, missing, stray, "no-such-thing", "PROPFIND", s.user.workspaceId, s.user.userId, s.user.email]) expect(text).not.toContain(secret);
    // Every route label is one of the app's templates (as the URL is written), or unmatched.
    const templates = new Set(createApp(s.server.ctx, s.server.ctx.services).routes.all().map((route) => (route.path.length > 1 ? route.path.replace(/\/$/, "") : route.path)));
    const labels = new Set(parseSamples(text).filter((sample) => sample.name.startsWith("parley_http_")).map((sample) => sample.labels.route));
    expect([...labels].filter((route) => route !== "unmatched" && !templates.has(route))).toEqual([]);
    expect(labels.has("/v1/agents/:id")).toBe(true);
  });
});

describe("counters move with what they count", () => {
  test("a call: live while it talks, ended by status and reason, its turns' latency by stage, its jobs done", async () => {
    const agent = await post("/v1/agents", { name: "Counted", first_message: "Hello, how can I help?" });
    const number = await post("/v1/phone-numbers/buy", { area_code: "415" });
    await post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id });
    const before = await metrics();
    // One stays on the line until hung up; the other says a word, hears the answer, and hangs up.
    const live = await post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550160", simulation: { ring_ms: 0 } });
    const talked = await post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { ring_ms: 0, lines: ["Hi"], hang_up_after_ms: 7_000, recognition: "simulated" } });
    await waitForCall(s.server.api, s.user.token, live.id, (c) => c.status === "in_progress", 10_000);
    expect(valueOf(await metrics(), "parley_calls_live", { carrier: "simulated" })).toBeGreaterThanOrEqual(1);
    await post(`/v1/calls/${live.id}/hangup`);
    const ended = [await waitForCall(s.server.api, s.user.token, live.id), await waitForCall(s.server.api, s.user.token, talked.id)];
    const after = await metrics();

    expect(valueOf(after, "parley_calls_live", { carrier: "simulated" })).toBe(0);
    expect(moved(before, after, "parley_calls_ended_total", { status: "completed", end_reason: "agent_hangup" })).toBe(ended.filter((c) => c.end_reason === "agent_hangup").length);
    expect(ended.map((c) => c.status)).toEqual(["completed", "completed"]);
    const reasons = Object.groupBy(ended, (c: any) => c.end_reason);
    for (const [reason, calls] of Object.entries(reasons)) expect(moved(before, after, "parley_calls_ended_total", { status: "completed", end_reason: reason })).toBe(calls!.length);
    // Each answered turn's latency entry lands in the histograms, stage by stage.
    const events = (await s.server.api.get(`/v1/calls/${talked.id}/events`, opts())).body.data.filter((e: any) => e.type === "latency");
    expect(events.length).toBeGreaterThan(0);
    for (const stage of ["endpointing", "platform", "end_to_end"]) {
      expect(moved(before, after, "parley_call_turn_latency_seconds_count", { stage })).toBe(events.length);
    }
    const sttTurns = events.filter((e: any) => e.data.stt_ms !== null).length;
    expect(moved(before, after, "parley_call_turn_latency_seconds_count", { stage: "stt" })).toBe(sttTurns);
    const endToEnd = events.reduce((sum: number, e: any) => sum + e.data.end_to_end_ms, 0) / 1000;
    expect(moved(before, after, "parley_call_turn_latency_seconds_sum", { stage: "end_to_end" })).toBeCloseTo(endToEnd, 6);
    // Placing and finalizing each call are jobs of this process's runner.
    expect(moved(before, after, "parley_jobs_completed_total", { type: "calls.place" })).toBe(2);
    expect(moved(before, after, "parley_jobs_completed_total", { type: "calls.finalize" })).toBe(2);
  }, CALL_TIMEOUT);

  test("jobs: queued, running and the oldest due one's age, then retried and failed, by type", async () => {
    const ctx = s.server.ctx;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    ctx.jobs.register<{ fail?: string }>(
      "test.metrics",
      async (job) => {
        await released;
        if (job.payload.fail === "retry") throw new Error("try again");
        if (job.payload.fail === "discard") throw new JobDiscard("no use");
      },
      { concurrency: 1, maxAttempts: 2, retryAt: (_job, now) => now + 60_000 },
    );
    const enqueue = (payload: Record<string, unknown>) => enqueueJob(ctx, { type: "test.metrics", payload, maxAttempts: 2 });
    enqueue({});
    await Bun.sleep(100); // the first is claimed and waits; the others queue behind it
    enqueue({ fail: "retry" });
    enqueue({ fail: "discard" });
    s.server.clock.advance(90_000);
    const waiting = await metrics();
    expect(valueOf(waiting, "parley_jobs_running", { type: "test.metrics" })).toBe(1);
    expect(valueOf(waiting, "parley_jobs_queued", { type: "test.metrics" })).toBe(2);
    expect(valueOf(waiting, "parley_jobs_oldest_due_age_seconds", { type: "test.metrics" })).toBe(90);
    release();
    const deadline = Date.now() + 5_000;
    let done = waiting;
    while (Date.now() < deadline && valueOf(done, "parley_jobs_scheduled", { type: "test.metrics" }) + valueOf(done, "parley_jobs_failed_total", { type: "test.metrics" }) < 2) {
      await Bun.sleep(50);
      done = await metrics();
    }
    expect(valueOf(done, "parley_jobs_completed_total", { type: "test.metrics" })).toBe(1);
    expect(valueOf(done, "parley_jobs_retried_total", { type: "test.metrics" })).toBe(1);
    expect(valueOf(done, "parley_jobs_failed_total", { type: "test.metrics" })).toBe(1);
    // The retry waits a minute for its next attempt: scheduled, not queued.
    expect(valueOf(done, "parley_jobs_scheduled", { type: "test.metrics" })).toBe(1);
    expect(valueOf(done, "parley_jobs_queued", { type: "test.metrics" })).toBe(0);
    expect(valueOf(done, "parley_jobs_oldest_due_age_seconds", { type: "test.metrics" })).toBe(0);
  }, 15_000);

  test("webhook deliveries by outcome, and the dead letters", async () => {
    const receivers: Receiver[] = [startReceiver(() => new Response("ok")), startReceiver(() => new Response("gone", { status: 410 })), startReceiver(() => new Response("later", { status: 503 }))];
    try {
      const endpoints = [];
      for (const receiver of receivers) endpoints.push(await post("/v1/webhooks", { url: receiver.url, events: ["call.completed"] }));
      const before = await metrics();
      for (const endpoint of endpoints) await post(`/v1/webhooks/${endpoint.id}/test`);
      const after = await metrics();
      expect(moved(before, after, "parley_webhook_deliveries_total", { outcome: "delivered" })).toBe(1);
      expect(moved(before, after, "parley_webhook_deliveries_total", { outcome: "failed" })).toBe(1);
      expect(moved(before, after, "parley_webhook_deliveries_total", { outcome: "retried" })).toBe(1);
      expect(moved(before, after, "parley_webhook_dead_letters")).toBe(1);
      const deadLetters = (await s.server.api.get("/v1/webhooks/failed", opts())).body.data;
      expect(valueOf(after, "parley_webhook_dead_letters")).toBe(deadLetters.length);
    } finally {
      for (const receiver of receivers) receiver.stop();
    }
  });

  test("wallet charges by cause, in micro-units of the instance currency", async () => {
    const operator = await registerOperator(s.server);
    const tenant = await registerUser(s.server.api, "metrics-payer");
    const key = (await createKey(s.server.api, tenant.token, "write")).secret;
    const free = { inbound: 0, outbound: 0 };
    await s.server.api.put(
      "/v1/admin/pricing",
      { per_minute: { telephony: { simulated: free, sip: free, twilio: free, telnyx: free }, browser_voice: 0, speech: { builtin: 0, provider: 0 }, llm: { builtin: 0, provider: 0 } }, number_monthly: { simulated: 1_500_000, sip: 0, twilio: 0, telnyx: 0 } },
      { token: operator.token },
    );
    await post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount: 5_000_000, note: "prepaid" }, operator.token);
    const before = await metrics();
    expect((await s.server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).status).toBe(201);
    const after = await metrics();
    expect(moved(before, after, "parley_wallet_charges_total", { cause: "number_fee" })).toBe(1);
    expect(moved(before, after, "parley_wallet_charged_micros_total", { cause: "number_fee", currency: "USD" })).toBe(1_500_000);
    // A credit is not a charge.
    expect(moved(before, after, "parley_wallet_charges_total", { cause: "operator_credit" })).toBe(0);
  });

  // SQLite's write lock holds the write up; PostgreSQL's refusals (the server going away) are test/postgres/'s.
  sqliteOnly("a write the database refuses is counted where it was met", async () => {
    const before = await metrics();
    const lock = holdWriteLock(s.server.ctx);
    try {
      expect((await s.server.api.post("/v1/agents", { name: "Refused" }, opts())).status).toBe(503);
    } finally {
      lock.release();
      s.server.ctx.sqlite.pragma("busy_timeout = 5000");
    }
    const after = await metrics();
    expect(moved(before, after, "parley_db_refusals_total", { site: "http", kind: "busy" })).toBe(1);
    expect(moved(before, after, "parley_http_requests_total", { route: "/v1/agents", method: "POST", status_class: "5xx" })).toBe(1);
  });
});

describe("the starter Grafana dashboard", () => {
  test.skipIf(!prometheusAvailable)("queries only metrics Parley exposes, in PromQL Prometheus accepts", async () => {
    const dashboard = JSON.parse(readFileSync(join(ROOT, "scripts/grafana/parley-dashboard.json"), "utf8"));
    const exprs: string[] = dashboard.panels.flatMap((panel: any) => (panel.targets ?? []).map((target: any) => target.expr));
    expect(exprs.length).toBeGreaterThan(15);
    const named = new Set(exprs.flatMap((expr) => [...expr.matchAll(/\bparley_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ""))));
    expect([...named].filter((name) => !FAMILIES.includes(name))).toEqual([]);
    // Each query as a recording rule, with Grafana's variables filled in: promtool parses every one.
    const rules = exprs.map((expr, i) => `      - record: parley:dashboard_${i}\n        expr: ${JSON.stringify(expr.replaceAll("$__rate_interval", "5m").replaceAll("$instance", ".*"))}`);
    const file = join(tempDir(), "dashboard.rules.yml");
    writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join("\n")}\n`);
    const check = Bun.spawnSync([PROMTOOL!, "check", "rules", file]);
    expect({ exitCode: check.exitCode, output: check.stdout.toString() + check.stderr.toString() }).toMatchObject({ exitCode: 0 });
    expect(check.stdout.toString()).toContain(`SUCCESS: ${exprs.length} rules found`);
    // Every panel reads the data source the importer picks.
    for (const panel of dashboard.panels.filter((p: any) => p.type !== "row")) expect(panel.datasource).toEqual({ type: "prometheus", uid: "${datasource}" });
  });
});

describe("the README", () => {
  test("names every metric, with its labels, in its Metrics section", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Metrics"), readme.indexOf("\n## ", readme.indexOf("### Metrics")));
    expect(section.length).toBeGreaterThan(1000);
    for (const name of FAMILIES) expect({ name, listed: section.includes(`\`${name}\``) }).toEqual({ name, listed: true });
    for (const label of ["route", "method", "status_class", "carrier", "status", "end_reason", "stage", "transport", "type", "outcome", "site", "kind", "state", "cause", "currency", "version", "collector"]) {
      expect({ label, listed: section.includes(`\`${label}\``) }).toEqual({ label, listed: true });
    }
  });
});
