import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../../src/db/schema/index.ts";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { createEndpoint, settle, webhookTestServer } from "../helpers/webhooks.ts";

const MINUTE = 60_000;
const t = webhookTestServer();

const publish = () => publishWorkspaceEvent(t.server.ctx, { workspaceId: t.workspaceId, type: "call.completed", data: {} });

describe("per-endpoint circuit breaker", () => {
  test("after 5 straight failures deliveries wait instead of spending attempts; one probe then reopens the flow", async () => {
    const receiver = startReceiver(() => new Response("down", { status: 500 }));
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    for (let i = 0; i < 5; i++) publish();
    await settle(t.server);
    expect(receiver.requests).toHaveLength(5);
    const opened = await t.server.api.get(`/v1/webhooks/${endpoint.id}`, { token: t.key });
    expect(opened.body.health).toMatchObject({ consecutive_failures: 5, breaker: "open" });

    const waiting = [publish(), publish(), publish()].map((p) => p.eventId);
    await settle(t.server);
    expect(receiver.requests).toHaveLength(5); // postponed, not attempted
    for (const id of waiting) {
      const event = await t.server.api.get(`/v1/webhooks/events/${id}`, { token: t.key });
      expect(event.body.deliveries[0]).toMatchObject({ state: "pending", attempts: 0 });
    }

    receiver.respondWith(() => new Response("back"));
    t.server.clock.advance(MINUTE); // the breaker's first cool-down
    await settle(t.server);
    expect(receiver.requests).toHaveLength(6); // exactly one probe while half-open
    expect((await t.server.api.get(`/v1/webhooks/${endpoint.id}`, { token: t.key })).body.health).toMatchObject({ consecutive_failures: 0, breaker: "closed" });
    t.server.clock.advance(MINUTE);
    await settle(t.server);
    // Everything waiting went out, plus the older ones' scheduled retries.
    for (const id of waiting) {
      const event = await t.server.api.get(`/v1/webhooks/events/${id}`, { token: t.key });
      expect(event.body.deliveries[0]).toMatchObject({ state: "delivered", attempts: 1 });
    }
    receiver.stop();
  });

  test("an endpoint failing continuously for 5 days is disabled and says so; its deliveries become dead letters", async () => {
    const receiver = startReceiver(() => new Response("down", { status: 502 }));
    const endpoint = await createEndpoint(t.server, t.key, receiver.url);
    publish();
    await settle(t.server);
    // Five days of failures compressed: the run of failures started that long ago.
    t.server.ctx.db.update(webhookEndpoints).set({ failingSince: t.server.clock.now() - 5 * 24 * 60 * MINUTE + 1, consecutiveFailures: 1 }).where(eq(webhookEndpoints.id, endpoint.id)).run();
    t.server.clock.advance(MINUTE);
    await settle(t.server);
    const disabled = await t.server.api.get(`/v1/webhooks/${endpoint.id}`, { token: t.key });
    expect(disabled.body.status).toBe("disabled");
    expect(disabled.body.disabled_reason).toMatch(/^failed continuously since \d{4}-/);

    const later = publish(); // a disabled endpoint receives nothing new
    const laterEvent = await t.server.api.get(`/v1/webhooks/events/${later.eventId}`, { token: t.key });
    expect(laterEvent.body.deliveries.map((d: any) => d.endpoint_id)).not.toContain(endpoint.id);
    t.server.clock.advance(5 * MINUTE);
    await settle(t.server);
    const dead = await t.server.api.get(`/v1/webhooks/failed?endpoint_id=${endpoint.id}`, { token: t.key });
    expect(dead.body.data).toHaveLength(1);
    expect(dead.body.data[0].last_error).toMatch(/^endpoint disabled: failed continuously/);

    // Re-enabling starts over with a clean record.
    const enabled = await t.server.api.patch(`/v1/webhooks/${endpoint.id}`, { status: "enabled" }, { token: t.key });
    expect(enabled.body).toMatchObject({ status: "enabled", disabled_reason: null, health: { consecutive_failures: 0, failing_since: null } });
    receiver.stop();
  });
});
