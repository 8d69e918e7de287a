import { describe, expect, test } from "bun:test";
import { agentWebhooks } from "../../src/db/schema/index.ts";
import { seal } from "../../src/lib/sealed.ts";
import { publishAgentEvent, publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { newWebhookSecret } from "../../src/webhooks/signing.ts";
import { registerUser } from "../helpers/fixtures.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { adminKey, createEndpoint, settle, verifySignatures, webhookTestServer } from "../helpers/webhooks.ts";

const t = webhookTestServer();

const count = (table: string) => (t.server.ctx.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("the outbox", () => {
  test("an event is written in the transaction of its change: a rolled-back change emits nothing", async () => {
    await createEndpoint(t.server, t.key, "https://hooks.example.com/a", ["call.completed"]);
    const before = { events: count("events"), deliveries: count("webhook_deliveries"), jobs: count("jobs") };
    expect(() =>
      t.server.ctx.sqlite.transaction(() => {
        publishWorkspaceEvent(t.server.ctx, { workspaceId: t.workspaceId, type: "call.completed", data: {} });
        throw new Error("the change failed after publishing");
      })(),
    ).toThrow("the change failed");
    expect({ events: count("events"), deliveries: count("webhook_deliveries"), jobs: count("jobs") }).toEqual(before);
    t.server.ctx.sqlite.transaction(() => publishWorkspaceEvent(t.server.ctx, { workspaceId: t.workspaceId, type: "call.completed", data: {} }))();
    expect(count("events")).toBe(before.events + 1);
    expect(count("webhook_deliveries")).toBe(before.deliveries + 1);
    expect(count("jobs")).toBe(before.jobs + 1);
  });

  test("fan-out: one delivery per subscribed, enabled endpoint of the workspace; none elsewhere", async () => {
    const other = await registerUser(t.server.api, "other");
    const otherKey = await adminKey(t.server, other.token);
    const outcomes = await createEndpoint(t.server, t.key, "https://hooks.example.com/outcomes", ["campaign.completed", "payment.succeeded"]);
    const payments = await createEndpoint(t.server, t.key, "https://hooks.example.com/payments", ["payment.succeeded"]);
    await createEndpoint(t.server, otherKey, "https://hooks.example.com/foreign", ["payment.succeeded"]);
    const published = publishWorkspaceEvent(t.server.ctx, { workspaceId: t.workspaceId, type: "payment.succeeded", data: { payment_id: "txn_1" } });
    const event = await t.server.api.get(`/v1/webhooks/events/${published.eventId}`, { token: t.key });
    expect(event.body.deliveries.map((d: any) => d.endpoint_id).sort()).toEqual([outcomes.id, payments.id].sort());
    expect((await t.server.api.get(`/v1/webhooks/events/${published.eventId}`, { token: otherKey })).status).toBe(404);
  });

  test("a call's events of both channels are listed by call_id; other calls' and workspaces' are not", async () => {
    const ctx = t.server.ctx;
    const outcome = publishWorkspaceEvent(ctx, { workspaceId: t.workspaceId, type: "call.completed", data: { call_id: "call_listed" } });
    t.server.clock.advance(1);
    const lifecycle = publishAgentEvent(ctx, { workspaceId: t.workspaceId, agentId: "agent_listed", callId: "call_listed", type: "call.started", data: {} });
    publishWorkspaceEvent(ctx, { workspaceId: t.workspaceId, type: "call.failed", data: { call_id: "call_other" } });
    const listed = await t.server.api.get("/v1/webhooks/events?call_id=call_listed", { token: t.key });
    expect(listed.body.data.map((e: any) => e.id)).toEqual([lifecycle.eventId, outcome.eventId]);
    const other = await registerUser(t.server.api, "events-other");
    expect((await t.server.api.get("/v1/webhooks/events?call_id=call_listed", { token: await adminKey(t.server, other.token) })).body.data).toEqual([]);
  });

  test("Set A goes to the agent's webhook_url with the lifecycle envelope, signed with the agent's secret", async () => {
    const receiver = startReceiver();
    const secret = newWebhookSecret();
    const now = t.server.clock.now();
    t.server.ctx.db.insert(agentWebhooks).values({ agentId: "agent_testhook", workspaceId: t.workspaceId, url: receiver.url, eventTypes: [], secret: seal(t.server.ctx.keys.encryption, secret), updatedAt: now }).run();
    const published = publishAgentEvent(t.server.ctx, { workspaceId: t.workspaceId, agentId: "agent_testhook", callId: "call_abc", type: "call.started", data: { direction: "outbound" } });
    await settle(t.server);
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request.body)).toEqual({
      type: "call.started",
      event_id: published.eventId,
      call_id: "call_abc",
      agent_id: "agent_testhook",
      timestamp: new Date(now).toISOString(),
      data: { direction: "outbound" },
    });
    expect(verifySignatures(request, secret)).toEqual({ brand: true, standard: true });
    // Set A events never reach workspace endpoints, and an agent without a URL gets nothing.
    const event = await t.server.api.get(`/v1/webhooks/events/${published.eventId}`, { token: t.key });
    expect(event.body.deliveries.map((d: any) => d.agent_id)).toEqual(["agent_testhook"]);
    expect(publishAgentEvent(t.server.ctx, { workspaceId: t.workspaceId, agentId: "agent_without_hook", callId: null, type: "call.ended", data: {} }).deliveryIds).toEqual([]);
    receiver.stop();
  });
});
