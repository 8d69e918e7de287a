// Schedules (endpoints 115–119) on a fake clock: one-off (`at`) and recurring (`cron` + `timezone`)
// calls, validation, moving and canceling before dispatch, one call per run however often its job
// runs, daylight-saving changes, and the missed-run policy after an outage (a restart on the same
// data dir with the clock moved on).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeParley, createParley, type Parley, startServer } from "../../src/server.ts";
import { and, eq } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { createLogger } from "../../src/core/logger.ts";
import { jobs, scheduleRuns, schedules } from "../../src/db/schema/index.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import type { RunningJob } from "../../src/jobs/runner.ts";
import { createOutboundCall } from "../../src/modules/calls/service.ts";
import { runSchedule, type PlaceScheduledCall } from "../../src/modules/schedules/runner.ts";
import { RUN_JOB } from "../../src/modules/schedules/service.ts";
import { ApiClient } from "../helpers/client.ts";
import { createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { startTestServer } from "../helpers/server.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const GRACE_MINUTES = 5;
const SETTINGS = { scheduleGraceMinutes: String(GRACE_MINUTES) };
const T0 = Date.parse("2026-01-05T10:00:00Z"); // a Monday, on the hour: cron times are easy to read

// Fictional destinations: ...01 is busy (the call ends at once).
const BUSY = "+14155550101";

const s = serverWithUser("schedules", { settings: SETTINGS, startAt: T0 });

interface Workspace {
  /** A write API key: it never expires, unlike a 15-minute access token on a clock that jumps hours. */
  key: string;
  agentId: string;
  number: string;
}

/** An agent with a bought and assigned number, and a key to act with. */
async function setUpWorkspace(api: ApiClient, label: string): Promise<Workspace> {
  const user = await registerUser(api, label);
  const key = (await createKey(api, user.token, "write")).secret;
  const must = async (res: Promise<{ status: number; body: any; text: string }>) => {
    const r = await res;
    if (r.status !== 200 && r.status !== 201) throw new Error(`${r.status} ${r.text}`);
    return r.body;
  };
  const agent = await must(api.post("/v1/agents", { name: "Reminders", first_message: "Hi, this is your reminder." }, { token: key }));
  const number = await must(api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key }));
  await must(api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key }));
  return { key, agentId: agent.id, number: number.number };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The same instant written with a numeric offset (minutes east of UTC), e.g. 2026-01-05T05:10:00-05:00. */
