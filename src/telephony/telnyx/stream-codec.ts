// Telnyx media streaming's JSON (https://developers.telnyx.com/docs/voice/programmable-voice/media-streaming):
// `connected`, `start`, `media`, `dtmf`, `mark`, `stop` in; `media`, `mark`, `clear` out. Parley's call
// id and stream token ride in the call's client_state, which `start` hands back.
import { encodePayload, parseObject, streamParser, stringFields, type StreamCodec } from "../media-stream/codec.ts";

const ENCODINGS: Record<string, "pcmu" | "pcma"> = { PCMU: "pcmu", PCMA: "pcma" };

export function encodeClientState(state: Record<string, string>): string {
  return Buffer.from(JSON.stringify(state)).toString("base64");
}

export function decodeClientState(value: unknown): Record<string, string> {
  return typeof value === "string" ? stringFields(parseObject(Buffer.from(value, "base64").toString("utf8"))) : {};
}

const parse = streamParser((message) => {
  const start = message.start;
  if (!start || typeof start.call_control_id !== "string" || typeof message.stream_id !== "string") return null;
  const format = start.media_format ?? {};
  const encoding = ENCODINGS[format.encoding ?? "PCMU"];
  if (!encoding || (format.sample_rate !== undefined && Number(format.sample_rate) !== 8000)) return null;
  return { type: "start", streamId: message.stream_id, carrierCallId: start.call_control_id, parameters: decodeClientState(start.client_state), encoding, sampleRate: 8000 };
});

export const telnyxCodec: StreamCodec = {
  parse,
  media: (_streamId, payload) => JSON.stringify({ event: "media", media: { payload: encodePayload(payload) } }),
  mark: (_streamId, name) => JSON.stringify({ event: "mark", mark: { name } }),
  clear: () => JSON.stringify({ event: "clear" }),
};
