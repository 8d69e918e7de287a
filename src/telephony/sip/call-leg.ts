// One SIP call as the conversation loop sees it: RTP audio both ways, RFC 4733 keys, and the
// requests inside the dialog (BYE either way, re-INVITE and UPDATE for hold or a moved stream,
// INFO keys, REFER for a blind transfer). How the call starts is in dial.ts and answer.ts.
import { decodeG711, encodeG711 } from "../../voice/media/g711.ts";
import { LegListeners } from "../leg-listeners.ts";
import type { MediaClock } from "../../voice/media/media-clock.ts";
import { RtpSession, type RtpSessionStats } from "../rtp/session.ts";
import type { CallLeg, LegEndReason, LegEvent, MediaCounts, MediaFormat } from "../types.ts";
import { formatNameAddr } from "./address.ts";
import { Dialog } from "./dialog.ts";
import { answerOffer, createOffer, readAnswer, SdpRefused, type LocalMedia, type NegotiatedMedia } from "./sdp.ts";
import type { SipTarget } from "./transport.ts";
import type { Incoming, SipUserAgent } from "./user-agent.ts";
import type { SipResponse } from "./message.ts";

export type Codec = "pcmu" | "pcma";

/** What every call on one trunk shares. */
export interface SipCallContext {
  ua: SipUserAgent;
  clock: MediaClock;
  /** Settles once the trunk's port is bound; rejects saying why it could not be. */
  ready: Promise<void>;
  media: { bindHost: string; advertise: string; range: { min: number; max: number }; codecs: Codec[] };
  /** The SIP domain numbers are dialled at (sip:+14155550100@domain) and transfers go to. */
  domain: string;
  /** Live calls by dialog, so requests inside a call reach it. */
  calls: Map<string, SipCallLeg>;
}

