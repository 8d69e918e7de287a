// Twilio Media Streams' JSON (https://www.twilio.com/docs/voice/media-streams/websocket-messages):
// `connected`, `start`, `media`, `dtmf`, `mark`, `stop` in; `media`, `mark`, `clear` out.
import { encodePayload, parseObject, parseSharedEvent, type StreamCodec, type StreamMessage } from "../media-stream/codec.ts";

const ENCODINGS: Record<string, "pcmu" | "pcma"> = { "audio/x-mulaw": "pcmu", "audio/x-alaw": "pcma" };

function parse(frame: unknown): StreamMessage | null {
  const message = parseObject(frame);
  if (!message || typeof message.event !== "string") return null;
  switch (message.event) {
    case "connected":
      return { type: "connected" };
    case "start": {
      const start = message.start;
      if (!start || typeof start.callSid !== "string" || typeof (start.streamSid ?? message.streamSid) !== "string") return null;
      const format = start.mediaFormat ?? {};
      const encoding = ENCODINGS[format.encoding ?? "audio/x-mulaw"];
      if (!encoding || (format.sampleRate !== undefined && format.sampleRate !== 8000)) return null;
      const custom = start.customParameters && typeof start.customParameters === "object" ? start.customParameters : {};
      const parameters = Object.fromEntries(Object.entries(custom).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
      return { type: "start", streamId: start.streamSid ?? message.streamSid, carrierCallId: start.callSid, parameters, encoding, sampleRate: 8000 };
    }
    default:
      return parseSharedEvent(message);
  }
}

export const twilioCodec: StreamCodec = {
  parse,
  media: (streamSid, payload) => JSON.stringify({ event: "media", streamSid, media: { payload: encodePayload(payload) } }),
  mark: (streamSid, name) => JSON.stringify({ event: "mark", streamSid, mark: { name } }),
  clear: (streamSid) => JSON.stringify({ event: "clear", streamSid }),
};
