import { describe, expect, test } from "bun:test";
import { registerUser } from "../helpers/fixtures.ts";
import { startTestServer } from "../helpers/server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { adminKey, createEndpoint, verifySignatures, webhookTestServer } from "../helpers/webhooks.ts";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";

const t = webhookTestServer();

describe("webhook endpoints API", () => {
  test("create shows the secret once; list and get never do", async () => {
    const created = await t.server.api.post("/v1/webhooks", { url: "https://hooks.example.com/parley", events: ["call.completed", "campaign.completed"], description: "CRM" }, { token: t.key });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({ object: "webhook_endpoint", status: "enabled", events: ["call.completed", "campaign.completed"], health: { breaker: "closed" } });
    const one = await t.server.api.get(`/v1/webhooks/${created.body.id}`, { token: t.key });
    const list = await t.server.api.get("/v1/webhooks", { token: t.key });
    expect(one.text + list.text).not.toContain(created.body.secret);
    const stored = JSON.stringify(t.server.ctx.sqlite.prepare("SELECT * FROM webhook_endpoints").all());
    expect(stored).not.toContain(created.body.secret); // sealed at rest
  });

  test("validation names the field: unknown event types, bad URLs", async () => {
    const badType = await t.server.api.post("/v1/webhooks", { url: "https://x.example.com", events: ["call.started"] }, { token: t.key });
    expect(badType.status).toBe(422);
    expect(badType.body.errors[0].field).toMatch(/^events/);
    const empty = await t.server.api.post("/v1/webhooks", { url: "https://x.example.com", events: [] }, { token: t.key });
    expect(empty.body.errors[0].field).toBe("events");
    const relative = await t.server.api.post("/v1/webhooks", { url: "/hook", events: ["call.completed"] }, { token: t.key });
    expect(relative.body.errors).toEqual([{ field: "url", message: "is not an absolute URL" }]);
  });

  test("test event: signed, through the queue, with the attempt in the answer", async () => {
    const receiver = startReceiver(() => new Response("thanks", { status: 200 }));
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const res = await t.server.api.post(`/v1/webhooks/${endpoint.id}/test`, undefined, { token: t.key });
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({ state: "delivered", event_type: "webhook.test" });
    expect(res.body.attempt).toMatchObject({ succeeded: true, status_code: 200, response_excerpt: "thanks" });
    const [request] = receiver.requests;
    expect(JSON.parse(request.body)).toMatchObject({ event: "webhook.test", id: res.body.event_id, data: { destination_id: endpoint.id } });
    expect(verifySignatures(request, endpoint.secret)).toEqual({ brand: true, standard: true });
    receiver.stop();
  });

  test("rotation: both secrets sign for 24 h, then only the new one", async () => {
    const receiver = startReceiver();
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const rotated = await t.server.api.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, undefined, { token: t.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await t.server.api.post(`/v1/webhooks/${endpoint.id}/test`, undefined, { token: t.key });
    expect(verifySignatures(receiver.requests[0], rotated.body.secret)).toEqual({ brand: true, standard: true });
    expect(verifySignatures(receiver.requests[0], endpoint.secret)).toEqual({ brand: true, standard: true });
    expect(receiver.requests[0].headers["webhook-signature"].split(" ")).toHaveLength(2);
    t.server.clock.advance(24 * 60 * 60 * 1000 + 1);
    await t.server.api.post(`/v1/webhooks/${endpoint.id}/test`, undefined, { token: t.key });
    expect(verifySignatures(receiver.requests[1], rotated.body.secret)).toEqual({ brand: true, standard: true });
    expect(verifySignatures(receiver.requests[1], endpoint.secret)).toEqual({ brand: false, standard: false });
    receiver.stop();
  });

  test("event log: list, filter, and one event with its deliveries; attempts filter by outcome", async () => {
    const receiver = startReceiver();
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const sent = await t.server.api.post(`/v1/webhooks/${endpoint.id}/test`, undefined, { token: t.key });
    const events = await t.server.api.get("/v1/webhooks/events?type=webhook.test", { token: t.key });
    expect(events.body.data.map((e: any) => e.id)).toContain(sent.body.event_id);
    const one = await t.server.api.get(`/v1/webhooks/events/${sent.body.event_id}`, { token: t.key });
    expect(one.body).toMatchObject({ object: "event", channel: "workspace", type: "webhook.test", payload: { event: "webhook.test", id: sent.body.event_id } });
    expect(one.body.deliveries).toHaveLength(1);
    // Each event says how many deliveries were made of it: here one; none for a type no endpoint subscribes to.
    expect(one.body.delivery_count).toBe(1);
    expect(events.body.data.find((e: any) => e.id === sent.body.event_id).delivery_count).toBe(1);
    const unheard = publishWorkspaceEvent(t.server.ctx, { workspaceId: t.workspaceId, type: "call.failed", data: { call_id: "call_none" } });
    expect(unheard.deliveryIds).toEqual([]);
    const listed = await t.server.api.get("/v1/webhooks/events?type=call.failed", { token: t.key });
    expect(listed.body.data.map((e: any) => [e.id, e.delivery_count])).toEqual([[unheard.eventId, 0]]);
    expect((await t.server.api.get(`/v1/webhooks/events/${unheard.eventId}`, { token: t.key })).body).toMatchObject({ delivery_count: 0, deliveries: [] });
    const ok = await t.server.api.get(`/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&outcome=succeeded`, { token: t.key });
    expect(ok.body.data).toHaveLength(1);
    const failed = await t.server.api.get(`/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&outcome=failed`, { token: t.key });
    expect(failed.body.data).toHaveLength(0);
    receiver.stop();
  });

  test("a user-disabled endpoint refuses test sends and receives nothing", async () => {
    const endpoint = await createEndpoint(t.server, t.key, "https://hooks.example.com/off");
    const off = await t.server.api.patch(`/v1/webhooks/${endpoint.id}`, { status: "disabled" }, { token: t.key });
    expect(off.body).toMatchObject({ status: "disabled", disabled_reason: "disabled by a user" });
    expect((await t.server.api.post(`/v1/webhooks/${endpoint.id}/test`, undefined, { token: t.key })).status).toBe(409);
  });
});

describe("URL rules when private targets are not allowed (the default)", () => {
  test("http, private and loopback addresses and local names are refused at creation", async () => {
    const strict = await startTestServer({ settings: { allowPrivateUrls: "false" } });
    try {
      const strictKey = await adminKey(strict, (await registerUser(strict.api)).token);
      const cases: [string, RegExp][] = [
        ["http://hooks.example.com/x", /must use https/],
        ["https://127.0.0.1/x", /private, loopback or link-local/],
        ["https://169.254.169.254/latest/meta-data", /private, loopback or link-local/],
        ["https://[::1]/x", /private, loopback or link-local/],
        ["https://10.1.2.3/x", /private, loopback or link-local/],
        ["https://localhost/x", /local host name/],
        ["https://user:pw@hooks.example.com/x", /credentials/],
      ];
      for (const [url, message] of cases) {
        const res = await strict.api.post("/v1/webhooks", { url, events: ["call.completed"] }, { token: strictKey });
        expect(`${url} ${res.status}`).toBe(`${url} 422`);
        expect(res.body.errors[0].field).toBe("url");
        expect(res.body.errors[0].message).toMatch(message);
      }
      expect((await strict.api.post("/v1/webhooks", { url: "https://hooks.example.com/x", events: ["call.completed"] }, { token: strictKey })).status).toBe(201);
    } finally {
      await strict.stop();
    }
  });
});
