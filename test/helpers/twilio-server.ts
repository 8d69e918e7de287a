// A local Twilio: the REST API (Calls, AvailablePhoneNumbers, IncomingPhoneNumbers), signed webhooks
// and status callbacks, and TwiML executed as Twilio does: <Connect><Stream> opens a signed Media
// Streams WebSocket and carries real µ-law frames both ways, in real time. Signatures are made with
// the official `twilio` library; message shapes follow Twilio's documentation.
import twilio from "twilio";
import { randomBytes } from "node:crypto";
import { FakeCarrierServer } from "./fake-carrier.ts";
import { FarEndPlayout } from "./far-end.ts";

const hex = (n: number) => randomBytes(n).toString("hex");
const FRAME = 160;

export type Callee = "answer" | "busy" | "no-answer" | "fail";

export interface OwnedNumber {
  sid: string;
  phone_number: string;
  voice_url: string;
  status_callback: string;
}

/** One call as Twilio holds it, with what its far end heard and did. */
export class FakeCall {
  readonly statuses: string[] = [];
  /** Every status callback's answer from Parley. */
  readonly callbackAnswers: number[] = [];
  /** Agent audio as played to the far end, 20 ms at a time (after jitter, marks and clears). */
  readonly playout = new FarEndPlayout((name) => this.send({ event: "mark", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, mark: { name } }));
  streamSid = "";
  streamParameters: Record<string, string> = {};
  socket: WebSocket | null = null;
  closeCode: number | null = null;
  closeReason = "";
  dialedTo: string | null = null;
  rejected: string | null = null;
  twiml = "";
  ended = false;
  private sequence = 0;
  private chunk = 0;

  constructor(
    readonly twilioServer: FakeTwilio,
    readonly sid: string,
    readonly from: string,
    readonly to: string,
    readonly direction: "inbound" | "outbound-api",
    readonly statusCallback: string | null,
    readonly statusEvents: string[],
  ) {}

  /** Plays `audio` (µ-law 8 kHz) into the stream at real-time pace. */
  async speak(audio: Uint8Array): Promise<void> {
    for (let offset = 0; offset + FRAME <= audio.length && this.socket && !this.ended; offset += FRAME) {
      this.send({ event: "media", sequenceNumber: String(++this.sequence), media: { track: "inbound", chunk: String(++this.chunk), timestamp: String(this.chunk * 20), payload: Buffer.from(audio.subarray(offset, offset + FRAME)).toString("base64") }, streamSid: this.streamSid });
      await Bun.sleep(20);
    }
  }

  pressKey(digit: string): void {
    this.send({ event: "dtmf", streamSid: this.streamSid, sequenceNumber: String(++this.sequence), dtmf: { track: "inbound_track", digit } });
  }

  send(message: unknown): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The far end hangs up: the stream stops, then Twilio reports the call completed. */
  async hangUp(): Promise<void> {
    this.send({ event: "stop", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: this.twilioServer.accountSid, callSid: this.sid } });
    this.socket?.close(1000);
    await this.finish("completed");
  }

  async status(status: string, extra: Record<string, string> = {}): Promise<void> {
    this.statuses.push(status);
    const event = status === "in-progress" ? "answered" : status;
    const final = ["completed", "busy", "no-answer", "failed", "canceled"].includes(status);
    if (!this.statusCallback || (!final && !this.statusEvents.includes(event))) return;
    const answer = await this.twilioServer.signedPost(this.statusCallback, { ...this.params(), CallStatus: status, ...extra });
    this.callbackAnswers.push(answer.status);
  }

  params(): Record<string, string> {
    return { AccountSid: this.twilioServer.accountSid, ApiVersion: "2010-04-01", CallSid: this.sid, From: this.from, To: this.to, Direction: this.direction, Caller: this.from, Called: this.to };
  }

  async finish(status: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.playout.stop();
    await this.status(status);
  }

  /** Runs a TwiML document as Twilio would (the verbs Parley writes). */
  async execute(twiml: string): Promise<void> {
    this.twiml = twiml;
    const reject = /<Reject(?: reason="(\w+)")?/.exec(twiml);
    if (reject) {
      this.rejected = reject[1] ?? "rejected";
      this.ended = true;
      return;
    }
    const dial = /<Dial>(?:<Number>|<Sip>)([^<]+)</.exec(twiml);
    if (dial) {
      this.dialedTo = dial[1];
      if (this.socket) {
        this.send({ event: "stop", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: this.twilioServer.accountSid, callSid: this.sid } });
        this.socket.close(1000);
      }
      await this.finish("completed");
      return;
    }
    const stream = /<Stream url="([^"]+)">(.*?)<\/Stream>/.exec(twiml);
    if (!stream) throw new Error(`TwiML the fake cannot run: ${twiml}`);
    const url = unescapeXml(stream[1]);
    for (const [, name, value] of stream[2].matchAll(/<Parameter name="([^"]*)" value="([^"]*)"\/>/g)) this.streamParameters[unescapeXml(name)] = unescapeXml(value);
    await this.openStream(url);
  }

  private openStream(url: string): Promise<void> {
    const signature = twilio.getExpectedTwilioSignature(this.twilioServer.authToken, url, {});
    this.streamSid = `MZ${hex(16)}`;
    const socket = new WebSocket(url, { headers: { "x-twilio-signature": signature } } as any);
    this.socket = socket;
    return new Promise((resolve) => {
      socket.onopen = () => {
        this.send({ event: "connected", protocol: "Call", version: "1.0.0" });
        this.send({
          event: "start",
          sequenceNumber: String(++this.sequence),
          start: { accountSid: this.twilioServer.accountSid, streamSid: this.streamSid, callSid: this.sid, tracks: ["inbound"], mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }, customParameters: this.streamParameters },
          streamSid: this.streamSid,
        });
        this.playout.start();
        resolve();
      };
      socket.onmessage = (event) => this.fromParley(JSON.parse(String(event.data)));
      socket.onclose = (event) => {
        this.closeCode = event.code;
        this.closeReason = event.reason;
        this.socket = null;
        this.playout.stop();
        resolve();
        // <Connect> ends with its stream; with no verb after it, so does the call.
        if (!this.dialedTo) void this.finish("completed");
      };
    });
  }

  private fromParley(message: any): void {
    if (message.streamSid !== this.streamSid) throw new Error(`message for another stream: ${JSON.stringify(message)}`);
    if (message.event === "media") this.playout.audio(new Uint8Array(Buffer.from(message.media.payload, "base64")));
    else if (message.event === "mark") this.playout.mark(message.mark.name);
    else if (message.event === "clear") this.playout.clear();
  }
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_, name: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[name]!);
}

