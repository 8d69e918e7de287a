// A local Telnyx: Call Control (dial, answer, reject, hangup, transfer, send_dtmf), API v2 numbers,
// webhooks signed with a real Ed25519 key as Telnyx signs them (`timestamp|body`), and media
// streaming over a WebSocket with real µ-law frames both ways, in real time.
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { FakeCarrierServer } from "./fake-carrier.ts";
import { FarEndPlayout } from "./far-end.ts";

const hex = (n: number) => randomBytes(n).toString("hex");
const FRAME = 160;

export type TelnyxCallee = "answer" | "busy" | "no-answer";

export class TelnyxFakeCall {
  readonly playout = new FarEndPlayout((name) => this.send({ event: "mark", stream_id: this.streamId, mark: { name } }));
  readonly actions: { action: string; body: any }[] = [];
  readonly webhookAnswers: number[] = [];
  streamId = "";
  socket: WebSocket | null = null;
  closeCode: number | null = null;
  ended = false;
  webhookUrl: string;
  private sequence = 0;

  constructor(
    readonly server: FakeTelnyx,
    readonly controlId: string,
    readonly from: string,
    readonly to: string,
    readonly direction: "incoming" | "outgoing",
    webhookUrl: string,
  ) {
    this.webhookUrl = webhookUrl;
  }

  async event(type: string, extra: Record<string, unknown> = {}): Promise<number> {
    const status = await this.server.sendEvent(this.webhookUrl, type, { call_control_id: this.controlId, call_leg_id: `leg-${this.controlId}`, call_session_id: `session-${this.controlId}`, connection_id: this.server.appId, from: this.from, to: this.to, direction: this.direction, state: "parked", ...extra });
    this.webhookAnswers.push(status);
    return status;
  }

  async speak(audio: Uint8Array): Promise<void> {
    for (let offset = 0; offset + FRAME <= audio.length && this.socket && !this.ended; offset += FRAME) {
      this.send({ event: "media", sequence_number: String(++this.sequence), media: { track: "inbound", chunk: String(this.sequence), timestamp: String(this.sequence * 20), payload: Buffer.from(audio.subarray(offset, offset + FRAME)).toString("base64") }, stream_id: this.streamId });
      await Bun.sleep(20);
    }
  }

  pressKey(digit: string): void {
    this.send({ event: "dtmf", stream_id: this.streamId, sequence_number: String(++this.sequence), occurred_at: new Date().toISOString(), dtmf: { digit } });
  }

  send(message: unknown): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** The far end hangs up: the stream stops, then call.hangup with normal_clearing. */
  async hangUp(): Promise<void> {
    this.send({ event: "stop", sequence_number: String(++this.sequence), stop: { call_control_id: this.controlId }, stream_id: this.streamId });
    this.socket?.close(1000);
    await this.finish("normal_clearing", "callee");
  }

  async finish(cause: string, source = "caller"): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.playout.stop();
    this.socket?.close(1000);
    await this.event("call.hangup", { hangup_cause: cause, hangup_source: source, state: "hangup" });
  }

  openStream(url: string, clientState: string): Promise<void> {
    this.streamId = crypto.randomUUID();
    const socket = new WebSocket(url);
    this.socket = socket;
    return new Promise((resolve) => {
      socket.onopen = () => {
        this.send({ event: "connected", version: "1.0.0" });
        this.send({ event: "start", sequence_number: String(++this.sequence), start: { user_id: crypto.randomUUID(), call_control_id: this.controlId, client_state: clientState, media_format: { encoding: "PCMU", sample_rate: 8000, channels: 1 } }, stream_id: this.streamId });
        this.playout.start();
        resolve();
      };
      socket.onmessage = (event) => this.fromParley(JSON.parse(String(event.data)));
      socket.onclose = (event) => {
        this.closeCode = event.code;
        this.socket = null;
        this.playout.stop();
        resolve();
      };
    });
  }

  private fromParley(message: any): void {
    if (message.event === "media") this.playout.audio(new Uint8Array(Buffer.from(message.media.payload, "base64")));
    else if (message.event === "mark") this.playout.mark(message.mark.name);
    else if (message.event === "clear") this.playout.clear();
  }
}

export class FakeTelnyx extends FakeCarrierServer<TelnyxFakeCall> {
  readonly apiKey = `KEY${hex(16)}`;
  readonly appId = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  private readonly keys = generateKeyPairSync("ed25519");
  /** The account's webhook public key, raw 32 bytes in base64, as the portal shows it. */
  readonly publicKey = this.keys.publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64");
  readonly owned = new Map<string, { id: string; phone_number: string; connection_id: string | null }>();
  available = ["+14155550401", "+14155550402", "+12125550403"];
  callee: TelnyxCallee = "answer";
  machine: string | null = null;
  /** Where call.initiated for incoming calls goes (the Call Control app's webhook URL). */
  appWebhookUrl = "";
  readonly requests: { method: string; path: string; body: any }[] = [];

  /** Signs as Telnyx does: Ed25519 over `timestamp|body`. */
  signed(body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
    const signature = sign(null, Buffer.from(`${timestamp}|${body}`), this.keys.privateKey).toString("base64");
    return { "content-type": "application/json", "telnyx-signature-ed25519": signature, "telnyx-timestamp": String(timestamp) };
  }

  eventBody(type: string, payload: Record<string, unknown>, id: string = crypto.randomUUID()): string {
    return JSON.stringify({ data: { record_type: "event", event_type: type, id, occurred_at: new Date().toISOString(), payload }, meta: { attempt: 1, delivered_to: "" } });
  }

