import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents as agentsTable, agentVersions } from "../../src/db/schema/index.ts";
import { listAgents } from "../../src/modules/agents/repo.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { walkPages } from "../helpers/pages.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { verifySignatures } from "../helpers/webhooks.ts";

const s = serverWithUser("owner");
const token = () => s.user.token;

describe("agents", () => {
  test("a name and a greeting are enough: every other field gets a working default", async () => {
    const res = await s.server.api.post("/v1/agents", { name: "Front desk", first_message: "Hi, this is Acme. How can I help?" }, { token: token() });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^agent_/);
    expect(res.body.webhook_secret).toMatch(/^whsec_/);
    expect(res.body).toMatchObject({
      object: "agent",
      version: 1,
      language: "en-US",
      first_message_mode: "agent_first",
      brain: { type: "flow", flow: { start: "answer" } },
      voice: { provider_id: "builtin" },
      transcriber: { provider_id: "builtin" },
      turn_taking: { silence: { timeout_s: 30 }, max_duration_s: 600 },
      tools: [],
      extraction: [],
      webhook_url: null,
    });
    const fetched = await s.server.api.get(`/v1/agents/${res.body.id}`, { token: token() });
    expect(fetched.body.webhook_secret).toBeUndefined();
    const list = await s.server.api.get("/v1/agents", { token: token() });
    expect(list.body.data.map((a: any) => a.id)).toContain(res.body.id);
  });

  test("the list pages with a cursor: every agent once, newest first", async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await s.server.api.post("/v1/agents", { name: `Paged ${i}` }, { token: token() })).body.id);
    const onePage = (await s.server.api.get("/v1/agents?limit=50", { token: token() })).body.data as { id: string; created_at: string }[];
    // Newest first; agents created in the same millisecond are ordered by id (the cursor's tie-break).
    const newestFirst = [...onePage].sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? 1 : -1));
    expect(onePage.map((a) => a.id)).toEqual(newestFirst.map((a) => a.id));
    const paged = await walkPages(s.server.api, "/v1/agents", token(), 2);
    expect(paged).toEqual(onePage.map((a) => a.id));
    expect(paged).toEqual(expect.arrayContaining(created));
  });

  test("a running server sends the list as the same bytes and headers as the checked object form", async () => {
    await s.server.api.post("/v1/agents", { name: 'Quote " and é', first_message: "Line\nbreak" }, { token: token() });
    const read = async () => {
      const res = await fetch(`${s.server.url}/v1/agents?limit=3`, { headers: { authorization: `Bearer ${token()}` } });
      return { status: res.status, type: res.headers.get("content-type"), limits: res.headers.get("ratelimit-limit"), text: await res.text() };
    };
    const checked = await read();
    s.server.ctx.config.checkResponses = false; // what production sends: the text, not the object
    try {
      const production = await read();
      expect(production).toEqual(checked);
      expect(JSON.parse(production.text).data).toHaveLength(3);
    } finally {
      s.server.ctx.config.checkResponses = true;
    }
  });

  test("validation names each field: schema, references and flow wiring", async () => {
    const unknown = await s.server.api.post("/v1/agents", { name: "x", colour: "red", brain: { type: "llm" } }, { token: token() });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(["colour"]));

    const refs = await s.server.api.post(
      "/v1/agents",
      {
        name: "Broken",
        brain: { type: "llm", provider_id: "prv_missing", model: "gpt" },
        tools: [{ type: "function", tool_id: "tool_missing" }, { type: "transfer_call" }],
        knowledge_base_ids: ["kb_missing"],
        extraction: [{ name: "tier", type: "enum", description: "Plan tier" }],
        webhook_url: "ftp://example.com/hook",
      },
      { token: token() },
    );
    expect(refs.status).toBe(422);
    expect(refs.body.errors.map((e: any) => e.field).sort()).toEqual(
      ["brain.provider_id", "extraction[0].options", "knowledge_base_ids[0]", "tools[0].tool_id", "transfer_number", "webhook_url"].sort(),
    );

    const flow = await s.server.api.post(
      "/v1/agents",
      { name: "Flow", brain: { type: "flow", flow: { start: "hello", nodes: { hello: { type: "say", text: "Hi", next: "nowhere" }, pick: { type: "ask", text: "Which?", slot: { name: "choice", type: "enum" }, next: "hello" } } } } },
      { token: token() },
    );
    expect(flow.status).toBe(422);
    expect(flow.body.errors).toEqual(
      expect.arrayContaining([
        { field: "brain.flow.nodes.hello.next", message: 'no node "nowhere"' },
        { field: "brain.flow.nodes.pick.slot.options", message: "an enum slot needs options" },
      ]),
    );
    const builtinLlm = await s.server.api.post("/v1/agents", { name: "x", brain: { type: "llm", provider_id: "builtin", model: "m" } }, { token: token() });
    expect(builtinLlm.body.errors[0].field).toBe("brain.provider_id");
  });

  test("every change is a version; versions list and restore", async () => {
    const created = await s.server.api.post("/v1/agents", { name: "Versioned", first_message: "v1 greeting" }, { token: token() });
    const id = created.body.id;
    await s.server.api.patch(`/v1/agents/${id}`, { first_message: "v2 greeting" }, { token: token() });
    const v3 = await s.server.api.patch(`/v1/agents/${id}`, { name: "Renamed", first_message: "v3 greeting" }, { token: token() });
    expect(v3.body).toMatchObject({ version: 3, name: "Renamed", first_message: "v3 greeting" });
    const versions = await s.server.api.get(`/v1/agents/${id}/versions?limit=2`, { token: token() });
    expect(versions.body.data.map((v: any) => v.version)).toEqual([3, 2]);
    expect(versions.body.has_more).toBe(true);
    const older = await s.server.api.get(`/v1/agents/${id}/versions?cursor=${versions.body.next_cursor}`, { token: token() });
    expect(older.body.data.map((v: any) => [v.version, v.config.first_message])).toEqual([[1, "v1 greeting"]]);
    const restored = await s.server.api.post(`/v1/agents/${id}/versions/1/restore`, undefined, { token: token() });
    expect(restored.body).toMatchObject({ version: 4, name: "Versioned", first_message: "v1 greeting" });
    const latest = await s.server.api.get(`/v1/agents/${id}/versions?limit=1`, { token: token() });
    expect(latest.body.data[0].note).toBe("restored from version 1");
    expect((await s.server.api.post(`/v1/agents/${id}/versions/99/restore`, undefined, { token: token() })).status).toBe(404);
    expect((await s.server.api.patch(`/v1/agents/${id}`, {}, { token: token() })).status).toBe(422);
  });

  test("duplicate copies the configuration under a new id; delete removes it", async () => {
    const created = await s.server.api.post("/v1/agents", { name: "Original", first_message: "Hello", metadata: { team: "sales" } }, { token: token() });
    const copy = await s.server.api.post(`/v1/agents/${created.body.id}/duplicate`, { name: "Copy" }, { token: token() });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: "Copy", first_message: "Hello", metadata: { team: "sales" }, version: 1 });
    expect(copy.body.id).not.toBe(created.body.id);
    expect((await s.server.api.delete(`/v1/agents/${copy.body.id}`, { token: token() })).status).toBe(204);
    expect((await s.server.api.get(`/v1/agents/${copy.body.id}`, { token: token() })).status).toBe(404);
  });

  test("lifecycle webhook: a signed test event to webhook_url, and secret rotation", async () => {
    const receiver = startReceiver();
    const created = await s.server.api.post("/v1/agents", { name: "Hooked", webhook_url: receiver.url }, { token: token() });
    const sent = await s.server.api.post(`/v1/agents/${created.body.id}/webhook/test`, undefined, { token: token() });
    expect(sent.status).toBe(200);
    expect(sent.body.attempt).toMatchObject({ succeeded: true, agent_id: created.body.id });
    const [request] = receiver.requests;
    expect(JSON.parse(request.body)).toMatchObject({ type: "webhook.test", agent_id: created.body.id, event_id: sent.body.event_id });
    expect(verifySignatures(request, created.body.webhook_secret)).toEqual({ brand: true, standard: true });
    const rotated = await s.server.api.post(`/v1/agents/${created.body.id}/webhook/rotate-secret`, undefined, { token: token() });
    await s.server.api.post(`/v1/agents/${created.body.id}/webhook/test`, undefined, { token: token() });
    expect(verifySignatures(receiver.requests[1], rotated.body.webhook_secret)).toEqual({ brand: true, standard: true });
    expect(verifySignatures(receiver.requests[1], created.body.webhook_secret)).toEqual({ brand: true, standard: true });
    const silent = await s.server.api.post("/v1/agents", { name: "No hook" }, { token: token() });
    expect((await s.server.api.post(`/v1/agents/${silent.body.id}/webhook/test`, undefined, { token: token() })).status).toBe(409);
    receiver.stop();
  });
});

