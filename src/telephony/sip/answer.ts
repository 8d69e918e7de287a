// An INVITE from the trunk: the number called (Request-URI, else To) goes through the one inbound
// path every carrier uses; unknown numbers get 404, numbers that are off or have no agent ready 480,
// an offer without G.711 488. Answered calls get 200 with our SDP, repeated until the ACK.
import { ApiError } from "../../http/errors.ts";
import { numberOf, parseNameAddr, parseUri } from "./address.ts";
import { SipCallLeg, type Codec, type SipCallContext } from "./call-leg.ts";
import { Dialog } from "./dialog.ts";
import { answerOffer, readAnswer, SdpRefused } from "./sdp.ts";
import { newToken, type Incoming } from "./user-agent.ts";
import type { CallLeg } from "../types.ts";

/** What the trunk needs of the inbound path (InboundCalls, with the workspace and kind filled in). */
export interface InboundHooks {
  check(to: string, from: string | null): void;
  answer(to: string, from: string | null, makeLeg: (callId: string) => CallLeg): string;
  log(message: string): void;
}

/** `14155550100`, `+14155550100` and `tel:+1…` all name the same E.164 number. */
function e164(uriText: string): string | null {
  try {
    const number = numberOf(parseUri(uriText));
    return number ? (number.startsWith("+") ? number : `+${number}`) : null;
  } catch {
    return null;
  }
}

/** The SIP answer to a refusal by the inbound path. */
function refusalOf(error: unknown): { status: number; reason: string } {
  if (error instanceof ApiError) {
    const detail = error.message.replace(/[\r\n]/g, " ").slice(0, 120);
    if (error.status === 404) return { status: 404, reason: `Not Found (${detail})` };
    if (error.status === 409 || error.status === 422) return { status: 480, reason: `Temporarily Unavailable (${detail})` };
  }
  return { status: 500, reason: "Server Internal Error" };
}

export async function answerInvite(call: SipCallContext, incoming: Incoming, hooks: InboundHooks): Promise<void> {
  const { request } = incoming;
  const to = e164(request.uri) ?? e164(parseNameAddr(request.headers.get("to")!).uri);
  if (!to) {
    incoming.respond(404, { reason: "Not Found (no number in the Request-URI or To)" });
    return;
  }
  const from = e164(parseNameAddr(request.headers.get("from")!).uri);
  try {
    hooks.check(to, from);
  } catch (error) {
    const refusal = refusalOf(error);
    incoming.respond(refusal.status, { reason: refusal.reason, toTag: newToken() });
    return;
  }
  // The codec is settled before anything is opened, so an offer with nothing in common costs nothing.
  let codec: Codec = call.media.codecs[0] ?? "pcmu";
  if (request.body) {
    try {
      codec = answerOffer(request.body, { address: call.media.advertise, port: 9, sessionId: 0, version: 0, codecs: call.media.codecs }).media.encoding;
    } catch (error) {
      if (!(error instanceof SdpRefused)) throw error;
      incoming.respond(488, { toTag: newToken(), headers: [["warning", `304 parley "${error.message}"`]] });
      return;
    }
  }
  incoming.respond(100);
  const leg = new SipInboundLeg(call, codec);
  await leg.answer(incoming, to, from, hooks);
}

class SipInboundLeg extends SipCallLeg {
  private canceled = false;

  async answer(incoming: Incoming, to: string, from: string | null, hooks: InboundHooks): Promise<void> {
    const { request } = incoming;
    incoming.onCancel(() => {
      this.canceled = true;
      incoming.respond(487, { toTag: this.dialog?.localTag ?? newToken() });
      this.end("remote_hangup", "the caller hung up before the answer (CANCEL)");
    });
    try {
      await this.openMedia();
    } catch (error) {
      incoming.respond(503, { reason: "Service Unavailable (no free RTP port)", toTag: newToken() });
      hooks.log((error as Error).message);
      return;
    }
    if (this.canceled) {
      this.rtp?.close();
      return;
    }
    this.listen(Dialog.asCallee(request, newToken(), incoming.source));
    let sdp: string;
    const lateOffer = !request.body;
    if (lateOffer) sdp = this.offer();
    else {
      const answered = answerOffer(request.body, this.localMedia([this.codec]));
      this.useMedia(answered.media);
      sdp = answered.sdp;
    }
    try {
      hooks.answer(to, from, () => this);
    } catch (error) {
      const refusal = refusalOf(error);
      incoming.respond(refusal.status, { reason: refusal.reason, toTag: this.dialog!.localTag });
      this.stop("failed");
      return;
    }
    this.confirm(incoming, sdp, (ackSdp) => {
      if (lateOffer) {
        try {
          this.useMedia(readAnswer(ackSdp));
        } catch (error) {
          this.bye();
          this.end("failed", `the caller's answer in the ACK is unusable: ${(error as Error).message}`);
          return;
        }
      }
      this.emit({ type: "answered" });
    });
  }
}
