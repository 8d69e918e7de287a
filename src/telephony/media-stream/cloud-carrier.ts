// What the cloud carriers (Twilio, Telnyx) share beyond the leg: a call's leg, its stream token and
// its place in the live-call table; the one inbound path taken for a call the carrier announces; the
// outcome of the API request that places a call; a watchdog for a stream that never opens; and they
// reach real phones (no simulation settings, no scripted recognition).
import { ApiError } from "../../http/errors.ts";
import type { CarrierEnv } from "../kind.ts";
import type { CarrierConnection, CarrierStatus, InboundRequest } from "../types.ts";
import type { StreamCodec } from "./codec.ts";
import { StreamLeg, type StreamControl } from "./leg.ts";
import type { StreamCall, StreamCalls } from "./live-calls.ts";

/** How long after the ring time-out an outbound call may still be without its media stream. */
const STREAM_GRACE_MS = 30_000;
/** An answered inbound call whose stream never opens: the carrier could not reach the stream URL. */
const INBOUND_STREAM_MS = 20_000;

/** A call just made live: its leg waits for the stream that presents `token`. */
export interface OpenedCall {
  call: StreamCall;
  token: string;
}

export abstract class CloudCarrier {
  protected state: CarrierStatus = { state: "ready", detail: null };

  /** `name` is the carrier as users know it (in messages); `codec` its stream's JSON. */
  protected constructor(
    private readonly name: string,
    protected readonly connection: CarrierConnection,
    protected readonly calls: StreamCalls,
    protected readonly env: CarrierEnv,
    private readonly codec: StreamCodec,
  ) {}

  get connectionId(): string {
    return this.connection.id;
  }

  /** Where the carrier must open media streams. */
  protected abstract streamUrl(): string;
  /** What the carrier's API does for one call (hang up, transfer, keys). */
  protected abstract control(call: StreamCall): StreamControl;
  /** Ends the call at the carrier (best effort). */
  protected abstract hangupAtCarrier(call: StreamCall): Promise<void>;

  checkDialOptions(options: Record<string, unknown>): { field: string; message: string } | null {
    const [key] = Object.keys(options);
    return key ? { field: `simulation.${key}`, message: `a call through ${this.name} reaches a real phone: it takes no simulation settings` } : null;
  }

  scriptedRecognition(): boolean {
    return false;
  }

  status(): CarrierStatus {
    return this.state;
  }

  /** Live calls are the carrier's: they finish on their own legs when the connection changes. */
  close(): void {}

  /** A call's leg, entered in the live-call table, with the single-use token its stream must present. */
  protected openCall(callId: string, carrierCallId: string | null): OpenedCall {
    const call = { callId, connectionId: this.connection.id, sid: carrierCallId, created: Promise.resolve(carrierCallId) } as StreamCall;
    call.leg = new StreamLeg(this.codec, this.control(call), this.env.log);
    this.calls.add(call);
    return { call, token: this.calls.streams.expect(callId, this.connection.id, call.leg) };
  }

  /** An outbound call: `placed` is the API request that creates it, resolving to the carrier's id for it. */
  protected placeCall(callId: string, ringTimeoutSeconds: number, place: (token: string) => Promise<string>): StreamLeg {
    const { call, token } = this.openCall(callId, null);
    call.created = place(token).then(
      (carrierCallId) => {
        this.state = { state: "ready", detail: null };
        this.calls.identify(call, carrierCallId);
        call.leg.identified(carrierCallId);
        return carrierCallId;
      },
      (error) => {
        this.noteRefusal(error);
        call.leg.end("failed", `${this.name} refused the call: ${(error as Error).message}`);
        return null;
      },
    );
    this.giveUpWithoutStream(call, ringTimeoutSeconds * 1000 + STREAM_GRACE_MS);
    return call.leg;
  }

  /**
   * A call the carrier announces, through the one inbound path (the number's agent, the call record,
   * the conversation on the leg); null, logged, when it is not to be answered.
   */
  protected takeInbound(request: InboundRequest, carrierCallId: string): OpenedCall | null {
    const taken: { opened?: OpenedCall } = {};
    try {
      this.env.inbound.check(this.connection.workspaceId, request);
      this.env.inbound.answer(this.connection.workspaceId, request, (callId) => (taken.opened = this.openCall(callId, carrierCallId)).call.leg);
    } catch (error) {
      if (!(error instanceof ApiError) && !taken.opened) throw error;
      this.env.log(`${this.name} call ${carrierCallId} to ${request.to} refused: ${(error as Error).message}`);
      taken.opened?.call.leg.end("failed", (error as Error).message);
      return null;
    }
    const opened = taken.opened!;
    opened.call.leg.identified(carrierCallId);
    this.giveUpWithoutStream(opened.call, INBOUND_STREAM_MS);
    return opened;
  }

  /** A call whose stream never opens (the carrier cannot reach the stream URL) must not stay live forever. */
  private giveUpWithoutStream(call: StreamCall, afterMs: number): void {
    const timer = setTimeout(() => {
      if (call.leg.isAnswered || call.leg.isEnded) return;
      call.leg.end("failed", `${this.name} did not open the media stream within ${Math.round(afterMs / 1000)} s: check that it can reach ${this.streamUrl()}`);
      void this.hangupAtCarrier(call);
    }, afterMs);
    timer.unref?.();
    call.leg.onEvent((event) => {
      if (event.type === "ended") clearTimeout(timer);
    });
  }

  /** Remembers an API refusal that says the connection itself is wrong (credentials) or cut off. */
  private noteRefusal(error: unknown): void {
    const status = (error as { status?: number } | null)?.status;
    if (status === 401) this.state = { state: "failed", detail: `${this.name} refused the credentials (401)` };
    else if (status === 0) this.state = { state: "unreachable", detail: (error as Error).message };
  }
}
