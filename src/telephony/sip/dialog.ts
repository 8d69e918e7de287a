// A dialog (RFC 3261 §12): the call's identity (Call-ID and both tags), the far end's target and
// route set, and our CSeq, from which every request inside the call is built.
import { formatNameAddr, parseNameAddr, type NameAddr } from "./address.ts";
import { parseCSeq, type SipRequest, type SipResponse } from "./message.ts";
import type { SipTarget } from "./transport.ts";
import type { SipUserAgent } from "./user-agent.ts";

export class Dialog {
  private localSeq: number;
  private remoteSeq: number | null = null;

  private constructor(
    readonly callId: string,
    readonly local: NameAddr,
    readonly remote: NameAddr,
    private remoteTarget: string,
    private readonly routeSet: string[],
    /** Where requests go: the trunk (outbound calls) or where the INVITE came from (inbound). */
    readonly target: SipTarget,
    localSeq: number,
  ) {
    this.localSeq = localSeq;
  }

  /** Our INVITE answered 2xx (§12.1.2): the far end's tag and Contact, the route set reversed. */
  static asCaller(invite: SipRequest, answer: SipResponse, target: SipTarget): Dialog {
    const contact = answer.headers.get("contact");
    return new Dialog(
      invite.headers.get("call-id")!,
      parseNameAddr(invite.headers.get("from")!),
      parseNameAddr(answer.headers.get("to")!),
      contact ? parseNameAddr(contact).uri : invite.uri,
      answer.headers.all("record-route").reverse(),
      target,
      parseCSeq(invite.headers.get("cseq")!).seq,
    );
  }

  /** An INVITE we answer (§12.1.1): our tag on its To, its Contact as the target. */
  static asCallee(invite: SipRequest, localTag: string, source: SipTarget): Dialog {
    const local = parseNameAddr(invite.headers.get("to")!);
    local.params.tag = localTag;
    const contact = invite.headers.get("contact");
    const dialog = new Dialog(
      invite.headers.get("call-id")!,
      local,
      parseNameAddr(invite.headers.get("from")!),
      contact ? parseNameAddr(contact).uri : invite.uri,
      invite.headers.all("record-route"),
      source,
      Math.floor(Math.random() * 10_000) + 1,
    );
    dialog.remoteSeq = parseCSeq(invite.headers.get("cseq")!).seq;
    return dialog;
  }

  get localTag(): string {
    return this.local.params.tag ?? "";
  }

  /** A request inside the dialog; ACK reuses the INVITE's sequence number (`ackOf`). */
  request(ua: SipUserAgent, method: string, options: { headers?: [string, string][]; body?: string; ackOf?: number } = {}): SipRequest {
    const seq = options.ackOf ?? ++this.localSeq;
    return ua.createRequest(
      method,
      this.remoteTarget,
      [
        ["from", formatNameAddr(this.local)],
        ["to", formatNameAddr(this.remote)],
        ["call-id", this.callId],
        ["cseq", `${seq} ${method}`],
        ...this.routeSet.map((route): [string, string] => ["route", route]),
        ...(options.headers ?? []),
      ],
      options.body ?? "",
    );
  }

  /** Whether an in-dialog request is new (its CSeq above the last), updating the far end's target on a re-INVITE. */
  accept(request: SipRequest): boolean {
    const seq = parseCSeq(request.headers.get("cseq")!).seq;
    if (request.method === "ACK" || request.method === "CANCEL") return true;
    if (this.remoteSeq !== null && seq <= this.remoteSeq) return false;
    this.remoteSeq = seq;
    const contact = request.headers.get("contact");
    if (request.method === "INVITE" && contact) this.remoteTarget = parseNameAddr(contact).uri;
    return true;
  }

  /** The key the carrier finds a dialog by, from either side's view of a message. */
  static keyOf(callId: string, localTag: string): string {
    return `${callId}|${localTag}`;
  }
}
