// The dispatcher on the simulated carrier: concurrency, pacing, calling windows across time zones and
// DST, retries, pause/resume/cancel, and `campaign.completed` as a receiver sees it. The server's clock
// is a ManualClock: pacing, windows and retry delays follow it, while call audio runs in real time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { calls, campaignContacts, LIVE_STATUSES } from "../../src/db/schema/index.ts";
import { parseCsv } from "../helpers/call-api.ts";
import { callingAgent, campaignWithContacts } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";

let server: TestServer;
/** An API key: it never expires, however far the tests move the clock. */
let key: string;
let receiver: Receiver;
let agent: Awaited<ReturnType<typeof callingAgent>>;

beforeAll(async () => {
  server = await startTestServer();
  const user = await registerUser(server.api, "dialer");
  key = (await createKey(server.api, user.token, "admin")).secret;
  agent = await callingAgent(server.api, key);
  receiver = startReceiver();
  const endpoint = await server.api.post("/v1/webhooks", { url: `${receiver.url}/campaigns`, events: ["campaign.completed"] }, { token: key });
  expect(endpoint.status).toBe(201);
});
afterAll(async () => {
  await server.stop();
  receiver.stop();
});

const api = () => server.api;
const token = () => key;
const SHORT_CALLS = { behaviour: "hang_up", hang_up_after_ms: 300, ring_ms: 50 };

/** Moves the fake clock and lets the job runner look at once. */
function advance(ms: number): void {
  server.clock.advance(ms);
  server.ctx.jobs.wake();
}

/** Keeps the fake clock moving with real time (for tests about calls that run in real time). */
function realTimeClock(): () => void {
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    advance(Math.round(now - last));
    last = now;
  }, 10);
  return () => clearInterval(timer);
}

async function until<T>(probe: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await Bun.sleep(20);
  }
}

const getCampaign = async (id: string) => (await api().get(`/v1/campaigns/${id}`, { token: token() })).body;
const callsOf = (campaignId: string) => server.ctx.db.select().from(calls).where(eq(calls.campaignId, campaignId)).orderBy(calls.createdAt).all();
const liveCallsOf = (campaignId: string) => server.ctx.db.select().from(calls).where(and(eq(calls.campaignId, campaignId), inArray(calls.status, LIVE_STATUSES))).all().length;
const contactsOf = (campaignId: string) => server.ctx.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, campaignId)).orderBy(campaignContacts.id).all();

/** `n` distinct valid numbers in the fictional range that answer normally (not 01–04). */
const numbers = (n: number, area = "415") => Array.from({ length: n }, (_, i) => `+1${area}55501${String(50 + i).padStart(2, "0")}`);

