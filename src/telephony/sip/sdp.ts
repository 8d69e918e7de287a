// SDP offer/answer (RFC 3264) for one audio stream: G.711 µ-law or A-law at 8 kHz, and RFC 4733
// telephone-events for DTMF. Parsing and writing through sdp-transform; the choices are ours.
import { parse, write, type SessionDescription } from "sdp-transform";
import type { AudioEncoding } from "../types.ts";

export type MediaDirection = "sendrecv" | "sendonly" | "recvonly" | "inactive";

/** What both sides agreed on for the call's audio. */
export interface NegotiatedMedia {
  /** Where to send RTP (symmetric RTP may later move it to where packets really come from). */
  remote: { address: string; port: number };
  encoding: Extract<AudioEncoding, "pcmu" | "pcma">;
  payloadType: number;
  /** The telephone-event payload type, or null when the far end cannot send or take RFC 4733 DTMF. */
  dtmfPayloadType: number | null;
  /** Our direction: the far end putting us on hold makes it recvonly or inactive. */
  direction: MediaDirection;
}

export class SdpRefused extends Error {}

const STATIC: Record<number, "pcmu" | "pcma"> = { 0: "pcmu", 8: "pcma" };
const NAMES: Record<string, "pcmu" | "pcma"> = { PCMU: "pcmu", PCMA: "pcma" };
const DTMF_PT = 101;

export interface LocalMedia {
  address: string;
  port: number;
  /** Session id and version (o= line): the version goes up with every new offer or answer. */
  sessionId: number;
  version: number;
  /** Codecs in our order of preference. */
  codecs?: ("pcmu" | "pcma")[];
}

function describe(local: LocalMedia, codecs: { pt: number; encoding: "pcmu" | "pcma" }[], dtmfPt: number | null, direction: MediaDirection): string {
  const session: SessionDescription = {
    version: 0,
    origin: { username: "parley", sessionId: local.sessionId, sessionVersion: local.version, netType: "IN", ipVer: local.address.includes(":") ? 6 : 4, address: local.address },
    name: "parley",
    connection: { version: local.address.includes(":") ? 6 : 4, ip: local.address },
    timing: { start: 0, stop: 0 },
    media: [
      {
        type: "audio",
        port: local.port,
        protocol: "RTP/AVP",
        payloads: [...codecs.map((c) => c.pt), ...(dtmfPt === null ? [] : [dtmfPt])].join(" "),
        rtp: [
          ...codecs.map((c) => ({ payload: c.pt, codec: c.encoding.toUpperCase(), rate: 8000 })),
          ...(dtmfPt === null ? [] : [{ payload: dtmfPt, codec: "telephone-event", rate: 8000 }]),
        ],
        fmtp: dtmfPt === null ? [] : [{ payload: dtmfPt, config: "0-16" }],
        ptime: 20,
        direction,
      },
    ],
  };
  return write(session);
}

/** Our offer: both G.711 laws in our order, and telephone-event. */
export function createOffer(local: LocalMedia): string {
  const codecs = (local.codecs ?? ["pcmu", "pcma"]).map((encoding) => ({ pt: encoding === "pcmu" ? 0 : 8, encoding }));
  return describe(local, codecs, DTMF_PT, "sendrecv");
}

interface AudioStream {
  remote: { address: string; port: number };
  payloads: { pt: number; name: string; rate: number }[];
  direction: MediaDirection;
}

function audioOf(sdp: string): AudioStream {
  let session: SessionDescription;
  try {
    session = parse(sdp);
  } catch {
    throw new SdpRefused("the SDP cannot be parsed");
  }
  const audio = session.media?.find((m) => m.type === "audio" && m.port !== 0);
  if (!audio) throw new SdpRefused("the SDP offers no audio stream");
  if (!/^RTP\/AVP$/i.test(audio.protocol)) throw new SdpRefused(`audio over ${audio.protocol} is not supported (plain RTP/AVP only)`);
  const address = audio.connection?.ip ?? session.connection?.ip;
  if (!address) throw new SdpRefused("the SDP has no connection address");
  const pts = String(audio.payloads ?? "").split(/\s+/).filter(Boolean).map(Number);
  const payloads = pts.map((pt) => {
    const rtp = audio.rtp.find((r) => r.payload === pt);
    if (rtp) return { pt, name: rtp.codec, rate: rtp.rate ?? 8000 };
    const known = STATIC[pt];
    return { pt, name: known ? known.toUpperCase() : "", rate: 8000 };
  });
  const direction = ((audio.direction ?? session.direction ?? "sendrecv") as MediaDirection);
  return { remote: { address, port: audio.port }, payloads, direction };
}

const MIRROR: Record<MediaDirection, MediaDirection> = { sendrecv: "sendrecv", sendonly: "recvonly", recvonly: "sendonly", inactive: "inactive" };

function choose(stream: AudioStream, preference: ("pcmu" | "pcma")[]): NegotiatedMedia {
  const audio = stream.payloads.filter((p) => NAMES[p.name.toUpperCase()] && p.rate === 8000);
  const pick = preference.map((encoding) => audio.find((p) => NAMES[p.name.toUpperCase()] === encoding)).find(Boolean) ?? audio[0];
  if (!pick) throw new SdpRefused(`no common codec: offered ${stream.payloads.map((p) => p.name || p.pt).join(", ")}; Parley takes PCMU and PCMA at 8 kHz`);
  const dtmf = stream.payloads.find((p) => p.name.toLowerCase() === "telephone-event" && p.rate === 8000);
  // c=0.0.0.0 is the old way to say hold (RFC 2543).
  const held = stream.remote.address === "0.0.0.0";
  return {
    remote: stream.remote,
    encoding: NAMES[pick.name.toUpperCase()],
    payloadType: pick.pt,
    dtmfPayloadType: dtmf?.pt ?? null,
    direction: held ? "inactive" : MIRROR[stream.direction],
  };
}

/** Answers an offer (an INVITE or re-INVITE): our choice, and the SDP that says it. Throws SdpRefused (488). */
export function answerOffer(offer: string, local: LocalMedia): { media: NegotiatedMedia; sdp: string } {
  const media = choose(audioOf(offer), local.codecs ?? ["pcmu", "pcma"]);
  return { media, sdp: describe(local, [{ pt: media.payloadType, encoding: media.encoding }], media.dtmfPayloadType, media.direction) };
}

/** Reads the answer to our offer: it names one of the codecs we offered. Throws SdpRefused. */
export function readAnswer(answer: string): NegotiatedMedia {
  return choose(audioOf(answer), ["pcmu", "pcma"]);
}