function isoWithOffset(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * MINUTE).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** Calls a schedule placed, straight from the table (the API's list has no metadata filter). */
function callsOf(ctx: Parley, scheduleId: string): { id: string; createdAt: number }[] {
  return ctx.sqlite
    .prepare(`SELECT id, created_at AS "createdAt" FROM calls WHERE json_extract(metadata, '$.schedule_id') = ? ORDER BY created_at, id`)
    .all(scheduleId) as { id: string; createdAt: number }[];
}

function jobsOf(ctx: Parley, scheduleId: string, runAt: number) {
  return ctx.db.select().from(jobs).where(eq(jobs.uniqueKey, `${RUN_JOB}:${scheduleId}:${runAt}`)).all();
}

/** A job as the runner would hand it to the handler (for running one twice by hand). */
function fakeJob(scheduleId: string, runAt: number, workspaceId: string): RunningJob<{ schedule_id: string; run_at: number }> {
  return { id: "job_by_hand", type: RUN_JOB, payload: { schedule_id: scheduleId, run_at: runAt }, attempt: 1, maxAttempts: 3, workspaceId, signal: new AbortController().signal, row: {} as never, complete: () => true };
}

/** Moves the fake clock to `ms` (never back) and runs every job that is due, calls placed included. */
async function moveTo(ctx: Parley, clock: ManualClock, ms: number): Promise<void> {
  if (ms > clock.now()) clock.set(ms);
  await ctx.jobs.drain();
}

const fields = (res: { body: any }) => (res.body?.errors ?? []).map((e: { field: string }) => e.field);

describe("schedules on one server", () => {
  let ws: Workspace;
  const as = () => ({ token: ws.key });
  const api = () => s.server.api;
  const ctx = () => s.server.ctx;
  const clock = () => s.server.clock;
  const now = () => s.server.clock.now();
  const create = (body: Record<string, unknown>) => api().post("/v1/schedules", body, as());
  const get = async (id: string) => {
    const res = await api().get(`/v1/schedules/${id}`, as());
    expect(res.status).toBe(200);
    return res.body;
  };
  async function created(body: Record<string, unknown>) {
    const res = await create({ agent_id: ws.agentId, to: BUSY, ...body });
    if (res.status !== 201) throw new Error(`POST /v1/schedules: ${res.status} ${res.text}`);
    return res.body;
  }
  const advance = (ms: number) => moveTo(ctx(), clock(), now() + ms);

  beforeAll(async () => {
    ws = await setUpWorkspace(s.server.api, "scheduler");
  });

  test("validation: each mistake is a 422 naming its field, and nothing is stored", async () => {
    const other = await setUpWorkspace(api(), "neighbour"); // owns a number this workspace does not
    const soon = now() + HOUR;
    // A pattern with two seconds in a minute, created after its first second has passed: the next two
    // runs are a day apart, the two after that 30 s.
    clock().advance(15_000);
    const t = new Date(now());
    const twicePerMinute = `0,30 ${t.getUTCMinutes()} ${t.getUTCHours()} * * *`;
    const cases: [string, Record<string, unknown>, string][] = [
      ["at without an offset", { at: iso(soon).slice(0, 19) }, "at"],
      ["at in the past", { at: iso(now() - MINUTE) }, "at"],
      ["at that is now", { at: iso(now()) }, "at"],
      ["at that is no date", { at: "2026-13-45T99:00:00Z" }, "at"],
      ["neither at nor cron", {}, "at"],
      ["both at and cron", { at: iso(soon), cron: "0 9 * * *" }, "cron"],
      ["timezone with at", { at: iso(soon), timezone: "Europe/Paris" }, "timezone"],
      ["a bad cron", { cron: "every morning" }, "cron"],
      ["a cron with too many fields", { cron: "0 9 * * * * * *" }, "cron"],
      ["a cron every second", { cron: "* * * * * *" }, "cron"],
      ["a cron every 30 s", { cron: "*/30 * * * * *" }, "cron"],
      ["a cron twice in one minute, seen from between the two", { cron: twicePerMinute }, "cron"],
      ["an unknown time zone", { cron: "0 9 * * *", timezone: "Mars/Olympus_Mons" }, "timezone"],
      ["an unknown agent", { agent_id: "agent_doesnotexist", at: iso(soon) }, "agent_id"],
      ["another workspace's agent", { agent_id: other.agentId, at: iso(soon) }, "agent_id"],
      ["a caller id this workspace does not own", { from: other.number, at: iso(soon) }, "from"],
      ["a destination that is not E.164", { to: "555-0101", at: iso(soon) }, "to"],
      ["an unknown field", { at: iso(soon), repeat: true }, "repeat"],
    ];
    const before = ctx().db.select().from(schedules).all().length;
    for (const [label, body, field] of cases) {
      const res = await create({ agent_id: ws.agentId, to: BUSY, ...body });
      expect({ label, status: res.status, code: res.body?.code }).toEqual({ label, status: 422, code: "validation_failed" });
      expect({ label, fields: fields(res) }).toEqual({ label, fields: expect.arrayContaining([field]) });
    }
    expect(ctx().db.select().from(schedules).all().length).toBe(before);
    // Once a minute is allowed, and so is the workspace's own number as caller id.
    const everyMinute = await created({ cron: "* * * * *", from: ws.number });
    expect(everyMinute).toMatchObject({ kind: "recurring", status: "active", from: ws.number, timezone: "UTC" });
    expect((await api().delete(`/v1/schedules/${everyMinute.id}`, as())).status).toBe(200);
  });

  test("one-off: nothing happens before `at`; at `at` exactly one call, recorded on the schedule", async () => {
    const due = now() + 10 * MINUTE;
    // Written in New York time: the offset decides the instant.
    const sch = await created({ at: isoWithOffset(due, -5 * 60), variables: { name: "Ada" }, metadata: { crm: "c-9" } });
    expect(sch.id).toMatch(/^sch_/);
    expect(sch).toMatchObject({
      object: "schedule",
      kind: "one_off",
      status: "scheduled",
      agent_id: ws.agentId,
      to: BUSY,
      from: null,
      at: iso(due),
      cron: null,
      timezone: null,
      next_run_at: iso(due),
      variables: { name: "Ada" },
      metadata: { crm: "c-9" },
      runs: [],
    });
    expect(jobsOf(ctx(), sch.id, due)).toHaveLength(1);

    await advance(10 * MINUTE - 1000);
    expect(callsOf(ctx(), sch.id)).toEqual([]);
    expect(await get(sch.id)).toMatchObject({ status: "scheduled", runs: [] });

    await advance(1000);
    const calls = callsOf(ctx(), sch.id);
    expect(calls).toHaveLength(1);
    const after = await get(sch.id);
    expect(after).toMatchObject({ status: "dispatched", next_run_at: null, runs: [{ run_at: iso(due), status: "dispatched", call_id: calls[0].id, detail: null }] });

    const call = await api().get(`/v1/calls/${calls[0].id}`, as());
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ direction: "outbound", agent_id: ws.agentId, to: BUSY, from: ws.number, variables: { name: "Ada" }, metadata: { crm: "c-9", schedule_id: sch.id } });
    expect(Date.parse(call.body.created_at)).toBe(due);

    // Later moves of the clock change nothing.
    await advance(HOUR);
    expect(callsOf(ctx(), sch.id)).toHaveLength(1);

    // Listed, and filterable by status and agent.
    const list = await api().get(`/v1/schedules?status=dispatched&agent_id=${ws.agentId}`, as());
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => x.id)).toContain(sch.id);
    expect(list.body.data.every((x: any) => x.status === "dispatched")).toBe(true);
  });

  test("PATCH moves `at`: the old time no longer fires, the new one does; afterwards PATCH and DELETE are 409", async () => {
    const first = now() + 10 * MINUTE;
    const moved = now() + 25 * MINUTE;
    const sch = await created({ at: iso(first) });
    const patched = await api().patch(`/v1/schedules/${sch.id}`, { at: iso(moved), variables: { moved: true } }, as());
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: "scheduled", at: iso(moved), next_run_at: iso(moved), variables: { moved: true } });

    await moveTo(ctx(), clock(), first + MINUTE);
    expect(callsOf(ctx(), sch.id)).toEqual([]);
    expect(await get(sch.id)).toMatchObject({ status: "scheduled", runs: [] });
    // The old time's job ran and stood down.
    expect(jobsOf(ctx(), sch.id, first).map((j) => j.state)).toEqual(["completed"]);

    await moveTo(ctx(), clock(), moved);
    const calls = callsOf(ctx(), sch.id);
    expect(calls).toHaveLength(1);
    expect(await get(sch.id)).toMatchObject({ status: "dispatched", runs: [{ run_at: iso(moved), call_id: calls[0].id }] });
    const call = await api().get(`/v1/calls/${calls[0].id}`, as());
    expect(call.body.variables).toEqual({ moved: true });

    // Too late to move or cancel: 409 saying why.
    const repatch = await api().patch(`/v1/schedules/${sch.id}`, { at: iso(now() + HOUR) }, as());
    expect(repatch.status).toBe(409);
    expect(repatch.body.code).toBe("invalid_state");
    expect(repatch.body.detail).toContain("dispatched");
    const cancel = await api().delete(`/v1/schedules/${sch.id}`, as());
    expect(cancel.status).toBe(409);
    expect(cancel.body.detail).toContain("dispatched");
    expect((await get(sch.id)).status).toBe("dispatched");
  });

  test("PATCH rules: a past time is 422; a one-off cannot turn recurring; an unknown id is 404", async () => {
    const sch = await created({ at: iso(now() + HOUR) });
    const past = await api().patch(`/v1/schedules/${sch.id}`, { at: iso(now() - 1000) }, as());
    expect(past.status).toBe(422);
    expect(fields(past)).toEqual(["at"]);
    const noOffset = await api().patch(`/v1/schedules/${sch.id}`, { at: iso(now() + 2 * HOUR).slice(0, 19) }, as());
    expect(fields(noOffset)).toEqual(["at"]);
    const toCron = await api().patch(`/v1/schedules/${sch.id}`, { cron: "0 9 * * *" }, as());
    expect(toCron.status).toBe(422);
    expect(fields(toCron)).toEqual(["cron"]);
    expect((await get(sch.id)).at).toBe(sch.at);
    expect((await api().patch("/v1/schedules/sch_nope", { at: iso(now() + HOUR) }, as())).status).toBe(404);
    expect((await api().delete("/v1/schedules/sch_nope", as())).status).toBe(404);
    expect((await api().delete(`/v1/schedules/${sch.id}`, as())).status).toBe(200);
  });

  test("DELETE before the time: the row stays `canceled` and nobody is called", async () => {
    const due = now() + 5 * MINUTE;
    const sch = await created({ at: iso(due) });
    const res = await api().delete(`/v1/schedules/${sch.id}`, as());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sch.id, status: "canceled", next_run_at: null, at: iso(due) });

    await moveTo(ctx(), clock(), due + MINUTE);
    expect(callsOf(ctx(), sch.id)).toEqual([]);
    expect(await get(sch.id)).toMatchObject({ status: "canceled", runs: [] });
    const again = await api().delete(`/v1/schedules/${sch.id}`, as());
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain("canceled");
    expect((await api().patch(`/v1/schedules/${sch.id}`, { to: BUSY }, as())).status).toBe(409);
    const list = await api().get("/v1/schedules?status=canceled", as());
    expect(list.body.data.map((x: any) => x.id)).toContain(sch.id);
  });

  test("recurring: each cron time places one call; runs[] lists them newest first; PATCH retimes; DELETE stops it", async () => {
    // Start from a known wall-clock minute: the next quarter hour plus 1 min.
    const quarter = 15 * MINUTE;
    await moveTo(ctx(), clock(), Math.ceil(now() / quarter) * quarter + MINUTE);
    const first = Math.ceil(now() / quarter) * quarter;
    const sch = await created({ cron: "*/15 * * * *", variables: { plan: "gold" } });
    expect(sch).toMatchObject({ kind: "recurring", status: "active", at: null, cron: "*/15 * * * *", timezone: "UTC", next_run_at: iso(first) });

    await moveTo(ctx(), clock(), first);
    await moveTo(ctx(), clock(), first + quarter);
    await moveTo(ctx(), clock(), first + 2 * quarter);
    const calls = callsOf(ctx(), sch.id);
    expect(calls.map((c) => c.createdAt)).toEqual([first, first + quarter, first + 2 * quarter]);
    const after = await get(sch.id);
    expect(after.status).toBe("active");
    expect(after.next_run_at).toBe(iso(first + 3 * quarter));
    expect(after.runs).toEqual([
      { run_at: iso(first + 2 * quarter), status: "dispatched", call_id: calls[2].id, detail: null },
      { run_at: iso(first + quarter), status: "dispatched", call_id: calls[1].id, detail: null },
      { run_at: iso(first), status: "dispatched", call_id: calls[0].id, detail: null },
    ]);
    for (const call of calls) {
      const res = await api().get(`/v1/calls/${call.id}`, as());
      expect(res.body.metadata.schedule_id).toBe(sch.id);
      expect(res.body.variables).toEqual({ plan: "gold" });
    }

    // Retimed to the top of the hour only: the pending quarter no longer fires.
    const retimed = await api().patch(`/v1/schedules/${sch.id}`, { cron: "0 * * * *" }, as());
    expect(retimed.status).toBe(200);
    const topOfHour = Math.ceil((now() + 1) / HOUR) * HOUR;
    expect(retimed.body).toMatchObject({ cron: "0 * * * *", status: "active", next_run_at: iso(topOfHour) });
    const everySecond = await api().patch(`/v1/schedules/${sch.id}`, { cron: "* * * * * *" }, as());
    expect(everySecond.status).toBe(422);
    const toOneOff = await api().patch(`/v1/schedules/${sch.id}`, { at: iso(now() + HOUR) }, as());
    expect(fields(toOneOff)).toEqual(["at"]);
    if (first + 3 * quarter < topOfHour) {
      await moveTo(ctx(), clock(), first + 3 * quarter);
      expect(callsOf(ctx(), sch.id)).toHaveLength(3);
    }
    await moveTo(ctx(), clock(), topOfHour);
    expect(callsOf(ctx(), sch.id)).toHaveLength(4);

    const canceled = await api().delete(`/v1/schedules/${sch.id}`, as());
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "canceled", next_run_at: null });
    expect(canceled.body.runs).toHaveLength(4);
    await moveTo(ctx(), clock(), topOfHour + 3 * HOUR);
    expect(callsOf(ctx(), sch.id)).toHaveLength(4);
  });

  test("a run places exactly one call however often its job runs", async () => {
    const due = now() + 10 * MINUTE;
    const sch = await created({ at: iso(due) });
    const key = `${RUN_JOB}:${sch.id}:${due}`;
    // Enqueued again before it runs: the unique key returns the job there is.
    const [existing] = jobsOf(ctx(), sch.id, due);
    const twin = enqueueJob(ctx(), { type: RUN_JOB, payload: { schedule_id: sch.id, run_at: due }, uniqueKey: key, runAt: due });
    expect(twin).toEqual({ id: existing.id, inserted: false });
    expect(jobsOf(ctx(), sch.id, due)).toHaveLength(1);

    await moveTo(ctx(), clock(), due);
    expect(callsOf(ctx(), sch.id)).toHaveLength(1);

    // Enqueued again after it ran (the key is free once the job finished): the new job stands down.
    expect(enqueueJob(ctx(), { type: RUN_JOB, payload: { schedule_id: sch.id, run_at: due }, uniqueKey: key, runAt: due }).inserted).toBe(true);
    await ctx().jobs.drain();
    expect(jobsOf(ctx(), sch.id, due).map((j) => j.state)).toEqual(["completed", "completed"]);
    // The handler run twice more by hand (with the real call placement): still nothing.
    const placeCall: PlaceScheduledCall = (workspaceId, input) => createOutboundCall(ctx(), ctx().carriers, workspaceId, input);
    await runSchedule(ctx(), placeCall, fakeJob(sch.id, due, s.user.workspaceId));
    await runSchedule(ctx(), placeCall, fakeJob(sch.id, due, s.user.workspaceId));
    expect(callsOf(ctx(), sch.id)).toHaveLength(1);

    // A worker that still sees the schedule as due (a stale read): the (schedule, run time) row exists,
    // so its transaction fails whole and the call it began is rolled back with it.
    const [call] = callsOf(ctx(), sch.id);
    ctx().db.update(schedules).set({ status: "scheduled", nextRunAt: due }).where(eq(schedules.id, sch.id)).run();
    await expect(runSchedule(ctx(), placeCall, fakeJob(sch.id, due, s.user.workspaceId))).rejects.toThrow(/UNIQUE constraint failed: schedule_runs|unique constraint "schedule_runs_unique"/); // SQLite's words, PostgreSQL's
    expect(callsOf(ctx(), sch.id)).toEqual([call]);
    const runs = ctx().db.select().from(scheduleRuns).where(and(eq(scheduleRuns.scheduleId, sch.id), eq(scheduleRuns.runAt, due))).all();
    expect(runs.map((r) => r.callId)).toEqual([call.id]);
    ctx().db.update(schedules).set({ status: "dispatched", nextRunAt: null }).where(eq(schedules.id, sch.id)).run();
  });

  test("a run the agent cannot make is recorded `failed` with the reason; a recurring schedule keeps going", async () => {
    const bare = await api().post("/v1/agents", { name: "No number yet", first_message: "Hello" }, as());
    const due = now() + 10 * MINUTE;
    const sch = await created({ agent_id: bare.body.id, at: iso(due) });
    await moveTo(ctx(), clock(), due);
    const after = await get(sch.id);
    expect(after).toMatchObject({ status: "failed", runs: [{ run_at: iso(due), status: "failed", call_id: null }] });
    expect(after.runs[0].detail).toContain("phone number");
    expect(callsOf(ctx(), sch.id)).toEqual([]);

    // Recurring: the failed run is on record, the schedule stays active, and once the agent has a
    // number the next run calls.
    const quarter = 15 * MINUTE;
    const recurring = await created({ agent_id: bare.body.id, cron: "*/15 * * * *" });
    const firstRun = Date.parse(recurring.next_run_at);
    await moveTo(ctx(), clock(), firstRun);
    expect(await get(recurring.id)).toMatchObject({ status: "active", next_run_at: iso(firstRun + quarter), runs: [{ run_at: iso(firstRun), status: "failed", call_id: null }] });
    const number = await api().post("/v1/phone-numbers/buy", { area_code: "628" }, as());
    expect((await api().post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: bare.body.id }, as())).status).toBe(200);
    await moveTo(ctx(), clock(), firstRun + quarter);
    const [call] = callsOf(ctx(), recurring.id);
    expect((await get(recurring.id)).runs.map((r: any) => [r.status, r.call_id])).toEqual([["dispatched", call.id], ["failed", null]]);
    expect((await api().delete(`/v1/schedules/${recurring.id}`, as())).status).toBe(200);
  });

  test("catching up: of the runs owed at once, only the latest is placed (if within the grace period), the others are missed", async () => {
    await moveTo(ctx(), clock(), Math.ceil(now() / MINUTE) * MINUTE + 30_000); // hh:mm:30
    const sch = await created({ cron: "* * * * *" });
    const first = Date.parse(sch.next_run_at);
    // The runner stalls 2 min (the process was suspended, say): three runs are owed, one call is placed.
    await moveTo(ctx(), clock(), first + 2 * MINUTE);
    let calls = callsOf(ctx(), sch.id);
    expect(calls).toHaveLength(1);
    let after = await get(sch.id);
    expect(after.runs.map((r: any) => [r.run_at, r.status, r.call_id])).toEqual([
      [iso(first + 2 * MINUTE), "dispatched", calls[0].id],
      [iso(first + MINUTE), "missed", null],
      [iso(first), "missed", null],
    ]);
    expect(after.runs[1].detail).toContain(`a later run, at ${iso(first + 2 * MINUTE)}`);
    expect(after.next_run_at).toBe(iso(first + 3 * MINUTE));

    // Three hours at once: 180 runs owed. The first 100 are recorded one by one, the latest (due now)
    // is placed, and the schedule goes on from the next minute.
    const jump = first + 3 * MINUTE + 3 * HOUR - MINUTE;
    await moveTo(ctx(), clock(), jump);
    calls = callsOf(ctx(), sch.id);
    expect(calls.map((c) => c.createdAt)).toEqual([first + 2 * MINUTE, jump]);
    const runs = ctx().db.select().from(scheduleRuns).where(eq(scheduleRuns.scheduleId, sch.id)).all();
    expect(runs.filter((r) => r.status === "dispatched").map((r) => r.runAt)).toEqual([first + 2 * MINUTE, jump]);
    expect(runs.filter((r) => r.status === "missed")).toHaveLength(2 + 100);
    after = await get(sch.id);
    expect(after.runs).toHaveLength(20); // the latest 20
    expect(after.runs[0]).toMatchObject({ run_at: iso(jump), status: "dispatched", call_id: calls[1].id });
    expect(after.runs[1]).toMatchObject({ run_at: iso(first + 3 * MINUTE + 99 * MINUTE), status: "missed" });
    expect(after.runs[1].detail).toContain("min after this run was due");
    expect(after.next_run_at).toBe(iso(jump + MINUTE));
    expect((await api().delete(`/v1/schedules/${sch.id}`, as())).status).toBe(200);
  });

  test("deleting an agent with an active schedule is 409 naming the schedule; after canceling it works", async () => {
    const agent = await api().post("/v1/agents", { name: "Scheduled only", first_message: "Hi" }, as());
    const oneOff = await created({ agent_id: agent.body.id, at: iso(now() + HOUR) });
    const recurring = await created({ agent_id: agent.body.id, cron: "30 8 * * 1-5", timezone: "Europe/London" });
    const refused = await api().delete(`/v1/agents/${agent.body.id}`, as());
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("agent_in_use");
    expect(refused.body.detail).toContain(oneOff.id);
    expect(refused.body.detail).toContain(recurring.id);
    expect((await api().delete(`/v1/schedules/${oneOff.id}`, as())).status).toBe(200);
    const stillRefused = await api().delete(`/v1/agents/${agent.body.id}`, as());
    expect(stillRefused.status).toBe(409);
    expect(stillRefused.body.detail).not.toContain(oneOff.id);
    expect(stillRefused.body.detail).toContain(recurring.id);
    expect((await api().delete(`/v1/schedules/${recurring.id}`, as())).status).toBe(200);
    expect((await api().delete(`/v1/agents/${agent.body.id}`, as())).status).toBe(204);
  });

  test("another workspace cannot see, move or cancel a schedule", async () => {
    const sch = await created({ at: iso(now() + HOUR) });
    const stranger = await registerUser(api(), "stranger");
    const them = { token: stranger.token };
    expect((await api().get(`/v1/schedules/${sch.id}`, them)).status).toBe(404);
    expect((await api().patch(`/v1/schedules/${sch.id}`, { at: iso(now() + 2 * HOUR) }, them)).status).toBe(404);
    expect((await api().delete(`/v1/schedules/${sch.id}`, them)).status).toBe(404);
    expect((await api().get("/v1/schedules", them)).body.data).toEqual([]);
    expect((await get(sch.id)).status).toBe("scheduled");
    await api().delete(`/v1/schedules/${sch.id}`, as());
  });
});

