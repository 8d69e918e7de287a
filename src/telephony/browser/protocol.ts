// The browser voice session's wire protocol (GET /v1/realtime/session). Binary messages both ways are
// PCM16 little-endian mono at the session's rate; text messages are these JSON objects.

/** Rates a browser may capture and play at; the call itself runs at 16 kHz (wideband). */
export const SESSION_RATES = [16000, 48000] as const;
export type SessionRate = (typeof SESSION_RATES)[number];

/** Largest binary message taken (1 s at 48 kHz): a browser sends 20–100 ms at a time. */
export const MAX_AUDIO_MESSAGE_BYTES = 96_000;

/** What the server says, as text. */
export type ServerMessage =
  | { type: "session"; call_id: string; sample_rate: number }
  | { type: "transcript"; role: "caller" | "agent"; text: string }
  | { type: "clear" }
  | { type: "dtmf"; digits: string }
  | { type: "ended"; reason: string };

/** What the browser may say, as text. */
export type ClientMessage = { type: "hangup" } | { type: "dtmf"; digit: string };

/**
 * Close codes the session ends with. RFC 6455's own where one fits; 4xxx (the application's range)
 * for ends that are not protocol faults.
 */
export const CLOSE = {
  normal: 1000,
  /** A text message that is not one of ClientMessage. */
  unsupported: 1003,
  /** Audio that is not whole 16-bit samples, or text that is not JSON. */
  invalidPayload: 1007,
  tooBig: 1009,
  /** The agent could not be connected. */
  internal: 1011,
} as const;

/** Reads a text message; a string saying what is wrong when it is not a ClientMessage. */
export function parseClientMessage(message: unknown): ClientMessage | { error: string; code: number } {
  let value = message;
  if (typeof message === "string") {
    try {
      value = JSON.parse(message);
    } catch {
      return { error: "a text message that is not JSON", code: CLOSE.invalidPayload };
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { error: "a text message that is not a JSON object", code: CLOSE.invalidPayload };
  const command = value as Record<string, unknown>;
  if (command.type === "hangup") return { type: "hangup" };
  if (command.type === "dtmf") {
    if (typeof command.digit === "string" && /^[0-9*#A-D]$/.test(command.digit)) return { type: "dtmf", digit: command.digit };
    return { error: "a dtmf message whose digit is not one of 0-9 * # A-D", code: CLOSE.unsupported };
  }
  return { error: `an unknown message type ${JSON.stringify(String(command.type ?? "(none)")).slice(0, 40)}`, code: CLOSE.unsupported };
}
