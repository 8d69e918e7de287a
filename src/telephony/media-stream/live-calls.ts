// The live calls of every connection of one streaming kind (Twilio, Telnyx), by Parley call id and by
// the carrier's id: shared by the kind's carriers and routes, and kept when a connection changes (its
// calls finish on the old carrier).
import { StreamDirectory } from "./directory.ts";
import type { StreamLeg } from "./leg.ts";

export interface StreamCall {
  callId: string;
  connectionId: string;
  leg: StreamLeg;
  /** The carrier's id (CallSid, call_control_id) once known: at once for inbound calls, when the API answers for outbound. */
  sid: string | null;
  /** Resolves to the carrier's id, or null when the carrier refused the call. */
  created: Promise<string | null>;
}

export class StreamCalls {
  readonly streams = new StreamDirectory();
  private readonly byId = new Map<string, StreamCall>();
  private readonly bySid = new Map<string, string>();

  add(call: StreamCall): void {
    this.byId.set(call.callId, call);
    if (call.sid) this.bySid.set(call.sid, call.callId);
    call.leg.onEvent((event) => {
      if (event.type === "ended") this.remove(call);
    });
  }

  identify(call: StreamCall, sid: string): void {
    call.sid = sid;
    if (this.byId.get(call.callId) === call) this.bySid.set(sid, call.callId);
  }

  /** A call by the id Parley put in its callback URL, else by the carrier's id. */
  find(callId: string | undefined, sid: string | undefined): StreamCall | undefined {
    const id = callId ?? (sid ? this.bySid.get(sid) : undefined);
    return id ? this.byId.get(id) : undefined;
  }

  private remove(call: StreamCall): void {
    this.byId.delete(call.callId);
    if (call.sid) this.bySid.delete(call.sid);
    this.streams.forget(call.callId);
  }
}
