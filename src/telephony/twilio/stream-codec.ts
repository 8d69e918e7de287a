// Twilio Media Streams' JSON (https://www.twilio.com/docs/voice/media-streams/websocket-messages):
// `connected`, `start`, `media`, `dtmf`, `mark`, `stop` in; `media`, `mark`, `clear` out.
import { encodePayload, streamParser, stringFields, type StreamCodec } from "../media-stream/codec.ts";

const ENCODINGS: Record<string, "pcmu" | "pcma"> = { "audio/x-mulaw": "pcmu", "audio/x-alaw": "pcma" };

const parse = streamParser((message) => {
  const start = message.start;
  if (!start || typeof start.callSid !== "string" || typeof (start.streamSid ?? message.streamSid) !== "string") return null;
  const format = start.mediaFormat ?? {};
  const encoding = ENCODINGS[format.encoding ?? "audio/x-mulaw"];
  if (!encoding || (format.sampleRate !== undefined && format.sampleRate !== 8000)) return null;
  return { type: "start", streamId: start.streamSid ?? message.streamSid, carrierCallId: start.callSid, parameters: stringFields(start.customParameters), encoding, sampleRate: 8000 };
});

export const twilioCodec: StreamCodec = {
  parse,
  media: (streamSid, payload) => JSON.stringify({ event: "media", streamSid, media: { payload: encodePayload(payload) } }),
  mark: (streamSid, name) => JSON.stringify({ event: "mark", streamSid, mark: { name } }),
  clear: (streamSid) => JSON.stringify({ event: "clear", streamSid }),
};
