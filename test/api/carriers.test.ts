// Carrier connections (endpoints 77–81): the built-in simulated carrier is every workspace's first
// connection; others are added, changed and removed by admins, and numbers and calls follow them.
import { describe, expect, test } from "bun:test";
import { carrierJson } from "../../src/modules/carriers/models.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { addMember, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("carriers");
const opts = () => ({ token: s.user.token });

function expectField(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe("the built-in simulated carrier", () => {
  test("heads the list, can be read, and cannot be changed or removed", async () => {
    const list = await s.server.api.get("/v1/telephony/carriers", opts());
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toEqual({
      id: "simulated",
      object: "carrier_connection",
      name: "Simulated carrier",
      kind: "simulated",
      settings: {},
      credentials: {},
      callback_urls: {},
      built_in: true,
      created_at: null,
      updated_at: null,
      status: { state: "ready", detail: null, listen_port: null },
    });
    expect((await s.server.api.get("/v1/telephony/carriers/simulated", opts())).body.id).toBe("simulated");
    const patch = await s.server.api.patch("/v1/telephony/carriers/simulated", { name: "mine now" }, opts());
    expect(`${patch.status} ${patch.body.code}`).toBe("409 invalid_state");
    const del = await s.server.api.delete("/v1/telephony/carriers/simulated", opts());
    expect(`${del.status} ${del.body.code}`).toBe("409 invalid_state");
  });
});

describe("a connection's life", () => {
  test("create, list, rename; numbers and calls use it; removal waits for its numbers", async () => {
    const created = await s.server.api.post("/v1/telephony/carriers", { name: "Lab line", kind: "simulated" }, opts());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "carrier_connection", name: "Lab line", kind: "simulated", built_in: false });
    const id = created.body.id as string;
    expect(id).toMatch(/^car_/);

    const list = await s.server.api.get("/v1/telephony/carriers", opts());
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual(["simulated", id]);
    const renamed = await s.server.api.patch(`/v1/telephony/carriers/${id}`, { name: "Lab line 2" }, opts());
    expect(renamed.body.name).toBe("Lab line 2");

    const offered = await s.server.api.get(`/v1/phone-numbers/available?carrier_id=${id}&area_code=512&limit=1`, opts());
    expect(offered.body.data[0]).toMatchObject({ carrier: id, region: "US 512" });
    const number = await s.server.api.post("/v1/phone-numbers/buy", { carrier_id: id, area_code: "512" }, opts());
    expect(number.status).toBe(201);
    expect(number.body.carrier).toBe(id);

    // A call from that number goes out on the connection (555-0101 is the simulator's busy line).
    const agent = await s.server.api.post("/v1/agents", { name: "Lab agent" }, opts());
    await s.server.api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, opts());
    const call = await s.server.api.post("/v1/calls/outbound", { agent_id: agent.body.id, to: "+15125550101" }, opts());
    expect(call.status).toBe(201);
    const ended = await waitForCall(s.server.api, s.user.token, call.body.id, (c) => c.status === "busy");
    expect(ended.status).toBe("busy");
    expect(s.server.ctx.sqlite.prepare("SELECT carrier FROM calls WHERE id = ?").get(call.body.id)).toEqual({ carrier: id });

    const refused = await s.server.api.delete(`/v1/telephony/carriers/${id}`, opts());
    expect(`${refused.status} ${refused.body.code}`).toBe("409 resource_in_use");
    expect(refused.body.detail).toContain(number.body.number);
    expect((await s.server.api.delete(`/v1/phone-numbers/${number.body.id}`, opts())).status).toBe(204);
    expect((await s.server.api.delete(`/v1/telephony/carriers/${id}`, opts())).status).toBe(204);
    expect((await s.server.api.get(`/v1/telephony/carriers/${id}`, opts())).status).toBe(404);
  });

  test("numbers name a connection of this workspace, or get a 422 on that field", async () => {
    expectField(await s.server.api.get("/v1/phone-numbers/available?carrier_id=car_nope", opts()), "carrier_id");
    expectField(await s.server.api.post("/v1/phone-numbers/buy", { carrier_id: "car_nope" }, opts()), "carrier_id");
    expectField(await s.server.api.post("/v1/phone-numbers/import", { number: "+14155550177", carrier: "car_nope" }, opts()), "carrier");
  });
});

describe("bad input and roles", () => {
  test("each kind checks its settings and credentials; unknown kinds and fields are named", async () => {
    expectField(await s.server.api.post("/v1/telephony/carriers", { name: "x", kind: "smoke-signals" }, opts()), "kind");
    expectField(await s.server.api.post("/v1/telephony/carriers", { kind: "simulated" }, opts()), "name");
    expectField(await s.server.api.post("/v1/telephony/carriers", { name: "x", kind: "simulated", settings: { host: "pbx" } }, opts()), "settings.host");
    expectField(await s.server.api.post("/v1/telephony/carriers", { name: "x", kind: "simulated", credentials: { password: "secret" } }, opts()), "credentials.password");
    expectField(await s.server.api.post("/v1/telephony/carriers", { name: "x", kind: "simulated", colour: "red" }, opts()), "colour");
    const sip = (settings: Record<string, unknown>, credentials?: Record<string, string>) => s.server.api.post("/v1/telephony/carriers", { name: "x", kind: "sip", settings, credentials }, opts());
    expectField(await sip({}), "settings.trunk");
    expectField(await sip({ trunk: "pbx.lan:99999" }), "settings.trunk");
    expectField(await sip({ trunk: "pbx.lan", transport: "sctp" }), "settings.transport");
    expectField(await sip({ trunk: "pbx.lan", codecs: ["opus"] }), "settings.codecs");
    expectField(await sip({ trunk: "pbx.lan", rtp_port_min: 20000, rtp_port_max: 20001 }), "settings.rtp_port_max");
    expectField(await sip({ trunk: "pbx.lan", register: true }), "settings.register");
    expectField(await sip({ trunk: "pbx.lan" }, { password: "secret" }), "credentials.username");
    expectField(await sip({ trunk: "pbx.lan", colour: "red" }), "settings.colour");
    const names = (await s.server.api.get("/v1/telephony/carriers", opts())).body.data.map((c: { name: string }) => c.name);
    expect(names).not.toContain("x");
  });

  test("members may not see or change connections; admins may", async () => {
    const member = await addMember(s.server.api, s.user, "member", "carrier-member");
    expect((await s.server.api.get("/v1/telephony/carriers", { token: member.token })).status).toBe(403);
    expect((await s.server.api.post("/v1/telephony/carriers", { name: "m", kind: "simulated" }, { token: member.token })).status).toBe(403);
    const admin = await addMember(s.server.api, s.user, "admin", "carrier-admin");
    expect((await s.server.api.get("/v1/telephony/carriers", { token: admin.token })).status).toBe(200);
  });

  test("secrets are masked to their last four characters, short ones entirely", () => {
    const json = carrierJson(
      { id: "car_1", workspaceId: "ws_1", name: "t", kind: "twilio", settings: { account_sid: "AC123" }, credentials: { auth_token: "0123456789abcdef", pin: "123456" }, updatedAt: 0 },
      { createdAt: 0, callbackUrls: {}, builtIn: false, status: { state: "ready", detail: null } },
    );
    expect(json.credentials).toEqual({ auth_token: "••••cdef", pin: "••••" });
    expect(json.settings).toEqual({ account_sid: "AC123" });
  });
});