describe("concurrency and pacing", () => {
  test("never more simultaneous calls than `concurrency`; raising it while running takes effect at once", async () => {
    const csv = `phone,first_name\n${numbers(12).map((n, i) => `${n},Person ${i}`).join("\n")}\n`;
    const id = await campaignWithContacts(api(), server.url, token(), { agent_id: agent.agentId, concurrency: 2, calls_per_minute: 6000, simulation: { ...SHORT_CALLS, hang_up_after_ms: 700 } }, csv);
    const stop = realTimeClock();
    let peak = 0;
    let peakAfterRaise = 0;
    let raised = false;
    const sampler = setInterval(() => {
      const live = liveCallsOf(id);
      if (raised) peakAfterRaise = Math.max(peakAfterRaise, live);
      else peak = Math.max(peak, live);
    }, 5);
    try {
      expect((await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() })).body.status).toBe("running");
      await until(() => contactsOf(id).filter((c) => c.status === "completed").length, (done) => done >= 4);
      const patched = await api().patch(`/v1/campaigns/${id}`, { concurrency: 5 }, { token: token() });
      expect(patched.status).toBe(200);
      raised = true;
      const finished = await until(() => getCampaign(id), (c) => c.status === "completed", 30_000);
      expect(finished.counts).toMatchObject({ total: 12, completed: 12, pending: 0, dialing: 0 });
    } finally {
      clearInterval(sampler);
      stop();
    }
    expect(peak).toBe(2);
    expect(peakAfterRaise).toBeGreaterThan(2);
    expect(peakAfterRaise).toBeLessThanOrEqual(5);
    // One call per contact, each in upload order, each carrying its contact's variables.
    const placed = callsOf(id);
    expect(placed.map((c) => c.toNumber)).toEqual(numbers(12));
    expect(placed[3].variables).toMatchObject({ first_name: "Person 3", phone: numbers(12)[3] });
  }, 60_000);

  test("dials no faster than `calls_per_minute`, evenly spaced on the clock", async () => {
    const csv = `phone\n${numbers(5, "212").join("\n")}\n`;
    const id = await campaignWithContacts(api(), server.url, token(), { agent_id: agent.agentId, concurrency: 10, calls_per_minute: 30, simulation: { behaviour: "busy" }, retry: { on: [], max_attempts: 1, delay_minutes: 1 } }, csv);
    const started = server.clock.now();
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    await until(() => callsOf(id).length, (n) => n === 1);
    // 30 a minute is one every 2 s: 1.9 s later nothing new, at 2 s the next.
    advance(1900);
    await Bun.sleep(150);
    expect(callsOf(id)).toHaveLength(1);
    for (let dialed = 2; dialed <= 5; dialed++) {
      advance(dialed === 2 ? 100 : 2000);
      await until(() => callsOf(id).length, (n) => n === dialed);
    }
    expect(callsOf(id).map((c) => c.createdAt - started)).toEqual([0, 2000, 4000, 6000, 8000]);
    const done = await until(() => getCampaign(id), (c) => c.status === "completed");
    expect(done.counts).toMatchObject({ total: 5, busy: 5 });
  }, 30_000);
});

