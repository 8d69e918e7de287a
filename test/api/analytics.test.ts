// Call analytics (148): volume, talk time, outcomes and response latency over time and per agent.
import { describe, expect, test } from "bun:test";
import { waitForCall } from "../helpers/call-api.ts";
import { createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("analytics");
const DAY = 86_400_000;

/** A finished call as the runtime leaves it, and its turns' latency notes. */
function seedCall(workspaceId: string, call: { id: string; agent: string; at: number; status: string; seconds?: number; latencies?: number[] }) {
  const db = s.server.ctx.sqlite;
  const answered = call.seconds === undefined ? null : call.at + 2_000;
  db.prepare(
    "INSERT INTO calls (id, workspace_id, agent_id, agent_version, direction, carrier, status, variables, metadata, created_at, answered_at, ended_at, duration_ms, updated_at) VALUES (?, ?, ?, 1, 'outbound', 'simulated', ?, '{}', '{}', ?, ?, ?, ?, ?)",
  ).run(call.id, workspaceId, call.agent, call.status, call.at, answered, call.at + 60_000, call.seconds === undefined ? null : call.seconds * 1000, call.at);
  for (const ms of call.latencies ?? []) {
    db.prepare("INSERT INTO call_events (call_id, workspace_id, type, offset_ms, data, created_at) VALUES (?, ?, 'latency', 0, ?, ?)").run(call.id, workspaceId, JSON.stringify({ end_to_end_ms: ms, stt_ms: 100 }), call.at);
  }
}

describe("GET /v1/analytics/calls", () => {
  test("buckets by day with empty days, totals, per agent busiest first, latency percentiles from the turns", async () => {
    const user = await registerUser(s.server.api, "seeded");
    const d0 = Date.UTC(2026, 9, 5); // a Monday
    seedCall(user.workspaceId, { id: "call_a1", agent: "agent_a", at: d0 + 3_600_000, status: "completed", seconds: 90, latencies: [400, 600, 800] });
    seedCall(user.workspaceId, { id: "call_a2", agent: "agent_a", at: d0 + 7_200_000, status: "completed", seconds: 30, latencies: [1000] });
    seedCall(user.workspaceId, { id: "call_a3", agent: "agent_a", at: d0 + 2 * DAY, status: "no_answer" });
    seedCall(user.workspaceId, { id: "call_b1", agent: "agent_b", at: d0 + 2 * DAY + 60_000, status: "busy" });
    seedCall(user.workspaceId, { id: "call_out", agent: "agent_a", at: d0 + 5 * DAY, status: "completed", seconds: 10 }); // after `to`
    const res = await s.server.api.get(`/v1/analytics/calls?from=${new Date(d0).toISOString()}&to=${new Date(d0 + 3 * DAY).toISOString()}`, { token: user.token });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({ object: "call_analytics", interval: "day" });
    expect(body.totals).toEqual({ calls: 4, answered: 2, seconds: 120, minutes: 2, outcomes: { completed: 2, no_answer: 1, busy: 1 }, latency: { samples: 4, p50_ms: 600, p95_ms: 1000, p99_ms: 1000 } });
    expect(body.series.map((b: any) => [b.start.slice(0, 10), b.calls, b.seconds])).toEqual([
      ["2026-10-05", 2, 120],
      ["2026-10-06", 0, 0],
      ["2026-10-07", 2, 0],
    ]);
    expect(body.series[1].latency).toEqual({ samples: 0, p50_ms: null, p95_ms: null, p99_ms: null });
    expect(body.by_agent.map((a: any) => [a.agent_id, a.calls, a.outcomes])).toEqual([
      ["agent_a", 3, { completed: 2, no_answer: 1 }],
      ["agent_b", 1, { busy: 1 }],
    ]);
    const weekly = (await s.server.api.get(`/v1/analytics/calls?from=${new Date(d0 + DAY).toISOString()}&to=${new Date(d0 + 9 * DAY).toISOString()}&interval=week&agent_id=agent_a`, { token: user.token })).body;
    expect(weekly.series.map((b: any) => [b.start.slice(0, 10), b.calls])).toEqual([
      ["2026-10-05", 2],
      ["2026-10-12", 0],
    ]);
    // Another workspace's key sees none of it.
    expect((await s.server.api.get(`/v1/analytics/calls?from=${new Date(d0).toISOString()}&to=${new Date(d0 + 3 * DAY).toISOString()}`, { token: s.user.token })).body.totals.calls).toBe(0);
  });

  test("a real call is counted with its talk time and its turns' latency", async () => {
    const key = (await createKey(s.server.api, s.user.token, "write")).secret;
    const agent = (await s.server.api.post("/v1/agents", { name: "Counted", first_message: "Hello, how can I help?" }, { token: key })).body;
    const number = (await s.server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).body;
    await s.server.api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key });
    const placed = await s.server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { lines: ["What are your opening hours?", "Thanks, goodbye"], recognition: "simulated" } }, { token: key });
    expect(placed.status).toBe(201);
    const ended = await waitForCall(s.server.api, key, placed.body.id);
    expect(ended.status).toBe("completed");
    const body = (await s.server.api.get(`/v1/analytics/calls?agent_id=${agent.id}&from=${new Date(s.server.clock.now() - DAY).toISOString()}&to=${new Date(s.server.clock.now() + 60_000).toISOString()}`, { token: key })).body;
    expect(body.totals).toMatchObject({ calls: 1, answered: 1, outcomes: { completed: 1 } });
    expect(body.totals.seconds).toBeGreaterThan(0);
    expect(body.totals.latency.samples).toBeGreaterThan(0);
    expect(body.totals.latency.p50_ms).toBeGreaterThan(0);
  }, 60_000);

  test("a bad period or too many buckets names the field", async () => {
    const get = (q: string) => s.server.api.get(`/v1/analytics/calls?${q}`, { token: s.user.token });
    expect((await get("from=2026-10-07T00:00:00Z&to=2026-10-05T00:00:00Z")).body.errors[0].field).toBe("from");
    expect((await get("interval=minute")).body.errors[0].field).toBe("interval");
    expect((await get("from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&interval=hour")).body.errors[0].field).toBe("interval");
  });
});
