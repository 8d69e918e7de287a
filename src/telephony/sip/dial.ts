// An outbound call over the trunk: INVITE with our offer, one answer to a digest challenge, ringing,
// then either the answer (ACK, media) or the SIP status mapped to why the call did not happen.
// Hanging up before the answer CANCELs; so does the ring timeout.
import type { DialRequest, LegEndReason } from "../types.ts";
import { digestAuthorization, parseChallenge, refusesCredentials } from "./digest.ts";
import { Dialog } from "./dialog.ts";
import type { SipRequest, SipResponse } from "./message.ts";
import { readAnswer, SdpRefused } from "./sdp.ts";
import type { SipTarget } from "./transport.ts";
import { newToken } from "./user-agent.ts";
import { ALLOW, SipCallLeg, type SipCallContext } from "./call-leg.ts";

/** How long a CANCEL may go unconfirmed (64·T1) before the call is given up anyway. */
const CANCEL_WAIT_MS = 32_000;

export interface DialSettings {
  trunk: SipTarget;
  credentials: { username: string; password: string } | null;
  ringTimeoutMs: number;
  /** Dial `14155550100` rather than `+14155550100` (what many PBXes expect). */
  stripPlus: boolean;
}

/** Why a call that was never answered ended, from the final SIP status. */
export function endReasonOf(status: number): LegEndReason {
  if (status === 486 || status === 600) return "busy";
  if (status === 480 || status === 408) return "no_answer";
  if (status === 603) return "rejected";
  return "failed";
}

export class SipOutboundLeg extends SipCallLeg {
  private invite: SipRequest | null = null;
  private provisional = false;
  /** Why we gave up before the answer (hang-up or ring timeout): a CANCEL is sent once a provisional says it can be. */
  private canceling: { reason: LegEndReason | null } | null = null;
  private ringTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(call: SipCallContext, private readonly settings: DialSettings, request: DialRequest) {
    super(call, call.media.codecs[0] ?? "pcmu");
    void this.start(request).catch((error) => this.end("failed", (error as Error).message));
  }

  override hangup(): void {
    if (this.ended) return;
    if (this.dialog) {
      super.hangup();
      return;
    }
    // Not answered yet: the INVITE is cancelled (and ACK+BYE follow if a 200 crosses the CANCEL).
    this.cancel(null);
    this.stop("local_hangup");
  }

  private async start(request: DialRequest): Promise<void> {
    await this.call.ready;
    await this.openMedia();
    if (this.ended) {
      this.rtp?.close();
      return;
    }
    const { ua } = this.call;
    const user = (number: string) => (this.settings.stripPlus ? number.replace(/^\+/, "") : number);
    const from = request.from ? `<sip:${user(request.from)}@${this.call.domain}>` : `"Anonymous" <sip:anonymous@anonymous.invalid>`;
    this.invite = ua.createRequest(
      "INVITE",
      `sip:${user(request.to)}@${this.call.domain}`,
      [
        ["from", `${from};tag=${newToken()}`],
        ["to", `<sip:${user(request.to)}@${this.call.domain}>`],
        ["call-id", `${newToken(12)}@parley`],
        ["cseq", "1 INVITE"],
        ["contact", this.contact()],
        ["allow", ALLOW],
        ["content-type", "application/sdp"],
      ],
      this.offer(),
    );
    this.ringTimer = setTimeout(() => this.cancel("no_answer"), this.settings.ringTimeoutMs);
    let response = await this.send(this.invite);
    if ((response.status === 401 || response.status === 407) && !this.canceling) {
      const answered = this.authorize(this.invite, response);
      if (typeof answered === "string") return this.end("failed", answered);
      this.invite = answered;
      response = await this.send(answered);
      if (refusesCredentials(response.status)) {
        return this.end("failed", `the trunk refused the credentials of ${this.settings.credentials!.username} (${response.status} ${response.reason}): check the password`);
      }
    }
    if (this.ringTimer) clearTimeout(this.ringTimer);
    this.answered(response);
  }

  private send(invite: SipRequest): Promise<SipResponse> {
    return this.call.ua.send(invite, this.settings.trunk, {
      onProvisional: (response) => {
        const first = !this.provisional;
        this.provisional = true;
        if (this.canceling) {
          if (first) this.sendCancel();
          return;
        }
        if (first && response.status > 100) this.emit({ type: "ringing" });
      },
      onRetransmitted2xx: (response) => this.call.ua.sendStateless(this.ackFor(invite, response), this.settings.trunk),
    });
  }

