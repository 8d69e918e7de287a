import { beforeEach, describe, expect, test } from "bun:test";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { createEndpoint, settle, verifySignatures, webhookTestServer } from "../helpers/webhooks.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let receiver: Receiver;
const t = webhookTestServer();
beforeEach(() => {
  receiver?.stop();
  receiver = startReceiver();
});

function publish(data: Record<string, unknown> = { call_id: "call_test" }) {
  return publishWorkspaceEvent(t.server.ctx, { workspaceId: t.workspaceId, type: "call.completed", data });
}

async function delivery(id: string) {
  const events = await t.server.api.get(`/v1/webhooks/deliveries?delivery_id=${id}&limit=100`, { token: t.key });
  return events.body.data as any[];
}

describe("delivery", () => {
  test("a signed POST with both signature schemes, a stable event id and our user agent", async () => {
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const { eventId } = publish({ call_id: "call_1", duration_seconds: 42 });
    await settle(t.server);
    const [request] = await receiver.waitFor(1);
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toMatch(/^Parley-Webhooks\/\d+\.\d+\.\d+$/);
    expect(request.headers["webhook-id"]).toBe(eventId);
    expect(Number(request.headers["webhook-timestamp"])).toBe(Math.floor(t.server.clock.now() / 1000));
    expect(verifySignatures(request, endpoint.secret)).toEqual({ brand: true, standard: true });
    expect(verifySignatures(request, "whsec_" + Buffer.from("wrong secret").toString("base64"))).toEqual({ brand: false, standard: false });
    const body = JSON.parse(request.body);
    expect(body).toEqual({ event: "call.completed", id: eventId, ts: new Date(t.server.clock.now()).toISOString(), data: { call_id: "call_1", duration_seconds: 42 } });
    await t.server.api.delete(`/v1/webhooks/${endpoint.id}`, { token: t.key });
  });

  test("5xx retries at exactly 1 min, 5 min, 30 min, 2 h, 6 h and 24 h after the first attempt, then dead-letters; replay delivers the same event", async () => {
    receiver.respondWith(() => new Response("down", { status: 503 }));
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const first = t.server.clock.now();
    const { eventId, deliveryIds } = publish();
    await settle(t.server);
    expect(receiver.requests).toHaveLength(1);
    for (const offset of [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 24 * HOUR]) {
      t.server.clock.set(first + offset - 1);
      await settle(t.server);
      const before = receiver.requests.length;
      t.server.clock.set(first + offset);
      await settle(t.server);
      expect(receiver.requests.length).toBe(before + 1);
    }
    const attempts = (await delivery(deliveryIds[0])).reverse();
    expect(attempts.map((a) => Date.parse(a.created_at) - first)).toEqual([0, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 24 * HOUR]);
    expect(attempts.every((a) => a.status_code === 503 && a.response_excerpt === "down" && !a.succeeded)).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));

    t.server.clock.advance(48 * HOUR);
    await settle(t.server);
    expect(receiver.requests).toHaveLength(7);
    const dead = await t.server.api.get("/v1/webhooks/failed", { token: t.key });
    expect(dead.body.data[0]).toMatchObject({ id: deliveryIds[0], event_id: eventId, state: "failed", attempts: 7, last_status_code: 503, endpoint_id: endpoint.id });

    receiver.respondWith(() => new Response(null, { status: 204 }));
    const replay = await t.server.api.post(`/v1/webhooks/failed/${deliveryIds[0]}/replay`, undefined, { token: t.key });
    expect(replay.status).toBe(202);
    expect(replay.body.state).toBe("pending");
    await settle(t.server);
    expect(receiver.requests).toHaveLength(8);
    expect(receiver.requests[7].headers["webhook-id"]).toBe(eventId);
    expect(JSON.parse(receiver.requests[7].body).id).toBe(eventId);
    const event = await t.server.api.get(`/v1/webhooks/events/${eventId}`, { token: t.key });
    expect(event.body.deliveries[0]).toMatchObject({ state: "delivered", attempts: 1, last_status_code: 204 });
    expect((await t.server.api.get("/v1/webhooks/failed", { token: t.key })).body.data).toHaveLength(0);
    expect((await t.server.api.post(`/v1/webhooks/failed/${deliveryIds[0]}/replay`, undefined, { token: t.key })).status).toBe(409);
    await t.server.api.delete(`/v1/webhooks/${endpoint.id}`, { token: t.key });
  });

  test("a 4xx answer is final; 408 and 429 retry, and Retry-After is honoured", async () => {
    const statuses = new Map<string, number>();
    receiver.respondWith((request) => {
      const status = statuses.get(JSON.parse(request.body).data.call_id) ?? 200;
      return new Response("nope", { status, headers: status === 429 ? { "retry-after": "600" } : {} });
    });
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    statuses.set("bad", 400).set("gone", 410).set("slow", 408).set("busy", 429);
    const start = t.server.clock.now();
    const bad = publish({ call_id: "bad" }).deliveryIds[0];
    const gone = publish({ call_id: "gone" }).deliveryIds[0];
    const slow = publish({ call_id: "slow" }).deliveryIds[0];
    const busy = publish({ call_id: "busy" }).deliveryIds[0];
    await settle(t.server);
    t.server.clock.set(start + 2 * MINUTE);
    await settle(t.server);
    expect(await delivery(bad)).toHaveLength(1);
    expect(await delivery(gone)).toHaveLength(1);
    expect(await delivery(slow)).toHaveLength(2); // retried at +1 min
    expect(await delivery(busy)).toHaveLength(1); // Retry-After: 600 s beats the 1 min schedule
    t.server.clock.set(start + 10 * MINUTE);
    await settle(t.server);
    expect(await delivery(busy)).toHaveLength(2);
    const dead = (await t.server.api.get("/v1/webhooks/failed", { token: t.key })).body.data.map((d: any) => d.id);
    expect(dead).toEqual(expect.arrayContaining([bad, gone]));
    expect(dead).not.toContain(slow);
    await t.server.api.delete(`/v1/webhooks/${endpoint.id}`, { token: t.key });
  });

  test("a time-out is retried, with the same event id a receiver can de-duplicate on", async () => {
    let calls = 0;
    receiver.respondWith(async () => {
      if (++calls === 1) await Bun.sleep(800); // longer than the 300 ms test time-out
      return new Response("ok");
    });
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const { eventId, deliveryIds } = publish();
    await settle(t.server);
    const [timedOut] = await delivery(deliveryIds[0]);
    expect(timedOut.error).toMatch(/^timeout/);
    expect(timedOut.status_code).toBeNull();
    t.server.clock.advance(MINUTE);
    await settle(t.server);
    await receiver.waitFor(2);
    // The receiver may well have seen the first one too: both carry one id.
    expect(receiver.requests.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
    const seen = new Set(receiver.requests.map((r) => JSON.parse(r.body).id));
    expect(seen.size).toBe(1);
    expect((await delivery(deliveryIds[0]))[0].succeeded).toBe(true);
    await t.server.api.delete(`/v1/webhooks/${endpoint.id}`, { token: t.key });
  });

  test("responses are cut: at most 1 KiB is kept", async () => {
    receiver.respondWith(() => new Response("x".repeat(200 * 1024)));
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const { deliveryIds } = publish();
    await settle(t.server);
    const [attempt] = await delivery(deliveryIds[0]);
    expect(attempt.succeeded).toBe(true);
    expect(attempt.response_excerpt.length).toBe(1024);
    await t.server.api.delete(`/v1/webhooks/${endpoint.id}`, { token: t.key });
  });

  test("a delivery for a deleted endpoint is discarded with the reason, not retried", async () => {
    receiver.respondWith(() => new Response("down", { status: 500 }));
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    const { eventId } = publish();
    await settle(t.server);
    await t.server.api.delete(`/v1/webhooks/${endpoint.id}`, { token: t.key });
    t.server.clock.advance(MINUTE);
    await settle(t.server);
    const event = await t.server.api.get(`/v1/webhooks/events/${eventId}`, { token: t.key });
    expect(event.body.deliveries[0]).toMatchObject({ state: "discarded", discarded_reason: "the webhook endpoint was deleted", attempts: 1 });
    t.server.clock.advance(24 * HOUR);
    await settle(t.server);
    expect(receiver.requests).toHaveLength(1);
  });
});