export const ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, INFO, NOTIFY, REFER";
const T1_MS = 500;
const T2_MS = 4_000;
const DTMF_RELAY = /^\s*Signal\s*=\s*([0-9*#A-Da-d])\s*$/m;

export class SipCallLeg extends LegListeners implements CallLeg {
  readonly format: MediaFormat;
  dialog: Dialog | null = null;
  protected rtp: RtpSession | null = null;
  protected media: NegotiatedMedia | null = null;
  protected ended = false;
  /** The far end put us on hold (sendonly or inactive from its side): nothing is sent until it resumes. */
  private held = false;
  private readonly sessionId = Math.floor(Math.random() * 1e9);
  private sdpVersion = 1;
  /** A 2xx we sent to an INVITE, repeated until the ACK comes (§13.3.1.4). */
  private unacknowledged: { timer: ReturnType<typeof setTimeout>; onAck: (sdp: string) => void } | null = null;

  constructor(
    protected readonly call: SipCallContext,
    /** What the conversation loop hears and speaks; a different codec on the wire is transcoded. */
    protected readonly codec: Codec,
  ) {
    super();
    this.format = { encoding: codec, sampleRate: 8000 };
  }

  // ------------------------------------------------------------------ CallLeg

  sendAudio(frame: Uint8Array): void {
    if (this.ended || this.held || !this.rtp || !this.media) return;
    this.rtp.send(this.media.encoding === this.codec ? frame : transcode(frame, this.codec, this.media.encoding));
  }

  /** RTP is sent as it is played: nothing waits at the far end to be dropped. */
  clearAudio(): void {}

  sendDtmf(digits: string): void {
    if (this.ended || !this.rtp || !this.dialog) return;
    if (this.rtp.sendDtmf(digits)) return;
    // No telephone-event on this call: SIP INFO is what PBXes take instead.
    for (const digit of digits) {
      void this.call.ua.send(this.dialog.request(this.call.ua, "INFO", { headers: [["content-type", "application/dtmf-relay"]], body: `Signal=${digit}\r\nDuration=160\r\n` }), this.dialog.target);
    }
  }

  /** Blind transfer (RFC 3515): REFER the far end elsewhere, then leave the call with BYE. */
  async transfer(to: string): Promise<void> {
    const dialog = this.dialog;
    if (this.ended || !dialog) throw new Error("the call is not connected");
    const target = /^sips?:/i.test(to) ? to : `sip:${to}@${this.call.domain}`;
    const response = await this.call.ua.send(
      dialog.request(this.call.ua, "REFER", { headers: [["refer-to", `<${target}>`], ["referred-by", formatNameAddr({ ...dialog.local, params: {} })], ["contact", this.contact()]] }),
      dialog.target,
    );
    if (response.status >= 300) throw new Error(`the far end refused the transfer: ${response.status} ${response.reason}`);
    this.bye();
    this.stop("transferred");
  }

  hangup(): void {
    if (this.ended) return;
    this.bye();
    this.stop("local_hangup");
  }

  /** The RTP stream's counters (sent, received, lost, late, foreign), for diagnostics and benchmarks. */
  mediaStats(): RtpSessionStats | null {
    return this.rtp?.stats ?? null;
  }

  mediaCounts(): MediaCounts {
    const stats = this.rtp?.stats;
    return { transport: "rtp", received: stats?.received ?? 0, lost: stats?.lost ?? 0, late: stats?.late ?? 0 };
  }

  /** The call's media in numbers, once, as it ends (the operator's first look at a bad line). */
  private reportMedia(): void {
    const stats = this.rtp?.stats;
    if (!stats || this.ended || stats.received + stats.sent === 0) return;
    const far = stats.rtcp.farEnd;
    this.emit({
      type: "media_report",
      report: {
        rtp: { sent: stats.sent, received: stats.received, lost: stats.lost, late: stats.late, duplicate: stats.duplicate, foreign: stats.foreign },
        rtcp: {
          sent: stats.rtcp.sent,
          received: stats.rtcp.received,
          far_end: far && { fraction_lost: far.fractionLost, cumulative_lost: far.cumulativeLost, jitter_ms: far.jitterMs, round_trip_ms: far.roundTripMs },
        },
      },
    });
  }

  // ------------------------------------------------------------------ inside the dialog

  /** A request inside this call's dialog. */
  handle(incoming: Incoming): void {
    const { request } = incoming;
    const dialog = this.dialog!;
    if (!dialog.accept(request)) {
      if (request.method !== "ACK") incoming.respond(500, { reason: "Server Internal Error (CSeq out of order)" });
      return;
    }
    switch (request.method) {
      case "ACK":
        this.acknowledged(request.body);
        return;
      case "BYE":
        incoming.respond(200);
        this.end("remote_hangup");
        return;
      case "INVITE":
      case "UPDATE":
        this.reoffer(incoming);
        return;
      case "INFO": {
        const key = DTMF_RELAY.exec(request.body);
        incoming.respond(200);
        if (key && /dtmf-relay/i.test(request.headers.get("content-type") ?? "")) this.dtmf(key[1].toUpperCase());
        return;
      }
      case "NOTIFY":
      case "OPTIONS":
        incoming.respond(200, { headers: [["allow", ALLOW]] });
        return;
      case "REFER":
        incoming.respond(403, { reason: "Forbidden (Parley does not take transfers from the far end)" });
        return;
      default:
        incoming.respond(405, { headers: [["allow", ALLOW]] });
    }
  }

  // ------------------------------------------------------------------ for dial.ts and answer.ts

  protected emit(event: LegEvent): void {
    if (this.ended && event.type !== "ended") return;
    this.deliverEvent(event);
  }

  /** The call is over on our side: media stopped, the dialog forgotten, and the loop told why. */
  protected end(reason: LegEndReason, detail?: string): void {
    if (this.ended) return;
    this.stop(reason);
    this.emit({ type: "ended", reason, ...(detail ? { detail } : {}) });
    this.releaseAll();
  }

  /** Media and dialog let go; handlers dropped so the ended call session can be collected. */
  protected stop(_reason: LegEndReason): void {
    this.reportMedia();
    this.ended = true;
    if (this.unacknowledged) clearTimeout(this.unacknowledged.timer);
    this.unacknowledged = null;
    this.rtp?.close();
    if (this.dialog) this.call.calls.delete(Dialog.keyOf(this.dialog.callId, this.dialog.localTag));
    this.releaseMedia();
  }

  protected async openMedia(): Promise<RtpSession> {
    this.rtp = await RtpSession.open(this.call.clock, this.call.media.bindHost, this.call.media.range);
    this.rtp.onFrame((frame) => {
      const own = this.media && this.media.encoding !== this.codec ? transcode(frame, this.media.encoding, this.codec) : frame;
      this.deliverAudio(own);
    });
    this.rtp.onDtmf((digit) => this.dtmf(digit));
    return this.rtp;
  }

  protected localMedia(codecs: Codec[] = this.call.media.codecs): LocalMedia {
    return { address: this.call.media.advertise, port: this.rtp!.port, sessionId: this.sessionId, version: this.sdpVersion++, codecs };
  }

  protected offer(): string {
    return createOffer(this.localMedia());
  }

  /** Starts (or moves) the RTP stream to what was agreed. */
  protected useMedia(media: NegotiatedMedia): void {
    this.media = media;
    this.held = media.direction === "recvonly" || media.direction === "inactive";
    this.rtp!.stream(!this.held);
    this.rtp!.configure({ remote: { ...media.remote }, payloadType: media.payloadType, dtmfPayloadType: media.dtmfPayloadType, silence: media.encoding === "pcmu" ? 0xff : 0xd5 });
  }

  protected contact(): string {
    return `<sip:parley@${this.call.ua.contactHost}>`;
  }

  protected listen(dialog: Dialog): void {
    this.dialog = dialog;
    this.call.calls.set(Dialog.keyOf(dialog.callId, dialog.localTag), this);
  }

  /** Sends a 2xx to an INVITE and repeats it (T1 doubling to T2) until the ACK; no ACK in 64·T1 ends the call. */
  protected confirm(incoming: Incoming, sdp: string, onAck: (sdp: string) => void): SipResponse {
    const response = incoming.respond(200, { toTag: this.dialog!.localTag, headers: [["contact", this.contact()], ["allow", ALLOW], ["content-type", "application/sdp"], ...sessionTimer(incoming)], body: sdp });
    let waited = 0;
    const again = (interval: number) => {
      const timer = setTimeout(() => {
        waited += interval;
        if (waited >= 64 * T1_MS) {
          this.unacknowledged = null;
          this.bye();
          this.end("failed", "the far end never acknowledged the answer (no ACK)");
          return;
        }
        this.call.ua.sendStateless(response, incoming.source);
        again(Math.min(interval * 2, T2_MS));
      }, interval);
      this.unacknowledged = { timer, onAck };
    };
    again(T1_MS);
    return response;
  }

  protected bye(): void {
    if (!this.dialog) return;
    void this.call.ua.send(this.dialog.request(this.call.ua, "BYE"), this.dialog.target);
  }

  protected get target(): SipTarget | null {
    return this.dialog?.target ?? null;
  }

  private acknowledged(sdp: string): void {
    const waiting = this.unacknowledged;
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.unacknowledged = null;
    waiting.onAck(sdp);
  }

  /** re-INVITE or UPDATE: hold, resume or a moved stream, answered with the codec already in use. */
  private reoffer(incoming: Incoming): void {
    const { request } = incoming;
    if (request.method === "INVITE" && this.unacknowledged) {
      incoming.respond(491, { reason: "Request Pending" });
      return;
    }
    const current = this.media ? [this.media.encoding] : this.call.media.codecs;
    if (!request.body) {
      // An offer-less re-INVITE: we offer in the 200 and the answer comes in the ACK.
      if (request.method === "UPDATE") {
        incoming.respond(200, { headers: [["contact", this.contact()], ...sessionTimer(incoming)] });
        return;
      }
      this.confirm(incoming, createOffer(this.localMedia(current)), (answer) => {
        try {
          if (answer) this.useMedia(readAnswer(answer));
        } catch {
          // A bad answer to our offer leaves the stream as it was.
        }
      });
      return;
    }
    let answered: ReturnType<typeof answerOffer>;
    try {
      answered = answerOffer(request.body, this.localMedia(current));
    } catch (error) {
      if (!(error instanceof SdpRefused)) throw error;
      incoming.respond(488, { headers: [["warning", `304 parley "${error.message}"`]] });
      return;
    }
    this.useMedia(answered.media);
    if (request.method === "UPDATE") {
      incoming.respond(200, { headers: [["contact", this.contact()], ["content-type", "application/sdp"], ...sessionTimer(incoming)], body: answered.sdp });
    } else this.confirm(incoming, answered.sdp, () => {});
  }

  private dtmf(digit: string): void {
    if (!this.ended) this.deliverDigit(digit);
  }
}

/** Session timers (RFC 4028) tolerated: the interval asked for is accepted and the asker refreshes. */
export function sessionTimer(incoming: Incoming): [string, string][] {
  const expires = incoming.request.headers.get("session-expires");
  if (!expires) return [];
  const seconds = /^\d+/.exec(expires)?.[0];
  if (!seconds) return [];
  const supported = /\btimer\b/i.test(incoming.request.headers.get("supported") ?? "") || /\btimer\b/i.test(incoming.request.headers.get("require") ?? "");
  return supported ? [["session-expires", `${seconds};refresher=uac`], ["require", "timer"]] : [];
}

function transcode(frame: Uint8Array, from: Codec, to: Codec): Uint8Array {
  return encodeG711(to === "pcmu" ? "mulaw" : "alaw", decodeG711(from === "pcmu" ? "mulaw" : "alaw", frame));
}