  /** The INVITE again with the digest answer, or why it cannot be answered. */
  private authorize(invite: SipRequest, response: SipResponse): SipRequest | string {
    const proxy = response.status === 407;
    const header = response.headers.get(proxy ? "proxy-authenticate" : "www-authenticate");
    const credentials = this.settings.credentials;
    if (!credentials) return `the trunk asks for a password (${response.status} ${response.reason}) and the connection has no credentials`;
    const challenge = header ? parseChallenge(header) : null;
    if (!challenge) return `the trunk's challenge cannot be answered (${header?.slice(0, 60) ?? "no challenge header"})`;
    const authorization = digestAuthorization(challenge, { method: "INVITE", uri: invite.uri, username: credentials.username, password: credentials.password });
    return this.call.ua.retry(invite, [[proxy ? "proxy-authorization" : "authorization", authorization]]);
  }

  private answered(response: SipResponse): void {
    const invite = this.invite!;
    if (response.status >= 300) {
      const reason = this.canceling ? this.canceling.reason : endReasonOf(response.status);
      if (reason === null) return; // we hung up: the call session already knows
      // Our own 408 with no word from the trunk at all means it is unreachable, not that nobody answered.
      const unreachable = response.status === 408 && !this.provisional;
      this.end(unreachable ? "failed" : reason, unreachable ? `no answer from the trunk at ${this.settings.trunk.address}:${this.settings.trunk.port}` : `${response.status} ${response.reason}`);
      return;
    }
    const dialog = Dialog.asCaller(invite, response, this.settings.trunk);
    this.listen(dialog);
    this.call.ua.sendStateless(this.ackFor(invite, response), this.settings.trunk);
    if (this.canceling) {
      // The answer crossed our CANCEL: the call is taken and left at once.
      this.bye();
      if (this.canceling.reason) this.end(this.canceling.reason);
      else this.stop("local_hangup");
      return;
    }
    try {
      this.useMedia(readAnswer(response.body));
    } catch (error) {
      if (!(error instanceof SdpRefused)) throw error;
      this.bye();
      this.end("failed", `the far end's answer is unusable: ${error.message}`);
      return;
    }
    this.emit({ type: "answered" });
  }

  /** ACK for a 2xx (§13.2.2.4): a new transaction inside the dialog, with the INVITE's sequence number. */
  private ackFor(invite: SipRequest, response: SipResponse): SipRequest {
    const dialog = this.dialog ?? Dialog.asCaller(invite, response, this.settings.trunk);
    const seq = Number(invite.headers.get("cseq")!.split(/\s+/)[0]);
    const ack = dialog.request(this.call.ua, "ACK", { ackOf: seq });
    for (const name of ["authorization", "proxy-authorization"]) {
      const value = invite.headers.get(name);
      if (value) ack.headers.append(name, value);
    }
    return ack;
  }

  private cancel(reason: LegEndReason | null): void {
    if (this.canceling || this.dialog || this.ended) return;
    this.canceling = { reason };
    if (this.provisional) this.sendCancel();
    else if (!this.invite) this.end(reason ?? "local_hangup");
    // A trunk that never confirms the CANCEL does not keep the call ringing forever.
    setTimeout(() => this.end(reason ?? "local_hangup"), CANCEL_WAIT_MS).unref?.();
  }

  /** CANCEL (§9.1): the INVITE's branch, Request-URI, From, To and Call-ID, CSeq number with CANCEL. */
  private sendCancel(): void {
    const invite = this.invite!;
    const headers: [string, string][] = [
      ["from", invite.headers.get("from")!],
      ["to", invite.headers.get("to")!],
      ["call-id", invite.headers.get("call-id")!],
      ["cseq", `${invite.headers.get("cseq")!.split(/\s+/)[0]} CANCEL`],
    ];
    const cancel = this.call.ua.createRequest("CANCEL", invite.uri, headers);
    cancel.headers.set("via", invite.headers.all("via")[0]);
    void this.call.ua.send(cancel, this.settings.trunk);
  }

  protected override stop(reason: LegEndReason): void {
    if (this.ringTimer) clearTimeout(this.ringTimer);
    super.stop(reason);
  }
}
