// Telnyx media streaming's JSON (https://developers.telnyx.com/docs/voice/programmable-voice/media-streaming):
// `connected`, `start`, `media`, `dtmf`, `mark`, `stop` in; `media`, `mark`, `clear` out. Parley's call
// id and stream token ride in the call's client_state, which `start` hands back.
import { decodePayload, encodePayload, parseObject, type StreamCodec, type StreamMessage } from "../media-stream/codec.ts";

const ENCODINGS: Record<string, "pcmu" | "pcma"> = { PCMU: "pcmu", PCMA: "pcma" };

export function encodeClientState(state: Record<string, string>): string {
  return Buffer.from(JSON.stringify(state)).toString("base64");
}

export function decodeClientState(value: unknown): Record<string, string> {
  if (typeof value !== "string") return {};
  const parsed = parseObject(Buffer.from(value, "base64").toString("utf8"));
  return Object.fromEntries(Object.entries(parsed ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

function parse(frame: unknown): StreamMessage | null {
  const message = parseObject(frame);
  if (!message || typeof message.event !== "string") return null;
  switch (message.event) {
    case "connected":
      return { type: "connected" };
    case "start": {
      const start = message.start;
      if (!start || typeof start.call_control_id !== "string" || typeof message.stream_id !== "string") return null;
      const format = start.media_format ?? {};
      const encoding = ENCODINGS[format.encoding ?? "PCMU"];
      if (!encoding || (format.sample_rate !== undefined && Number(format.sample_rate) !== 8000)) return null;
      return { type: "start", streamId: message.stream_id, carrierCallId: start.call_control_id, parameters: decodeClientState(start.client_state), encoding, sampleRate: 8000 };
    }
    case "media": {
      if (message.media?.track && message.media.track !== "inbound") return { type: "other", what: `media on track ${message.media.track}` };
      const payload = decodePayload(message.media?.payload);
      return payload ? { type: "media", payload } : null;
    }
    case "dtmf": {
      const digit = message.dtmf?.digit;
      return typeof digit === "string" && /^[0-9*#A-D]$/.test(digit) ? { type: "dtmf", digit } : null;
    }
    case "mark":
      return typeof message.mark?.name === "string" ? { type: "mark", name: message.mark.name } : null;
    case "stop":
      return { type: "stop" };
    default:
      return { type: "other", what: message.event };
  }
}

export const telnyxCodec: StreamCodec = {
  parse,
  media: (_streamId, payload) => JSON.stringify({ event: "media", media: { payload: encodePayload(payload) } }),
  mark: (_streamId, name) => JSON.stringify({ event: "mark", mark: { name } }),
  clear: () => JSON.stringify({ event: "clear" }),
};