function twilioError(status: number, code: number, message: string): Response {
  return Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status });
}

export class FakeTwilio extends FakeCarrierServer<FakeCall> {
  readonly accountSid = `AC${hex(16)}`;
  readonly authToken = hex(16);
  readonly owned = new Map<string, OwnedNumber>();
  /** Numbers Twilio offers for sale. */
  available: string[] = ["+14155550301", "+14155550302", "+12125550303"];
  /** What the next outbound call's far end does. */
  callee: Callee = "answer";
  /** AnsweredBy for calls with machine detection. */
  answeredBy = "human";
  /** Every REST request: method, path and form. */
  readonly requests: { method: string; path: string; form: URLSearchParams }[] = [];

  /** Someone dials one of the account's numbers: Twilio asks its Voice URL what to do, and does it. */
  async incoming(from: string, to: string): Promise<FakeCall> {
    const number = this.owned.get(to);
    if (!number?.voice_url) throw new Error(`${to} rings nowhere`);
    const call = this.track(new FakeCall(this, `CA${hex(16)}`, from, to, "inbound", number.status_callback || null, []));
    const answer = await this.signedPost(number.voice_url, { ...call.params(), CallStatus: "ringing" });
    if (answer.status !== 200) throw new Error(`voice webhook answered ${answer.status}: ${answer.text}`);
    await call.execute(answer.text);
    return call;
  }

