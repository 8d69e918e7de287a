// Phone numbers (endpoints 68–76) on the simulated carrier: inventory search, buy, import, edit,
// assignment to agents, release.
import { describe, expect, test } from "bun:test";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("numbers");
const opts = () => ({ token: s.user.token });
const FICTIONAL = /^\+1[2-9]\d\d5550(1\d\d)$/;

function expectFieldError(res: { status: number; body: any; headers: Headers }, field: string, status = 422) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect(res.body.code).toBe(status === 422 ? "validation_failed" : "number_unavailable");
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

async function newAgent(name = "Receptionist") {
  const res = await s.server.api.post("/v1/agents", { name }, opts());
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe("inventory search", () => {
  test("filters by area code and digits, honours the limit, and only offers fictional numbers", async () => {
    const res = await s.server.api.get("/v1/phone-numbers/available?area_code=303&limit=5", opts());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(res.body.data).toHaveLength(5);
    for (const item of res.body.data) {
      expect(item).toEqual({ object: "available_number", number: expect.stringMatching(/^\+13035550\d{3}$/), carrier: "simulated", region: "US 303" });
      expect(item.number).toMatch(FICTIONAL);
    }
    const contains = await s.server.api.get("/v1/phone-numbers/available?area_code=303&contains=0177", opts());
    expect(contains.body.data.map((n: { number: string }) => n.number)).toEqual(["+13035550177"]);
    const anywhere = await s.server.api.get("/v1/phone-numbers/available?limit=100", opts());
    expect(anywhere.body.data).toHaveLength(100);
    expect(new Set(anywhere.body.data.map((n: { number: string }) => n.number)).size).toBe(100);
  });

  test("numbers taken by any workspace are not offered", async () => {
    const other = await registerUser(s.server.api, "other-buyer");
    const bought = await s.server.api.post("/v1/phone-numbers/buy", { number: "+15125550100" }, { token: other.token });
    expect(bought.status).toBe(201);
    const res = await s.server.api.get("/v1/phone-numbers/available?area_code=512&limit=3", opts());
    expect(res.body.data.map((n: { number: string }) => n.number)).toEqual(["+15125550101", "+15125550102", "+15125550103"]);
  });

  test("bad queries name the parameter", async () => {
    expectFieldError(await s.server.api.get("/v1/phone-numbers/available?area_code=123", opts()), "area_code");
    expectFieldError(await s.server.api.get("/v1/phone-numbers/available?contains=12a", opts()), "contains");
    expectFieldError(await s.server.api.get("/v1/phone-numbers/available?limit=0", opts()), "limit");
    expectFieldError(await s.server.api.get("/v1/phone-numbers/available?limit=101", opts()), "limit");
    expectFieldError(await s.server.api.get("/v1/phone-numbers/available?carrier_id=prv_twilio", opts()), "carrier_id");
  });
});

describe("buy and import", () => {
  test("buys the number asked for, or the first free one of an area code", async () => {
    const res = await s.server.api.post("/v1/phone-numbers/buy", { number: "+16175550142", label: "Support line" }, opts());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pn_/),
      object: "phone_number",
      number: "+16175550142",
      carrier: "simulated",
      label: "Support line",
      agent_id: null,
      inbound: { enabled: true, variables: {} },
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const first = await s.server.api.post("/v1/phone-numbers/buy", { area_code: "206" }, opts());
    const second = await s.server.api.post("/v1/phone-numbers/buy", { area_code: "206" }, opts());
    expect([first.body.number, second.body.number]).toEqual(["+12065550100", "+12065550101"]);
    const any = await s.server.api.post("/v1/phone-numbers/buy", {}, opts());
    expect(any.status).toBe(201);
    expect(any.body.number).toMatch(FICTIONAL);
  });

  test("refuses real numbers (422 number), taken ones (409) and bad input", async () => {
    const real = await s.server.api.post("/v1/phone-numbers/buy", { number: "+14155552671" }, opts());
    expectFieldError(real, "number");
    expect(real.body.errors[0].message).toContain("fictional");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/buy", { number: "4155550123" }, opts()), "number");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/buy", { area_code: "099" }, opts()), "area_code");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/buy", { carrier_id: "prv_nope" }, opts()), "carrier_id");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/buy", { label: "x".repeat(101) }, opts()), "label");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/buy", { number: "+16175550143", colour: "red" }, opts()), "colour");

    expect((await s.server.api.post("/v1/phone-numbers/buy", { number: "+16175550150" }, opts())).status).toBe(201);
    const taken = await s.server.api.post("/v1/phone-numbers/buy", { number: "+16175550150" }, opts());
    expectFieldError(taken, "number", 409);
    // Another workspace's number is just as taken.
    const elsewhere = await s.server.api.post("/v1/phone-numbers/buy", { number: "+15125550100" }, opts());
    expect(elsewhere.status).toBe(409);
  });

  test("imports a number of one's own, once", async () => {
    const res = await s.server.api.post("/v1/phone-numbers/import", { number: "+442071838750", label: "London DID" }, opts());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ number: "+442071838750", carrier: "simulated", label: "London DID", agent_id: null });
    expect((await s.server.api.post("/v1/phone-numbers/import", { number: "+442071838750" }, opts())).status).toBe(409);
    expectFieldError(await s.server.api.post("/v1/phone-numbers/import", { number: "020 7183 8750" }, opts()), "number");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/import", {}, opts()), "number");
    expectFieldError(await s.server.api.post("/v1/phone-numbers/import", { number: "+442071838751", carrier: "prv_sip" }, opts()), "carrier");
  });
});