// turn_taking as agents were stored before issue 37 added dynamic endpointing, preemption and backchannels.
const OLD_TURN_TAKING = {
  endpointing_ms: 900,
  interruptions: { enabled: true, min_speech_ms: 250 },
  silence: { reminder_after_s: 15, reminder_message: "Are you still there?", timeout_s: 30 },
  max_duration_s: 600,
  end_call_phrases: ["goodbye"],
};

describe("turn-taking settings", () => {
  test("a new agent gets dynamic endpointing, preemption, medium sensitivity and ignored backchannels; each is settable", async () => {
    const created = await s.server.api.post("/v1/agents", { name: "Turns" }, { token: token() });
    expect(created.body.turn_taking).toMatchObject({
      endpointing_ms: 600,
      endpointing: { mode: "dynamic", min_delay_ms: 300, max_delay_ms: 2000 },
      preemptive_generation: true,
      interruptions: { enabled: true, min_speech_ms: 200, sensitivity: "medium", backchannels: "ignore" },
    });
    const changed = {
      ...created.body.turn_taking,
      endpointing_ms: 700,
      endpointing: { mode: "fixed", min_delay_ms: 250, max_delay_ms: 3000 },
      preemptive_generation: false,
      interruptions: { enabled: true, min_speech_ms: 300, sensitivity: "high", backchannels: "interrupt" },
    };
    const patched = await s.server.api.patch(`/v1/agents/${created.body.id}`, { turn_taking: changed }, { token: token() });
    expect(patched.status).toBe(200);
    expect((await s.server.api.get(`/v1/agents/${created.body.id}`, { token: token() })).body.turn_taking).toEqual(changed);
  });

  test("validation names the field: out of range, an unknown choice, and min_delay_ms <= endpointing_ms <= max_delay_ms", async () => {
    const create = (turn_taking: object) => s.server.api.post("/v1/agents", { name: "Bad turns", turn_taking: { ...OLD_TURN_TAKING, ...turn_taking } }, { token: token() });
    const fields = (res: any) => res.body.errors.map((e: any) => e.field).sort();
    const schema = await create({ endpointing: { mode: "smart", min_delay_ms: 50, max_delay_ms: 20000 }, preemptive_generation: "yes", interruptions: { enabled: true, min_speech_ms: 200, sensitivity: "extreme", backchannels: "mute" } });
    expect(schema.status).toBe(422);
    expect(schema.headers.get("content-type")).toContain("application/problem+json");
    expect(fields(schema)).toEqual(
      ["turn_taking.endpointing.max_delay_ms", "turn_taking.endpointing.min_delay_ms", "turn_taking.endpointing.mode", "turn_taking.interruptions.backchannels", "turn_taking.interruptions.sensitivity", "turn_taking.preemptive_generation"].sort(),
    );
    const minAboveNeutral = await create({ endpointing: { min_delay_ms: 1000 } });
    expect(minAboveNeutral.status).toBe(422);
    expect(minAboveNeutral.body.errors).toEqual([{ field: "turn_taking.endpointing.min_delay_ms", message: "must not be more than endpointing_ms (900)" }]);
    const maxBelowNeutral = await create({ endpointing: { min_delay_ms: 200, max_delay_ms: 800 } });
    expect(maxBelowNeutral.body.errors).toEqual([{ field: "turn_taking.endpointing.max_delay_ms", message: "must not be less than endpointing_ms (900)" }]);
    // The same rule holds on PATCH, against the stored agent's values.
    const agent = await s.server.api.post("/v1/agents", { name: "Patched turns" }, { token: token() });
    const patch = await s.server.api.patch(`/v1/agents/${agent.body.id}`, { turn_taking: { ...agent.body.turn_taking, endpointing_ms: 2500 } }, { token: token() });
    expect(patch.status).toBe(422);
    expect(fields(patch)).toEqual(["turn_taking.endpointing.max_delay_ms"]);
  });

  test("an agent stored before the settings reads back with them filled (get, list, versions); PATCH in the old shape still works", async () => {
    const created = await s.server.api.post("/v1/agents", { name: "Stored long ago" }, { token: token() });
    const id = created.body.id;
    // The row as an older Parley wrote it: turn_taking without any of the new settings.
    const old = { ...(s.server.ctx.db.select().from(agentsTable).where(eq(agentsTable.id, id)).get()!.config as object), turn_taking: OLD_TURN_TAKING };
    s.server.ctx.db.update(agentsTable).set({ config: old }).where(eq(agentsTable.id, id)).run();
    s.server.ctx.db.update(agentVersions).set({ config: old }).where(eq(agentVersions.agentId, id)).run();
    const mapped = {
      ...OLD_TURN_TAKING,
      endpointing: { mode: "dynamic", min_delay_ms: 300, max_delay_ms: 2000 },
      preemptive_generation: true,
      interruptions: { enabled: true, min_speech_ms: 250, sensitivity: "medium", backchannels: "ignore" },
    };
    expect((await s.server.api.get(`/v1/agents/${id}`, { token: token() })).body.turn_taking).toEqual(mapped);
    expect((await s.server.api.get(`/v1/agents/${id}/versions`, { token: token() })).body.data[0].config.turn_taking).toEqual(mapped);
    // The list, checked against its schema and as production sends it (stored text written in where it can be).
    const listText = async () => (await fetch(`${s.server.url}/v1/agents?limit=100`, { headers: { authorization: `Bearer ${token()}` } })).text();
    const checked = await listText();
    s.server.ctx.config.checkResponses = false;
    try {
      expect(await listText()).toBe(checked);
    } finally {
      s.server.ctx.config.checkResponses = true;
    }
    expect(JSON.parse(checked).data.find((a: any) => a.id === id).turn_taking).toEqual(mapped);
    const storedFilled = () => listAgents(s.server.ctx.db, s.user.workspaceId, { limit: 100, after: null }).find((row) => row.id === id)!.turnTakingFilled;
    expect(Boolean(storedFilled())).toBe(false);

    const patched = await s.server.api.patch(`/v1/agents/${id}`, { turn_taking: { ...OLD_TURN_TAKING, endpointing_ms: 2400 } }, { token: token() });
    expect(patched.status).toBe(200);
    expect(patched.body.turn_taking).toMatchObject({ endpointing_ms: 2400, endpointing: { mode: "dynamic", min_delay_ms: 300, max_delay_ms: 2400 }, preemptive_generation: true });
    const other = await s.server.api.patch(`/v1/agents/${id}`, { first_message: "Hello again" }, { token: token() });
    expect(other.body.turn_taking).toEqual(patched.body.turn_taking);
    // Written since, it is stored filled: the list writes its text in as it is.
    expect(Boolean(storedFilled())).toBe(true);
  });
});