describe("daylight saving time", () => {
  test("`0 9 * * *` in America/New_York fires at 09:00 local across both switches (UTC moves by an hour)", async () => {
    const server = await startTestServer({ settings: SETTINGS, startAt: Date.parse("2026-03-06T15:00:00Z") });
    try {
      const ws = await setUpWorkspace(server.api, "dst");
      const as = { token: ws.key };
      const make = async () => {
        const res = await server.api.post("/v1/schedules", { agent_id: ws.agentId, to: BUSY, cron: "0 9 * * *", timezone: "America/New_York" }, as);
        expect(res.status).toBe(201);
        return res.body;
      };
      const fire = async (id: string, expected: string) => {
        expect((await server.api.get(`/v1/schedules/${id}`, as)).body.next_run_at).toBe(expected);
        await moveTo(server.ctx, server.clock, Date.parse(expected));
      };

      // Spring forward on Sunday 8 March 2026: EST (-05:00) → EDT (-04:00).
      const spring = await make();
      expect(spring.timezone).toBe("America/New_York");
      await fire(spring.id, "2026-03-07T14:00:00.000Z"); // Saturday 09:00 EST
      await fire(spring.id, "2026-03-08T13:00:00.000Z"); // Sunday 09:00 EDT
      await fire(spring.id, "2026-03-09T13:00:00.000Z");
      const springRuns = (await server.api.get(`/v1/schedules/${spring.id}`, as)).body.runs;
      expect(springRuns.map((r: any) => [r.run_at, r.status])).toEqual([
        ["2026-03-09T13:00:00.000Z", "dispatched"],
        ["2026-03-08T13:00:00.000Z", "dispatched"],
        ["2026-03-07T14:00:00.000Z", "dispatched"],
      ]);
      expect(springRuns.every((r: any) => r.call_id?.startsWith("call_"))).toBe(true);
      expect(callsOf(server.ctx, spring.id).map((c) => iso(c.createdAt))).toEqual(springRuns.map((r: any) => r.run_at).reverse());
      expect((await server.api.delete(`/v1/schedules/${spring.id}`, as)).status).toBe(200);

      // Fall back on Sunday 1 November 2026: EDT → EST.
      await moveTo(server.ctx, server.clock, Date.parse("2026-10-30T12:00:00Z"));
      const fall = await make();
      await fire(fall.id, "2026-10-30T13:00:00.000Z"); // Friday 09:00 EDT
      await fire(fall.id, "2026-10-31T13:00:00.000Z");
      await fire(fall.id, "2026-11-01T14:00:00.000Z"); // Sunday 09:00 EST
      await fire(fall.id, "2026-11-02T14:00:00.000Z");
      const fallRuns = (await server.api.get(`/v1/schedules/${fall.id}`, as)).body.runs;
      expect(fallRuns.map((r: any) => r.run_at)).toEqual(["2026-11-02T14:00:00.000Z", "2026-11-01T14:00:00.000Z", "2026-10-31T13:00:00.000Z", "2026-10-30T13:00:00.000Z"]);
      expect(callsOf(server.ctx, fall.id)).toHaveLength(4);
      // The spring schedule, canceled, never ran again across the months the clock jumped.
      expect(callsOf(server.ctx, spring.id)).toHaveLength(3);
    } finally {
      await server.stop();
    }
  }, 30_000);
});