describe("one number's life", () => {
  test("list, get, patch, assign, unassign, release; the number is for sale again", async () => {
    const { server } = s;
    server.clock.advance(1000); // the fake clock stands still otherwise: make this the newest
    const bought = await server.api.post("/v1/phone-numbers/buy", { number: "+13125550160" }, opts());
    const id = bought.body.id as string;

    const list = await server.api.get("/v1/phone-numbers?limit=2", opts());
    expect(list.status).toBe(200);
    expect(list.body.data[0].id).toBe(id); // newest first
    expect(list.body.has_more).toBe(true);
    const rest = await server.api.get(`/v1/phone-numbers?limit=100&cursor=${list.body.next_cursor}`, opts());
    const ids = [...list.body.data, ...rest.body.data].map((n: { id: string }) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(rest.body.has_more).toBe(false);

    expect((await server.api.get(`/v1/phone-numbers/${id}`, opts())).body.number).toBe("+13125550160");
    const missing = await server.api.get("/v1/phone-numbers/pn_doesnotexist", opts());
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");

    const patched = await server.api.patch(`/v1/phone-numbers/${id}`, { label: "Sales", inbound: { enabled: false, variables: { team: "sales" } } }, opts());
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ label: "Sales", inbound: { enabled: false, variables: { team: "sales" } } });
    // A partial inbound change keeps the rest.
    const enabled = await server.api.patch(`/v1/phone-numbers/${id}`, { inbound: { enabled: true } }, opts());
    expect(enabled.body.inbound).toEqual({ enabled: true, variables: { team: "sales" } });
    const cleared = await server.api.patch(`/v1/phone-numbers/${id}`, { label: null }, opts());
    expect(cleared.body).toMatchObject({ label: null, inbound: { enabled: true } });
    const long = await server.api.patch(`/v1/phone-numbers/${id}`, { label: "x".repeat(101) }, opts());
    expectFieldError(long, "label");
    // What is wrong with a string for `string | null` is its length, not its type.
    expect(long.body.errors[0].message).toContain("100");
    expectFieldError(await server.api.patch(`/v1/phone-numbers/${id}`, { inbound: { enabled: "yes" } }, opts()), "inbound.enabled");
    expectFieldError(await server.api.patch(`/v1/phone-numbers/${id}`, { number: "+13125550161" }, opts()), "number");
    expect((await server.api.get(`/v1/phone-numbers/${id}`, opts())).body.number).toBe("+13125550160");

    const agentId = await newAgent();
    expectFieldError(await server.api.post(`/v1/phone-numbers/${id}/assign`, { agent_id: "agent_nope" }, opts()), "agent_id");
    expectFieldError(await server.api.post(`/v1/phone-numbers/${id}/assign`, {}, opts()), "agent_id");
    const assigned = await server.api.post(`/v1/phone-numbers/${id}/assign`, { agent_id: agentId }, opts());
    expect(assigned.status).toBe(200);
    expect(assigned.body.agent_id).toBe(agentId);
    expect((await server.api.get(`/v1/phone-numbers/${id}`, opts())).body.agent_id).toBe(agentId);

    const blocked = await server.api.delete(`/v1/agents/${agentId}`, opts());
    expect(blocked.status).toBe(409);
    expect(blocked.body.detail).toContain("+13125550160");

    const unassigned = await server.api.post(`/v1/phone-numbers/${id}/unassign`, undefined, opts());
    expect(unassigned.status).toBe(200);
    expect(unassigned.body.agent_id).toBeNull();

    // Released while assigned: the agent is free again too.
    const otherAgent = await newAgent("Night shift");
    await server.api.post(`/v1/phone-numbers/${id}/assign`, { agent_id: otherAgent }, opts());
    expect((await server.api.get("/v1/phone-numbers/available?area_code=312&contains=0160", opts())).body.data).toEqual([]);
    const released = await server.api.delete(`/v1/phone-numbers/${id}`, opts());
    expect(released.status).toBe(204);
    expect((await server.api.get(`/v1/phone-numbers/${id}`, opts())).status).toBe(404);
    expect((await server.api.delete(`/v1/phone-numbers/${id}`, opts())).status).toBe(404);
    expect((await server.api.delete(`/v1/agents/${otherAgent}`, opts())).status).toBe(204);
    expect((await server.api.delete(`/v1/agents/${agentId}`, opts())).status).toBe(204);

    const again = await server.api.get("/v1/phone-numbers/available?area_code=312&contains=0160", opts());
    expect(again.body.data.map((n: { number: string }) => n.number)).toEqual(["+13125550160"]);
    expect((await server.api.post("/v1/phone-numbers/buy", { number: "+13125550160" }, opts())).status).toBe(201);
  });
});
