// Simulated phone calls driven through the public API, and what tests read back: the call as the
// API shows it (status, transcript, timeline), what webhook receivers got, and the simulated far
// end's own record of the call.
import { afterAll, expect } from "bun:test";
import { simulatedCalls, type SimulatedCallRecord } from "../../src/telephony/simulated/carrier.ts";
import { serverWithUser } from "./fixtures.ts";
import type { TestServer } from "./server.ts";
import type { Receiver } from "./webhook-receiver.ts";

export const LIVE_STATUSES = ["queued", "ringing", "in_progress"];

/** Turn-taking for tests: quick endpointing, silence and duration limits that stay out of the way. */
export function turnTaking(overrides: Record<string, unknown> = {}) {
  return {
    endpointing_ms: 500,
    interruptions: { enabled: true, min_speech_ms: 250 },
    silence: { reminder_after_s: 30, reminder_message: "Are you still there?", timeout_s: 60 },
    max_duration_s: 120,
    end_call_phrases: ["goodbye"],
    ...overrides,
  };
}

export interface Turn {
  role: "agent" | "caller";
  text: string;
  start_ms: number;
  end_ms: number;
  interrupted: boolean;
}

export interface TimelineEvent {
  type: string;
  offset_ms: number;
  data: Record<string, any>;
}

/** One workspace's calls: agents, a caller id, outbound calls into the simulator, and their outcome. */
export class CallDriver {
  private number: Promise<string> | null = null;

  constructor(
    readonly server: TestServer,
    private readonly token: () => string,
  ) {}

  private get auth() {
    return { token: this.token() };
  }

  /** The workspace's caller id (bought once). */
  fromNumber(): Promise<string> {
    return (this.number ??= this.server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, this.auth).then((res) => {
      expect(res.status).toBe(201);
      return res.body.number as string;
    }));
  }

  async createAgent(body: Record<string, unknown>): Promise<{ id: string; webhookSecret: string }> {
    const res = await this.server.api.post("/v1/agents", { turn_taking: turnTaking(), ...body }, this.auth);
    expect(res.status).toBe(201);
    return { id: res.body.id, webhookSecret: res.body.webhook_secret };
  }

  /** An LLM connection to a local OpenAI-protocol server. */
  async createProvider(baseUrl: string): Promise<string> {
    const res = await this.server.api.post("/v1/providers", { name: `fake ${baseUrl}`, kind: "openai-compatible", base_url: baseUrl }, this.auth);
    expect(res.status).toBe(201);
    return res.body.id;
  }

  /** A knowledge base with one text source, indexed and ready. */
  async createKnowledgeBase(name: string, text: string): Promise<string> {
    const kb = await this.server.api.post("/v1/knowledge-base", { name }, this.auth);
    expect(kb.status).toBe(201);
    const source = await this.server.api.post(`/v1/knowledge-base/${kb.body.id}/sources`, { type: "text", name, text }, this.auth);
    expect(source.status).toBe(202);
    for (let i = 0; i < 500; i++) {
      const res = await this.server.api.get(`/v1/knowledge-base/${kb.body.id}/sources/${source.body.id}`, this.auth);
      if (res.body.status === "ready") return kb.body.id;
      expect(res.body.status).not.toBe("failed");
      await Bun.sleep(20);
    }
    throw new Error("the knowledge source was never indexed");
  }

  /** Places an outbound call to the simulated callee (answers at once, simulated recognition unless said). */
  async place(agentId: string, simulation: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await this.server.api.post(
      "/v1/calls/outbound",
      { agent_id: agentId, to: "+12125550150", from: await this.fromNumber(), simulation: { ring_ms: 0, recognition: "simulated", ...simulation }, ...extra },
      this.auth,
    );
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async call(callId: string): Promise<any> {
    const res = await this.server.api.get(`/v1/calls/${callId}`, this.auth);
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Polls (real time) until the call satisfies `done`; fails with the call's last state otherwise. */
  async waitFor(callId: string, done: (call: any) => boolean, timeoutMs = 45_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const call = await this.call(callId);
      if (done(call)) return call;
      if (Date.now() > deadline) throw new Error(`call ${callId} did not get there in ${timeoutMs} ms: ${call.status}/${call.end_reason}\n${formatTranscript(call.transcript ?? [])}`);
      await Bun.sleep(100);
    }
  }

  /** The call once it has ended. */
  ended(callId: string, timeoutMs?: number): Promise<any> {
    return this.waitFor(callId, (call) => !LIVE_STATUSES.includes(call.status), timeoutMs);
  }

  /** The call once its outcome is final: ended, extraction done, outcome event published. */
  finalized(callId: string, timeoutMs?: number): Promise<any> {
    return this.waitFor(callId, (call) => !LIVE_STATUSES.includes(call.status) && call.extracted !== null, timeoutMs);
  }

  async timeline(callId: string): Promise<TimelineEvent[]> {
    const res = await this.server.api.get(`/v1/calls/${callId}/events`, this.auth);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  /** Waits until a timeline event of `type` (matching `where`) is there. */
  async timelineEvent(callId: string, type: string, where: (event: TimelineEvent) => boolean = () => true, timeoutMs = 30_000): Promise<TimelineEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.timeline(callId)).find((event) => event.type === type && where(event));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${type} event on call ${callId} in ${timeoutMs} ms`);
      await Bun.sleep(100);
    }
  }

  post(path: string, body?: unknown) {
    return this.server.api.post(path, body, this.auth);
  }
}

/** The simulated far end's record of a call (what it said, heard, was sent). */
/** Calls run in real time; concurrent tests get the file's wall-clock budget, not the default 5 s. */
export const CALL_TIMEOUT = 60_000;

/**
 * The shared setup of a conversation test file: one server and user, a call driver made on first
 * use (the server starts in beforeAll), and stop functions for local servers run after all tests.
 */
export function conversationFile(label: string) {
  const s = serverWithUser(label);
  let driver: CallDriver | null = null;
  const stoppers: (() => void)[] = [];
  afterAll(() => stoppers.forEach((stop) => stop()));
  return { s, calls: () => (driver ??= new CallDriver(s.server, () => s.user.token)), stoppers };
}

export function farEnd(callId: string): SimulatedCallRecord {
  const record = simulatedCalls.get(callId);
  if (!record) throw new Error(`no simulated call ${callId}`);
  return record;
}

export function formatTranscript(turns: Turn[]): string {
  return turns.map((turn) => `${turn.role}: ${turn.text}${turn.interrupted ? " [interrupted]" : ""}`).join("\n");
}

/** Parsed webhook bodies a receiver got, with their headers. */
export function deliveries(receiver: Receiver): { body: any; headers: Record<string, string>; raw: string }[] {
  return receiver.requests.map((request) => ({ body: JSON.parse(request.body), headers: request.headers, raw: request.body }));
}

/** Waits (real time) until the receiver has a delivery matching `where`. */
export async function delivery(receiver: Receiver, where: (body: any) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = deliveries(receiver).find((d) => where(d.body));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no matching delivery; got ${deliveries(receiver).map((d) => d.body.type ?? d.body.event).join(", ")}`);
    await Bun.sleep(50);
  }
}