/** A server on a given data dir whose fake clock starts at `startAt`: stop it and boot another to simulate an outage. */
function bootOn(dataDir: string, startAt: number) {
  const config = buildConfig({
    host: "127.0.0.1",
    port: "0",
    dataDir,
    allowPrivateUrls: "true",
    rateLimitPerMinute: "100000",
    publicRateLimitPerMinute: "100000",
    ...SETTINGS,
  });
  config.checkResponses = true;
  const clock = new ManualClock(startAt);
  const ctx = createParley({ config, clock, logger: createLogger("info", () => {}) });
  const server = startServer(ctx);
  return {
    ctx,
    clock,
    api: new ApiClient(server.url),
    async stop() {
      await server.stop();
      closeParley(ctx);
    },
  };
}

describe("missed runs after an outage", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-schedules-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test(`on start, a run at most ${GRACE_MINUTES} min late is placed; later than that it is recorded \`missed\``, async () => {
    const start = Date.parse("2026-01-05T12:00:00Z");
    const first = bootOn(dataDir, start);
    let ws!: Workspace;
    const ids = {} as Record<"lateOneOff" | "graceOneOff" | "everyTen" | "threeAndThirtyThree" | "future", string>;
    try {
      ws = await setUpWorkspace(first.api, "outage");
      const make = async (body: Record<string, unknown>) => {
        const res = await first.api.post("/v1/schedules", { agent_id: ws.agentId, to: BUSY, ...body }, { token: ws.key });
        expect(res.status).toBe(201);
        return res.body.id as string;
      };
      ids.lateOneOff = await make({ at: iso(start + 10 * MINUTE) }); // 26 min late at restart
      ids.graceOneOff = await make({ at: iso(start + 33 * MINUTE) }); // 3 min late
      ids.everyTen = await make({ cron: "*/10 * * * *" }); // :10, :20 and :30 all fall in the outage, :30 6 min late
      ids.threeAndThirtyThree = await make({ cron: "3,33 * * * *" }); // :03 33 min late, :33 3 min late
      ids.future = await make({ at: iso(start + 50 * MINUTE) }); // after the restart
      await first.ctx.jobs.drain();
      expect(first.ctx.sqlite.prepare("SELECT count(*) AS n FROM calls").get()).toEqual({ n: 0 });
    } finally {
      await first.stop();
    }

    // Down for 36 minutes.
    const restart = start + 36 * MINUTE;
    const second = bootOn(dataDir, restart);
    try {
      await second.ctx.jobs.drain();
      const get = async (id: string) => (await second.api.get(`/v1/schedules/${id}`, { token: ws.key })).body;

      const late = await get(ids.lateOneOff);
      expect(late).toMatchObject({ status: "missed", next_run_at: null, runs: [{ run_at: iso(start + 10 * MINUTE), status: "missed", call_id: null }] });
      expect(late.runs[0].detail).toContain("26 min");
      expect(callsOf(second.ctx, ids.lateOneOff)).toEqual([]);

      const grace = await get(ids.graceOneOff);
      const [graceCall] = callsOf(second.ctx, ids.graceOneOff);
      expect(grace).toMatchObject({ status: "dispatched", runs: [{ run_at: iso(start + 33 * MINUTE), status: "dispatched", call_id: graceCall.id }] });
      expect(graceCall.createdAt).toBe(restart); // placed on start, not at its (past) time
      expect((await second.api.get(`/v1/calls/${graceCall.id}`, { token: ws.key })).body.metadata.schedule_id).toBe(ids.graceOneOff);

      // Every occurrence the outage swallowed is on the record; none was called; the next one is queued.
      const everyTen = await get(ids.everyTen);
      expect(everyTen).toMatchObject({ status: "active", next_run_at: iso(start + 40 * MINUTE) });
      expect(everyTen.runs.map((r: any) => [r.run_at, r.status, r.call_id])).toEqual([
        [iso(start + 30 * MINUTE), "missed", null],
        [iso(start + 20 * MINUTE), "missed", null],
        [iso(start + 10 * MINUTE), "missed", null],
      ]);
      expect(callsOf(second.ctx, ids.everyTen)).toEqual([]);

      // The latest occurrence is within the grace period: it is placed; the older one is missed.
      const mixed = await get(ids.threeAndThirtyThree);
      const [mixedCall] = callsOf(second.ctx, ids.threeAndThirtyThree);
      expect(mixed.runs.map((r: any) => [r.run_at, r.status, r.call_id])).toEqual([
        [iso(start + 33 * MINUTE), "dispatched", mixedCall?.id],
        [iso(start + 3 * MINUTE), "missed", null],
      ]);
      expect(mixed.runs[1].detail).toContain("33 min");
      expect(mixed).toMatchObject({ status: "active", next_run_at: iso(start + 63 * MINUTE) });

      expect((await get(ids.future)).status).toBe("scheduled");

      // Running again, the schedules carry on as before.
      await moveTo(second.ctx, second.clock, start + 40 * MINUTE);
      const resumed = await get(ids.everyTen);
      expect(resumed.runs[0]).toMatchObject({ run_at: iso(start + 40 * MINUTE), status: "dispatched", call_id: callsOf(second.ctx, ids.everyTen)[0].id });
      await moveTo(second.ctx, second.clock, start + 50 * MINUTE);
      expect((await get(ids.future)).status).toBe("dispatched");
      expect(callsOf(second.ctx, ids.future)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  }, 30_000);
});
