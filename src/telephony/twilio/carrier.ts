// A Twilio account made live: outbound calls through the REST API with TwiML that opens a Media
// Stream back to Parley, inbound calls answered from the voice webhook with the same TwiML, status
// callbacks turned into leg events. The audio itself is the shared StreamLeg.
import type { CarrierEnv } from "../kind.ts";
import { CloudCarrier } from "../media-stream/cloud-carrier.ts";
import type { StreamControl, StreamLeg } from "../media-stream/leg.ts";
import type { Carrier, CarrierConnection, DialRequest, InboundRequest } from "../types.ts";
import type { StreamCall, StreamCalls } from "../media-stream/live-calls.ts";
import { TwilioNumbers } from "./numbers.ts";
import { TwilioError, TwilioRest } from "./rest.ts";
import { readCredentials, readTwilio, type TwilioCredentials, type TwilioSettings } from "./settings.ts";
import type { FormParams } from "./signature.ts";
import { twilioCodec } from "./stream-codec.ts";
import { dialTwiml, rejectTwiml, streamTwiml } from "./twiml.ts";

const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? "") : (value ?? ""));

export class TwilioCarrier extends CloudCarrier implements Carrier {
  readonly kind = "twilio";
  readonly numbers: TwilioNumbers;
  readonly credentials: TwilioCredentials;
  private readonly settings: TwilioSettings;
  private readonly rest: TwilioRest;

  constructor(
    connection: CarrierConnection,
    calls: StreamCalls,
    env: CarrierEnv,
    private readonly base: string,
  ) {
    super("Twilio", connection, calls, env, twilioCodec);
    this.settings = readTwilio(connection.settings);
    this.credentials = readCredentials(connection.credentials);
    this.rest = new TwilioRest(this.settings.apiBaseUrl, this.credentials, env.outbound);
    this.numbers = new TwilioNumbers(this.rest, this.settings.country, this.credentials.accountSid, () => ({ voice: this.urls().voice, status: this.urls().status() }));
  }

  /**
   * Where Twilio calls back for this connection. A number's webhooks go to the public URL (any node);
   * a call's stream and its own status callbacks to this node, which holds its leg (--node-url).
   */
  urls() {
    const publicUrl = this.env.publicUrl();
    const nodeUrl = this.env.nodeUrl();
    const status = (callId?: string) => `${callId ? nodeUrl : publicUrl}${this.base}/status?connection=${this.connection.id}${callId ? `&call=${callId}` : ""}`;
    return {
      voice: `${publicUrl}${this.base}/voice?connection=${this.connection.id}`,
      status,
      // Twilio takes no query string on a stream URL: the call and its token ride as <Parameter>s.
      stream: `${nodeUrl.replace(/^http/, "ws")}${this.base}/stream`,
    };
  }

  dial(request: DialRequest): StreamLeg {
    const urls = this.urls();
    const status = urls.status(request.callId);
    return this.placeCall(request.callId, this.settings.ringTimeoutSeconds, async (token) => {
      const created = await this.rest.createCall({
        To: request.to,
        From: request.from,
        Twiml: streamTwiml(urls.stream, { call_id: request.callId, token }),
        StatusCallback: status,
        StatusCallbackMethod: "POST",
        StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
        Timeout: String(this.settings.ringTimeoutSeconds),
        ...(this.settings.machineDetection ? { MachineDetection: "Enable", AsyncAmd: "true", AsyncAmdStatusCallback: status, AsyncAmdStatusCallbackMethod: "POST" } : {}),
      });
      return created.sid;
    });
  }

  /** The voice webhook: TwiML that connects the call to its agent, or rejects it. */
  answerInbound(params: FormParams): string {
    const sid = one(params.CallSid);
    const request: InboundRequest = { kind: "twilio", connectionId: this.connection.id, to: one(params.To), from: one(params.From) || null, carrierOptions: null };
    const opened = this.takeInbound(request, sid);
    return opened ? streamTwiml(this.urls().stream, { call_id: opened.call.callId, token: opened.token }) : rejectTwiml("rejected");
  }

  /** A status callback (or the asynchronous answering-machine result) for one of this connection's calls. */
  statusCallback(params: FormParams, callId: string | undefined): void {
    const sid = one(params.CallSid);
    const call = this.calls.find(callId, sid || undefined);
    if (!call || call.connectionId !== this.connection.id) return;
    if (sid && !call.sid) this.calls.identify(call, sid);
    const answeredBy = one(params.AnsweredBy);
    if (answeredBy === "human") call.leg.answeredBy("human");
    else if (answeredBy.startsWith("machine") || answeredBy === "fax") call.leg.answeredBy("machine");
    switch (one(params.CallStatus)) {
      case "ringing":
        call.leg.ringing();
        return;
      case "busy":
        call.leg.end("busy");
        return;
      case "no-answer":
        call.leg.end("no_answer");
        return;
      case "failed": {
        const sip = one(params.SipResponseCode);
        call.leg.end("failed", `Twilio reports the call failed${sip ? ` (SIP ${sip})` : ""}`);
        return;
      }
      case "canceled":
        call.leg.end("local_hangup");
        return;
      case "completed":
        call.leg.end(call.leg.isAnswered ? "remote_hangup" : "failed", call.leg.isAnswered ? undefined : "Twilio completed the call before its media stream opened");
        return;
      default:
        // queued, initiated, in-progress: the stream's `start` is what answers the leg.
        return;
    }
  }

  protected control(call: StreamCall): StreamControl {
    return {
      hangup: (answered) => this.hangupAtTwilio(call, answered),
      transfer: async (to) => {
        const sid = await call.created;
        if (!sid) throw new Error("Twilio never created the call");
        await this.rest.updateCall(sid, { Twiml: dialTwiml(to) });
      },
      // A streaming call has no key command at Twilio: the leg plays the keys as tones.
      sendDtmf: async () => false,
    };
  }

  protected streamUrl(): string {
    return this.urls().stream;
  }

  protected hangupAtCarrier(call: StreamCall): Promise<void> {
    return this.hangupAtTwilio(call, true);
  }

  private async hangupAtTwilio(call: StreamCall, answered: boolean): Promise<void> {
    const sid = await call.created;
    if (!sid) return;
    try {
      await this.rest.updateCall(sid, { Status: answered ? "completed" : "canceled" });
    } catch (error) {
      // Canceling is only for calls still ringing; one answered meanwhile is completed instead.
      if (!answered && error instanceof TwilioError && error.status === 400) await this.rest.updateCall(sid, { Status: "completed" }).catch(() => {});
      // Closing the stream already ended a <Connect>ed call: Twilio says it is not in progress.
    }
  }
}
