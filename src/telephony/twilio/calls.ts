// The live calls of every Twilio connection, by Parley call id and by CallSid: shared by the kind's
// carriers and routes, and kept when a connection changes (its calls finish on the old carrier).
import { StreamDirectory } from "../media-stream/directory.ts";
import type { StreamLeg } from "../media-stream/leg.ts";

export interface TwilioCall {
  callId: string;
  connectionId: string;
  leg: StreamLeg;
  /** Twilio's CallSid once known (at once for inbound calls; when the REST create answers for outbound). */
  sid: string | null;
  /** Resolves to the CallSid, or null when Twilio refused the call. */
  created: Promise<string | null>;
}

export class TwilioCalls {
  readonly streams = new StreamDirectory();
  private readonly byId = new Map<string, TwilioCall>();
  private readonly bySid = new Map<string, string>();

  add(call: TwilioCall): void {
    this.byId.set(call.callId, call);
    if (call.sid) this.bySid.set(call.sid, call.callId);
    call.leg.onEvent((event) => {
      if (event.type === "ended") this.remove(call);
    });
  }

  identify(call: TwilioCall, sid: string): void {
    call.sid = sid;
    if (this.byId.get(call.callId) === call) this.bySid.set(sid, call.callId);
  }

  /** A call by the id Parley put in its callback URL, else by Twilio's CallSid. */
  find(callId: string | undefined, sid: string | undefined): TwilioCall | undefined {
    const id = callId ?? (sid ? this.bySid.get(sid) : undefined);
    return id ? this.byId.get(id) : undefined;
  }

  private remove(call: TwilioCall): void {
    this.byId.delete(call.callId);
    if (call.sid) this.bySid.delete(call.sid);
    this.streams.forget(call.callId);
  }

  get size(): number {
    return this.byId.size;
  }
}