  /** A POST as Twilio signs it: X-Twilio-Signature over the URL and sorted form parameters. */
  async signedPost(url: string, params: Record<string, string>, signWith = this.authToken): Promise<{ status: number; text: string }> {
    const signature = twilio.getExpectedTwilioSignature(signWith, url, params);
    try {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature }, body: new URLSearchParams(params).toString() });
      return { status: res.status, text: await res.text() };
    } catch (error) {
      // Parley is gone (a callback after its test stopped it): Twilio logs the failure, status 0 here.
      return { status: 0, text: String(error) };
    }
  }

  protected idOf(call: FakeCall): string {
    return call.sid;
  }

  protected async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const form = new URLSearchParams(request.method === "GET" || request.method === "DELETE" ? url.search : await request.text());
    const prefix = `/2010-04-01/Accounts/${this.accountSid}`;
    this.requests.push({ method: request.method, path: url.pathname, form });
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString("base64")}`;
    if (request.headers.get("authorization") !== expected) return twilioError(401, 20003, "Authenticate");
    if (!url.pathname.startsWith(prefix)) return twilioError(404, 20404, "The requested resource was not found");
    const path = url.pathname.slice(prefix.length);
    let match: RegExpExecArray | null;
    if (path === "/Calls.json" && request.method === "POST") return this.createCall(form);
    if ((match = /^\/Calls\/(CA\w+)\.json$/.exec(path)) && request.method === "POST") return this.updateCall(match[1], form);
    if ((match = /^\/AvailablePhoneNumbers\/(\w\w)\/Local\.json$/.exec(path))) {
      const areaCode = form.get("AreaCode");
      const contains = form.get("Contains");
      const found = this.available.filter((n) => (!areaCode || n.startsWith(`+1${areaCode}`)) && (!contains || n.includes(contains))).slice(0, Number(form.get("PageSize") ?? 50));
      return Response.json({ available_phone_numbers: found.map((phone_number) => ({ phone_number, friendly_name: phone_number, locality: "San Francisco", region: "CA", iso_country: match![1] })), uri: url.pathname });
    }
    if (path === "/IncomingPhoneNumbers.json" && request.method === "GET") {
      const wanted = form.get("PhoneNumber");
      return Response.json({ incoming_phone_numbers: [...this.owned.values()].filter((n) => !wanted || n.phone_number === wanted) });
    }
    if (path === "/IncomingPhoneNumbers.json" && request.method === "POST") {
      const number = form.get("PhoneNumber") ?? "";
      if (!this.available.includes(number)) return twilioError(400, 21422, "PhoneNumber requested is not available");
      this.available = this.available.filter((n) => n !== number);
      const owned: OwnedNumber = { sid: `PN${hex(16)}`, phone_number: number, voice_url: form.get("VoiceUrl") ?? "", status_callback: form.get("StatusCallback") ?? "" };
      this.owned.set(number, owned);
      return Response.json(owned, { status: 201 });
    }
    if ((match = /^\/IncomingPhoneNumbers\/(PN\w+)\.json$/.exec(path))) {
      const owned = [...this.owned.values()].find((n) => n.sid === match![1]);
      if (!owned) return twilioError(404, 20404, "The requested resource was not found");
      if (request.method === "DELETE") {
        this.owned.delete(owned.phone_number);
        return new Response(null, { status: 204 });
      }
      if (form.has("VoiceUrl")) owned.voice_url = form.get("VoiceUrl")!;
      if (form.has("StatusCallback")) owned.status_callback = form.get("StatusCallback")!;
      return Response.json(owned);
    }
    return twilioError(404, 20404, "The requested resource was not found");
  }

  private createCall(form: URLSearchParams): Response {
    const to = form.get("To");
    const from = form.get("From");
    if (!to) return twilioError(400, 21201, "No 'To' number is specified");
    if (!from || ![...this.owned.keys()].includes(from)) return twilioError(400, 21210, `The source phone number provided, ${from}, is not yet verified for your account`);
    const twiml = form.get("Twiml");
    if (!twiml) return twilioError(400, 21205, "Url or Twiml parameter is required");
    const call = this.track(new FakeCall(this, `CA${hex(16)}`, from, to, "outbound-api", form.get("StatusCallback"), form.getAll("StatusCallbackEvent")));
    const amd = form.get("MachineDetection") ? form.get("AsyncAmdStatusCallback") : null;
    void this.run(call, twiml, amd);
    return Response.json({ sid: call.sid, account_sid: this.accountSid, to, from, status: "queued", direction: "outbound-api", api_version: "2010-04-01" }, { status: 201 });
  }

  /** The far end's part of an outbound call, after Twilio has answered the REST request. */
  private async run(call: FakeCall, twiml: string, amdCallback: string | null): Promise<void> {
    await Bun.sleep(20);
    await call.status("initiated");
    await call.status("ringing");
    await Bun.sleep(100);
    if (call.ended) return;
    if (this.callee === "busy") return call.finish("busy");
    if (this.callee === "no-answer") return call.finish("no-answer");
    if (this.callee === "fail") return call.finish("failed");
    await call.status("in-progress");
    if (amdCallback) void this.signedPost(amdCallback, { ...call.params(), AnsweredBy: this.answeredBy, MachineDetectionDuration: "1800" });
    await call.execute(twiml);
  }

  private async updateCall(sid: string, form: URLSearchParams): Promise<Response> {
    const call = this.calls.get(sid);
    if (!call) return twilioError(404, 20404, "The requested resource was not found");
    const status = form.get("Status");
    const twiml = form.get("Twiml");
    if (call.ended) return twilioError(400, 21220, "Call is not in-progress. Cannot redirect.");
    if (status === "canceled") {
      if (call.statuses.includes("in-progress")) return twilioError(400, 21220, "Call is not in-progress. Cannot redirect.");
      await call.finish("canceled");
    } else if (status === "completed") {
      call.socket?.close(1000);
      await call.finish("completed");
    } else if (twiml) {
      await call.execute(twiml);
    }
    return Response.json({ sid, status: call.ended ? "completed" : "in-progress" });
  }
}