describe("calling windows", () => {
  test("each contact is called in its own time zone's window; DST moves the window with the clocks; the rest are skipped at end_at", async () => {
    // Monday 9 March 2026: New York is already on summer time (UTC-4), London not yet (UTC+0).
    server.clock.set(Date.parse("2026-03-09T12:30:00Z"));
    const csv = [
      "phone,timezone,who",
      "+14155550160,Europe/London,london",
      "+14155550161,,new-york", // no zone: the window's own
      "+14155550162,America/Los_Angeles,los-angeles",
      "+14155550163,Asia/Tokyo,tokyo", // 21:30 there; next opening is after end_at
    ].join("\n");
    const id = await campaignWithContacts(
      api(),
      server.url,
      token(),
      {
        agent_id: agent.agentId,
        calls_per_minute: 6000,
        simulation: { behaviour: "busy" },
        retry: { on: [], max_attempts: 1, delay_minutes: 1 },
        window: { days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00", timezone: "America/New_York" },
        end_at: "2026-03-09T20:00:00Z",
      },
      csv,
    );
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    const dialedWho = () => callsOf(id).map((c) => (c.variables as Record<string, string>).who);
    await until(dialedWho, (who) => who.length === 1);
    expect(dialedWho()).toEqual(["london"]);

    // 12:59 UTC is 08:59 in New York (it would be 07:59 without DST): still closed.
    advance(29 * 60_000);
    await Bun.sleep(200);
    expect(dialedWho()).toEqual(["london"]);
    advance(60_000); // 13:00 UTC = 09:00 EDT
    await until(dialedWho, (who) => who.length === 2);
    expect(dialedWho()).toEqual(["london", "new-york"]);

    server.clock.set(Date.parse("2026-03-09T16:00:00Z")); // 09:00 PDT
    server.ctx.jobs.wake();
    await until(dialedWho, (who) => who.length === 3);
    expect(dialedWho()).toEqual(["london", "new-york", "los-angeles"]);
    const waiting = await getCampaign(id);
    expect(waiting.status).toBe("running");
    expect(waiting.counts.pending).toBe(1);

    server.clock.set(Date.parse("2026-03-09T20:00:00Z"));
    server.ctx.jobs.wake();
    const done = await until(() => getCampaign(id), (c) => c.status === "completed");
    expect(done.counts).toMatchObject({ total: 4, busy: 3, skipped: 1 });
    const tokyo = contactsOf(id).find((c) => c.timezone === "Asia/Tokyo")!;
    expect(tokyo).toMatchObject({ status: "skipped", attempts: 0, lastEndReason: "campaign_ended" });
    const hours = callsOf(id).map((c) => new Date(c.createdAt).toISOString().slice(11, 16));
    expect(hours).toEqual(["12:30", "13:00", "16:00"]);
  }, 30_000);

  test("a contact outside its window waits over the weekend, and its call goes out when Monday opens", async () => {
    server.clock.set(Date.parse("2026-11-06T22:30:00Z")); // Friday 17:30 in New York (EST after 1 Nov)
    const id = await campaignWithContacts(
      api(),
      server.url,
      token(),
      { agent_id: agent.agentId, simulation: { behaviour: "busy" }, retry: { on: [], max_attempts: 1, delay_minutes: 1 }, window: { days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00", timezone: "America/New_York" } },
      "phone\n+14155550170\n",
    );
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    await Bun.sleep(200);
    expect(callsOf(id)).toHaveLength(0);
    server.clock.set(Date.parse("2026-11-09T13:59:00Z")); // Monday 08:59 EST
    server.ctx.jobs.wake();
    await Bun.sleep(200);
    expect(callsOf(id)).toHaveLength(0);
    advance(60_000);
    await until(() => callsOf(id).length, (n) => n === 1);
    expect(new Date(callsOf(id)[0].createdAt).toISOString()).toBe("2026-11-09T14:00:00.000Z");
  }, 30_000);
});

describe("retries and outcomes", () => {
  test("busy and no-answer are retried after the delay up to max_attempts; answered and voicemail are final; results say so", async () => {
    const csv = ["phone,name", "+13035550101,busy", "+13035550102,no-answer", "+13035550103,machine", "+13035550104,answers"].join("\n");
    const id = await campaignWithContacts(
      api(),
      server.url,
      token(),
      { agent_id: agent.agentId, calls_per_minute: 6000, simulation: { ring_ms: 100 }, retry: { on: ["busy", "no_answer"], max_attempts: 3, delay_minutes: 30 } },
      csv,
    );
    const byName = () => Object.fromEntries(contactsOf(id).map((c) => [(c.variables as Record<string, string>).name, c]));
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    const stop = realTimeClock();
    try {
      await until(byName, (c) => c.busy.status === "retry_scheduled" && c["no-answer"].status === "retry_scheduled" && c.answers.status === "completed" && c.machine.status === "completed", 40_000);
    } finally {
      stop();
    }
    const first = byName();
    expect(first.busy.attempts).toBe(1);
    expect(first.busy.nextAttemptAt! - first.busy.updatedAt).toBe(30 * 60_000);
    expect(first.machine.lastEndReason).toBe("voicemail");
    expect(first.answers.lastEndReason).toBe("customer_hangup");

    for (const attempt of [2, 3]) {
      advance(30 * 60_000);
      const stopAgain = realTimeClock();
      try {
        await until(byName, (c) => c.busy.attempts === attempt && c.busy.status !== "dialing" && c["no-answer"].attempts === attempt && c["no-answer"].status !== "dialing", 20_000);
      } finally {
        stopAgain();
      }
    }
    const done = await until(() => getCampaign(id), (c) => c.status === "completed");
    expect(done.counts).toMatchObject({ total: 4, busy: 1, no_answer: 1, completed: 2 });
    const perNumber = (n: string) => callsOf(id).filter((c) => c.toNumber === n).length;
    expect([perNumber("+13035550101"), perNumber("+13035550102"), perNumber("+13035550103"), perNumber("+13035550104")]).toEqual([3, 3, 1, 1]);

    const stats = await api().get(`/v1/campaigns/${id}/stats`, { token: token() });
    expect(stats.body).toMatchObject({ status: "completed", calls: 8, progress: 1 });
    expect(stats.body.answered).toBe(2);
    const results = parseCsv(await (await fetch(`${server.url}/v1/campaigns/${id}/results`, { headers: { authorization: `Bearer ${token()}` } })).text());
    const header = results[0];
    const row = (name: string) => Object.fromEntries(header.map((h, i) => [h, results.find((r) => r[0] === name)![i]]));
    expect(row("busy")).toMatchObject({ phone: "+13035550101", status: "busy", attempts: "3", end_reason: "busy" });
    expect(row("machine")).toMatchObject({ status: "completed", attempts: "1", end_reason: "voicemail" });

    // campaign.completed reached the workspace endpoint, with the counts.
    const delivered = await until(() => receiver.requests.map((r) => JSON.parse(r.body)).filter((e) => e.data.campaign_id === id), (list) => list.length === 1);
    expect(delivered[0]).toMatchObject({ event: "campaign.completed", data: { campaign_id: id, counts: { busy: 1, no_answer: 1, completed: 2 }, calls: 8 } });
  }, 90_000);
});

describe("pause, resume, cancel", () => {
  test("pause stops new dials while calls in progress finish; start resumes; cancel ends it for good", async () => {
    const id = await campaignWithContacts(
      api(),
      server.url,
      token(),
      { agent_id: agent.agentId, concurrency: 1, calls_per_minute: 6000, simulation: { ...SHORT_CALLS, hang_up_after_ms: 600 } },
      `phone\n${numbers(6, "617").join("\n")}\n`,
    );
    const stop = realTimeClock();
    try {
      await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
      await until(() => liveCallsOf(id), (n) => n === 1);
      const paused = await api().post(`/v1/campaigns/${id}/pause`, undefined, { token: token() });
      expect(paused.body.status).toBe("paused");
      // The call in progress ends normally; nobody else is called while paused.
      await until(() => liveCallsOf(id), (n) => n === 0);
      await Bun.sleep(500);
      expect(callsOf(id)).toHaveLength(1);
      expect((await getCampaign(id)).counts).toMatchObject({ completed: 1, pending: 5 });

      expect((await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() })).body.status).toBe("running");
      await until(() => callsOf(id).length, (n) => n >= 2);
      const canceled = await api().post(`/v1/campaigns/${id}/cancel`, undefined, { token: token() });
      expect(canceled.body.status).toBe("canceled");
      await until(() => liveCallsOf(id), (n) => n === 0);
      await Bun.sleep(300);
    } finally {
      stop();
    }
    const after = await getCampaign(id);
    expect(after.status).toBe("canceled");
    expect(after.counts.canceled).toBe(6 - callsOf(id).length);
    expect(after.counts.dialing).toBe(0);
    const again = await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    expect(again.status).toBe(409);
    expect(again.body.errors).toEqual([{ field: "status", message: "is canceled" }]);
  }, 30_000);

  test("paused while its last call is live, it completes when that call ends (paused → completed)", async () => {
    const id = await campaignWithContacts(api(), server.url, token(), { agent_id: agent.agentId, simulation: { ...SHORT_CALLS, hang_up_after_ms: 800 } }, "phone\n+16175550190\n");
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    await until(() => liveCallsOf(id), (n) => n === 1);
    expect((await api().post(`/v1/campaigns/${id}/pause`, undefined, { token: token() })).body.status).toBe("paused");
    const done = await until(() => getCampaign(id), (c) => c.status !== "paused");
    expect(done).toMatchObject({ status: "completed", counts: { completed: 1 } });
  });

  test("an agent that cannot call pauses the campaign with the reason; no contact loses an attempt", async () => {
    const bare = await api().post("/v1/agents", { name: "No number" }, { token: token() });
    const id = await campaignWithContacts(api(), server.url, token(), { agent_id: bare.body.id }, `phone\n${numbers(2, "720").join("\n")}\n`);
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    const paused = await until(() => getCampaign(id), (c) => c.status === "paused");
    expect(paused.last_error).toContain("no phone number");
    expect(contactsOf(id).map((c) => [c.status, c.attempts])).toEqual([
      ["pending", 0],
      ["pending", 0],
    ]);
    expect(callsOf(id)).toHaveLength(0);
  });

  test("an agent with a running campaign cannot be deleted; the 409 names the campaign", async () => {
    const other = await callingAgent(api(), token(), "808");
    const id = await campaignWithContacts(api(), server.url, token(), { agent_id: other.agentId, window: { days: [7], start: "00:00", end: "00:01", timezone: "UTC" } }, "phone\n+18085550150\n");
    await api().post(`/v1/campaigns/${id}/start`, undefined, { token: token() });
    const res = await api().delete(`/v1/agents/${other.agentId}`, { token: token() });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain(id);
  });
});