  async sendEvent(url: string, type: string, payload: Record<string, unknown>): Promise<number> {
    const body = this.eventBody(type, payload);
    // Parley gone (an event after its test stopped it) is status 0, as Telnyx logs a failed webhook.
    const res = await fetch(url, { method: "POST", headers: this.signed(body), body }).catch(() => null);
    return res?.status ?? 0;
  }

  /** Someone dials one of the account's numbers: call.initiated goes to the app's webhook; Parley answers or rejects. */
  async incoming(from: string, to: string): Promise<TelnyxFakeCall> {
    const call = this.track(new TelnyxFakeCall(this, `v3:${hex(12)}`, from, to, "incoming", this.appWebhookUrl));
    const status = await call.event("call.initiated", { state: "parked" });
    if (status !== 204) throw new Error(`call.initiated answered ${status}`);
    return call;
  }

  protected idOf(call: TelnyxFakeCall): string {
    return call.controlId;
  }

  protected async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = request.method === "GET" || request.method === "DELETE" ? "" : await request.text();
    const body = text ? JSON.parse(text) : null;
    this.requests.push({ method: request.method, path: url.pathname + url.search, body });
    const error = (status: number, code: string, title: string, detail = "") => Response.json({ errors: [{ code, title, detail }] }, { status });
    if (request.headers.get("authorization") !== `Bearer ${this.apiKey}`) return error(401, "10009", "Authentication failed");
    const path = url.pathname;
    let match: RegExpExecArray | null;
    if (path === "/v2/calls" && request.method === "POST") {
      if (body.connection_id !== this.appId) return error(422, "10015", "Invalid connection_id");
      const call = this.track(new TelnyxFakeCall(this, `v3:${hex(12)}`, body.from, body.to, "outgoing", body.webhook_url));
      void this.runOutbound(call, body);
      return Response.json({ data: { call_control_id: call.controlId, call_leg_id: `leg-${call.controlId}`, call_session_id: `session-${call.controlId}`, is_alive: false, record_type: "call" } });
    }
    if ((match = /^\/v2\/calls\/([^/]+)\/actions\/(\w+)$/.exec(path))) {
      const call = this.calls.get(decodeURIComponent(match[1]));
      if (!call) return error(404, "10005", "Resource not found");
      if (call.ended) return error(422, "90018", "Call has already ended");
      const action = match[2];
      call.actions.push({ action, body });
      if (action === "answer") {
        if (body.webhook_url) call.webhookUrl = body.webhook_url;
        queueMicrotask(async () => {
          await call.event("call.answered", { state: "answered" });
          await call.openStream(body.stream_url, body.client_state);
        });
      } else if (action === "reject") {
        queueMicrotask(() => call.finish("call_rejected"));
      } else if (action === "hangup") {
        queueMicrotask(() => call.finish("normal_clearing", "caller"));
      } else if (action === "transfer") {
        queueMicrotask(async () => {
          call.send({ event: "stop", stop: { call_control_id: call.controlId }, stream_id: call.streamId });
          await call.finish("normal_clearing", "caller");
        });
      }
      return Response.json({ data: { result: "ok" } });
    }
    if (path === "/v2/available_phone_numbers") {
      const ndc = url.searchParams.get("filter[national_destination_code]");
      const found = this.available.filter((n) => !ndc || n.startsWith(`+1${ndc}`));
      return Response.json({ data: found.map((phone_number) => ({ phone_number, record_type: "available_phone_number", region_information: [{ region_type: "location", region_name: "San Francisco" }] })) });
    }
    if (path === "/v2/number_orders" && request.method === "POST") {
      const wanted = body.phone_numbers[0].phone_number;
      if (!this.available.includes(wanted)) return error(422, "10007", "Unexpected error", `${wanted} is not available`);
      this.available = this.available.filter((n) => n !== wanted);
      this.owned.set(wanted, { id: hex(8), phone_number: wanted, connection_id: body.connection_id });
      return Response.json({ data: { id: hex(8), status: "success", phone_numbers: [{ phone_number: wanted, status: "success" }] } });
    }
    if (path === "/v2/phone_numbers" && request.method === "GET") {
      const wanted = url.searchParams.get("filter[phone_number]");
      return Response.json({ data: [...this.owned.values()].filter((n) => !wanted || n.phone_number === wanted) });
    }
    if ((match = /^\/v2\/phone_numbers\/(\w+)$/.exec(path))) {
      const owned = [...this.owned.values()].find((n) => n.id === match![1]);
      if (!owned) return error(404, "10005", "Resource not found");
      if (request.method === "DELETE") {
        this.owned.delete(owned.phone_number);
        return Response.json({ data: owned });
      }
      if ("connection_id" in body) owned.connection_id = body.connection_id;
      return Response.json({ data: owned });
    }
    return error(404, "10005", "Resource not found");
  }

  private async runOutbound(call: TelnyxFakeCall, dial: any): Promise<void> {
    await Bun.sleep(20);
    await call.event("call.initiated", { state: "bridging" });
    await Bun.sleep(100);
    if (this.callee === "busy") return call.finish("user_busy", "callee");
    if (this.callee === "no-answer") return call.finish("timeout", "callee");
    await call.event("call.answered", { state: "answered" });
    if (dial.answering_machine_detection) void call.event("call.machine.detection.ended", { result: this.machine ?? "human" });
    await call.openStream(dial.stream_url, dial.client_state);
  }
}