describe("agent deletion and its lifecycle deliveries", () => {
  test("pending deliveries of a deleted agent are discarded with the reason, not retried", async () => {
    const { publishAgentEvent } = await import("../../src/webhooks/outbox.ts");
    const receiver = startReceiver(() => new Response("down", { status: 500 }));
    const agent = await s.server.api.post("/v1/agents", { name: "Short-lived", webhook_url: receiver.url }, { token: token() });
    const published = publishAgentEvent(s.server.ctx, { workspaceId: s.user.workspaceId, agentId: agent.body.id, callId: "call_x", type: "call.started", data: {} });
    await s.server.ctx.jobs.drain();
    expect(receiver.requests).toHaveLength(1);
    expect((await s.server.api.delete(`/v1/agents/${agent.body.id}`, { token: token() })).status).toBe(204);
    s.server.clock.advance(60_000);
    await s.server.ctx.jobs.drain();
    const key = await s.server.api.post("/v1/api-keys", { name: "reader", scope: "read-only" }, { token: token() });
    const event = await s.server.api.get(`/v1/webhooks/events/${published.eventId}`, { token: key.body.key });
    expect(event.body.deliveries[0]).toMatchObject({ state: "discarded", discarded_reason: "the agent was deleted", attempts: 1 });
    expect(receiver.requests).toHaveLength(1);
    receiver.stop();
  });
});
