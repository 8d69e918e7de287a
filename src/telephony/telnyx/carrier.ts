// A Telnyx account made live through Call Control: outbound calls dialled with a media stream back to
// Parley, inbound calls answered (or rejected) from their call.initiated event, events turned into leg
// events. The audio itself is the shared StreamLeg.
import type { KeyObject } from "node:crypto";
import type { CarrierEnv } from "../kind.ts";
import { CloudCarrier } from "../media-stream/cloud-carrier.ts";
import type { StreamControl, StreamLeg } from "../media-stream/leg.ts";
import type { StreamCall, StreamCalls } from "../media-stream/live-calls.ts";
import type { Carrier, CarrierConnection, DialRequest, InboundRequest, LegEndReason } from "../types.ts";
import { TelnyxNumbers } from "./numbers.ts";
import { TelnyxRest } from "./rest.ts";
import { readTelnyx, type TelnyxSettings } from "./settings.ts";
import { telnyxPublicKey } from "./signature.ts";
import { encodeClientState, telnyxCodec } from "./stream-codec.ts";

/** Telnyx's hangup causes that say more than "the call ended". */
const HANGUP: Record<string, LegEndReason> = { user_busy: "busy", timeout: "no_answer", no_answer: "no_answer", call_rejected: "rejected", originator_cancel: "local_hangup" };

export interface TelnyxEvent {
  id: string;
  event_type: string;
  payload: Record<string, any>;
}

export class TelnyxCarrier extends CloudCarrier implements Carrier {
  readonly kind = "telnyx";
  readonly numbers: TelnyxNumbers;
  private readonly settings: TelnyxSettings;
  private readonly rest: TelnyxRest;
  /** The account's webhook key, parsed once: every event is checked with it. */
  readonly verifyKey: KeyObject | null;

  constructor(
    connection: CarrierConnection,
    calls: StreamCalls,
    env: CarrierEnv,
    private readonly base: string,
  ) {
    super("Telnyx", connection, calls, env, telnyxCodec);
    this.settings = readTelnyx(connection.settings);
    this.rest = new TelnyxRest(this.settings.apiBaseUrl, connection.credentials.api_key ?? "", env.outbound);
    this.numbers = new TelnyxNumbers(this.rest, this.settings.country, this.settings.appId);
    this.verifyKey = telnyxPublicKey(connection.credentials.public_key ?? "");
  }

  /** A call's own events and its media stream come to this node, which holds its leg (--node-url); the application's webhook (a new call) to any node. */
  urls() {
    const publicUrl = this.env.publicUrl();
    const nodeUrl = this.env.nodeUrl();
    return {
      events: (callId?: string) => `${callId ? nodeUrl : publicUrl}${this.base}/events?connection=${this.connection.id}${callId ? `&call=${callId}` : ""}`,
      stream: `${nodeUrl.replace(/^http/, "ws")}${this.base}/stream`,
    };
  }

  dial(request: DialRequest): StreamLeg {
    const urls = this.urls();
    return this.placeCall(request.callId, this.settings.ringTimeoutSeconds, async (token) => {
      const created = await this.rest.request<{ call_control_id: string }>("POST", "/calls", {
        connection_id: this.settings.appId,
        to: request.to,
        from: request.from,
        webhook_url: urls.events(request.callId),
        webhook_url_method: "POST",
        timeout_secs: this.settings.ringTimeoutSeconds,
        ...this.streamParameters(request.callId, token),
        ...(this.settings.machineDetection ? { answering_machine_detection: "detect" } : {}),
      });
      return created.call_control_id;
    });
  }

  /** One Call Control event for this connection (already verified and de-duplicated). */
  async event(event: TelnyxEvent, callId: string | undefined): Promise<void> {
    const payload = event.payload;
    const controlId = typeof payload.call_control_id === "string" ? payload.call_control_id : "";
    if (event.event_type === "call.initiated" && payload.direction === "incoming") return this.answerInbound(payload);
    const call = this.calls.find(callId, controlId || undefined);
    if (!call || call.connectionId !== this.connection.id) return;
    if (controlId && !call.sid) this.calls.identify(call, controlId);
    switch (event.event_type) {
      case "call.initiated":
        call.leg.ringing();
        return;
      case "call.machine.detection.ended":
      case "call.machine.premium.detection.ended": {
        const result = String(payload.result ?? "");
        if (result === "human") call.leg.answeredBy("human");
        else if (result.startsWith("machine") || result === "fax_detected") call.leg.answeredBy("machine");
        return;
      }
      case "streaming.failed":
        call.leg.end("failed", `Telnyx could not open the media stream: ${payload.failure_reason ?? "no reason given"}`);
        return;
      case "call.hangup": {
        const cause = String(payload.hangup_cause ?? "");
        const mapped = HANGUP[cause];
        if (mapped) call.leg.end(mapped);
        else if (call.leg.isAnswered || cause === "normal_clearing") call.leg.end("remote_hangup");
        else call.leg.end("failed", `Telnyx ended the call: ${cause || "no cause given"}${payload.sip_hangup_cause ? ` (SIP ${payload.sip_hangup_cause})` : ""}`);
        return;
      }
      default:
        // call.answered, streaming.started, call.dtmf.received (keys come on the stream): the stream's `start` answers.
        return;
    }
  }

  private async answerInbound(payload: Record<string, any>): Promise<void> {
    const controlId = String(payload.call_control_id ?? "");
    const request: InboundRequest = { kind: "telnyx", connectionId: this.connection.id, to: String(payload.to ?? ""), from: payload.from ? String(payload.from) : null, carrierOptions: null };
    const command = (action: string, body: Record<string, unknown>) => this.rest.request("POST", `/calls/${encodeURIComponent(controlId)}/actions/${action}`, body);
    const opened = this.takeInbound(request, controlId);
    if (!opened) {
      await command("reject", { cause: "CALL_REJECTED" }).catch((refused) => this.env.log(`Telnyx reject failed: ${(refused as Error).message}`));
      return;
    }
    const { call, token } = opened;
    await command("answer", { ...this.streamParameters(call.callId, token), webhook_url: this.urls().events(call.callId) }).catch((error) =>
      call.leg.end("failed", `Telnyx refused to answer: ${(error as Error).message}`),
    );
  }

  /** A bidirectional µ-law stream back to us; client_state names the call and its stream token. */
  private streamParameters(callId: string, token: string) {
    return {
      stream_url: this.urls().stream,
      stream_track: "inbound_track",
      stream_bidirectional_mode: "rtp",
      stream_bidirectional_codec: "PCMU",
      client_state: encodeClientState({ call_id: callId, token }),
    };
  }

  protected streamUrl(): string {
    return this.urls().stream;
  }

  protected async hangupAtCarrier(call: StreamCall): Promise<void> {
    const id = await call.created;
    if (id) await this.rest.request("POST", `/calls/${encodeURIComponent(id)}/actions/hangup`, {}).catch(() => {});
  }

  protected control(call: StreamCall): StreamControl {
    const command = async (action: string, body: Record<string, unknown>) => {
      const id = await call.created;
      if (!id) throw new Error("Telnyx never created the call");
      await this.rest.request("POST", `/calls/${encodeURIComponent(id)}/actions/${action}`, body);
    };
    return {
      hangup: () => command("hangup", {}).catch(() => {}),
      transfer: (to) => command("transfer", { to }),
      sendDtmf: async (digits) => {
        await command("send_dtmf", { digits, duration_millis: 250 });
        return true;
      },
    };
  }
}
