// Carriers that stream call audio over a WebSocket (Twilio Media Streams, Telnyx media streaming)
// say the same things in different JSON: a codec turns their frames into these messages and back.
import type { AudioEncoding } from "../types.ts";

export type StreamMessage =
  | { type: "connected" }
  | {
      type: "start";
      streamId: string;
      /** The carrier's id for the call (Twilio CallSid, Telnyx call_control_id). */
      carrierCallId: string;
      /** What we asked the carrier to hand back (the Parley call and its stream token). */
      parameters: Record<string, string>;
      encoding: AudioEncoding;
      sampleRate: number;
    }
  | { type: "media"; payload: Uint8Array }
  | { type: "dtmf"; digit: string }
  /** A mark we sent came back: the audio before it has been played (or was cleared). */
  | { type: "mark"; name: string }
  | { type: "stop" }
  /** Valid for the protocol, nothing for us to do (the other track's audio, an error notice). */
  | { type: "other"; what: string };

export interface StreamCodec {
  /** The protocol's message, or null when the frame is not one (malformed JSON, missing fields). */
  parse(frame: unknown): StreamMessage | null;
  media(streamId: string, payload: Uint8Array): string;
  mark(streamId: string, name: string): string;
  clear(streamId: string): string;
}

/** What the leg needs of the socket (Bun's ServerWebSocket fits). */
export interface StreamSocket {
  send(data: string): unknown;
  close(code?: number, reason?: string): void;
}

/** A base64 field decoded, or null when it is not base64 at all. */
export function decodePayload(value: unknown): Uint8Array | null {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return null;
  return new Uint8Array(Buffer.from(value, "base64"));
}

export function encodePayload(payload: Uint8Array): string {
  return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString("base64");
}

/** One frame as a JSON object (text, or already parsed by the server), or null when it is not one. */
export function parseObject(frame: unknown): Record<string, any> | null {
  let value = frame;
  if (typeof frame === "string") {
    try {
      value = JSON.parse(frame);
    } catch {
      return null;
    }
  }
  return value && typeof value === "object" && !Array.isArray(value) && !ArrayBuffer.isView(value) ? (value as Record<string, any>) : null;
}

/** An object's string-valued fields (custom parameters, client state); anything else is dropped. */
export function stringFields(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object") return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/**
 * A carrier's frame parser from what only it spells its own way, the `start` event: the JSON envelope
 * and the events both carriers spell alike (`connected`, `media`, `dtmf`, `mark`, `stop`) are read here.
 */
export function streamParser(parseStart: (message: Record<string, any>) => StreamMessage | null): (frame: unknown) => StreamMessage | null {
  return (frame) => {
    const message = parseObject(frame);
    if (!message || typeof message.event !== "string") return null;
    return message.event === "start" ? parseStart(message) : parseSharedEvent(message);
  };
}

/** Only the caller's track is heard: an outbound track echo would be our own voice. */
function parseSharedEvent(message: Record<string, any>): StreamMessage | null {
  switch (message.event) {
    case "connected":
      return { type: "connected" };
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
      return { type: "other", what: String(message.event) };
  }
}
