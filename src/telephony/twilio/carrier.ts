// A Twilio account made live: outbound calls through the REST API with TwiML that opens a Media
// Stream back to Parley, inbound calls answered from the voice webhook with the same TwiML, status
// callbacks turned into leg events. The audio itself is the shared StreamLeg.
import { ApiError } from "../../http/errors.ts";
import { mediaClock } from "../../voice/media/media-clock.ts";
import type { CarrierEnv } from "../kind.ts";
import { CloudCarrier } from "../media-stream/cloud-carrier.ts";
import { StreamLeg, type StreamControl } from "../media-stream/leg.ts";
import type { Carrier, CarrierConnection, DialRequest, InboundRequest } from "../types.ts";
import type { StreamCall, StreamCalls } from "../media-stream/live-calls.ts";
import { TwilioNumbers } from "./numbers.ts";
import { TwilioError, TwilioRest } from "./rest.ts";
import { readCredentials, readTwilio, type TwilioSettings } from "./settings.ts";
import type { FormParams } from "./signature.ts";
import { twilioCodec } from "./stream-codec.ts";
import { dialTwiml, rejectTwiml, streamTwiml } from "./twiml.ts";

/** How long after the ring time-out a call may still be without its media stream before it is given up. */
const STREAM_GRACE_MS = 30_000;
/** An answered inbound call whose stream never opens: Twilio could not reach the stream URL. */
const INBOUND_STREAM_MS = 20_000;

const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? "") : (value ?? ""));

export class TwilioCarrier extends CloudCarrier implements Carrier {
  readonly kind = "twilio";
  readonly numbers: TwilioNumbers;
  readonly credentials;
  private readonly settings: TwilioSettings;
  private readonly rest: TwilioRest;

  constructor(
    private readonly connection: CarrierConnection,
    private readonly calls: StreamCalls,
    private readonly env: CarrierEnv,
    private readonly base: string,
  ) {
    super("Twilio");
    this.settings = readTwilio(connection.settings);
    this.credentials = readCredentials(connection.credentials);
    this.rest = new TwilioRest(this.settings.apiBaseUrl, this.credentials, env.outbound);
    this.numbers = new TwilioNumbers(this.rest, this.settings.country, this.credentials.accountSid, () => ({ voice: this.urls().voice, status: this.urls().status() }));
  }

  get connectionId(): string {
    return this.connection.id;
  }

  /** Where Twilio calls back for this connection. */
  urls() {
    const publicUrl = this.env.publicUrl();
    const status = (callId?: string) => `${publicUrl}${this.base}/status?connection=${this.connection.id}${callId ? `&call=${callId}` : ""}`;
    return {
      voice: `${publicUrl}${this.base}/voice?connection=${this.connection.id}`,
      status,
      // Twilio takes no query string on a stream URL: the call and its token ride as <Parameter>s.
      stream: `${publicUrl.replace(/^http/, "ws")}${this.base}/stream`,
    };
  }

  dial(request: DialRequest): StreamLeg {
    const call = this.track(request.callId, null);
    const urls = this.urls();
    const status = urls.status(request.callId);
    const token = this.calls.streams.expect(request.callId, this.connection.id, call.leg);
    call.created = this.rest
      .createCall({
        To: request.to,
        From: request.from,
        Twiml: streamTwiml(urls.stream, { call_id: request.callId, token }),
        StatusCallback: status,
        StatusCallbackMethod: "POST",
        StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
        Timeout: String(this.settings.ringTimeoutSeconds),
        ...(this.settings.machineDetection ? { MachineDetection: "Enable", AsyncAmd: "true", AsyncAmdStatusCallback: status, AsyncAmdStatusCallbackMethod: "POST" } : {}),
      })
      .then(
        (resource) => {
          this.state = { state: "ready", detail: null };
          this.calls.identify(call, resource.sid);
          call.leg.identified(resource.sid);
          return resource.sid;
        },
        (error) => {
          this.noteRefusal(error);
          call.leg.end("failed", `Twilio refused the call: ${(error as Error).message}`);
          return null;
        },
      );
    this.giveUpWithoutStream(call, this.settings.ringTimeoutSeconds * 1000 + STREAM_GRACE_MS);
    return call.leg;
  }

  /** The voice webhook: TwiML that connects the call to its agent, or rejects it. */
  answerInbound(params: FormParams): string {
    const sid = one(params.CallSid);
    const request: InboundRequest = { kind: "twilio", connectionId: this.connection.id, to: one(params.To), from: one(params.From) || null, carrierOptions: null };
    let call: StreamCall | null = null;
    let token = "";
    try {
      this.env.inbound.check(this.connection.workspaceId, request);
      this.env.inbound.answer(this.connection.workspaceId, request, (callId) => {
        call = this.track(callId, sid);
        token = this.calls.streams.expect(callId, this.connection.id, call.leg);
        return call.leg;
      });
    } catch (error) {
      if (!(error instanceof ApiError) && !call) throw error;
      this.env.log(`Twilio call ${sid} to ${request.to} refused: ${(error as Error).message}`);
      (call as StreamCall | null)?.leg.end("failed", (error as Error).message);
      return rejectTwiml("rejected");
    }
    const answered = call as unknown as StreamCall;
    answered.leg.identified(sid);
    this.giveUpWithoutStream(answered, INBOUND_STREAM_MS);
    return streamTwiml(this.urls().stream, { call_id: answered.callId, token });
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

  private track(callId: string, sid: string | null): StreamCall {
    const control: StreamControl = {
      hangup: (answered) => this.hangupAtTwilio(call, answered),
      transfer: async (to) => {
        const sid = await call.created;
        if (!sid) throw new Error("Twilio never created the call");
        await this.rest.updateCall(sid, { Twiml: dialTwiml(to) });
      },
      // A streaming call has no key command at Twilio: the leg plays the keys as tones.
      sendDtmf: async () => false,
    };
    const call: StreamCall = { callId, connectionId: this.connection.id, leg: new StreamLeg(twilioCodec, mediaClock, control, this.env.log), sid, created: Promise.resolve(sid) };
    this.calls.add(call);
    return call;
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
