// Telnyx signs every webhook with Ed25519: `telnyx-signature-ed25519` (base64) over
// `<telnyx-timestamp>|<raw body>`, checked with the account's public key
// (https://developers.telnyx.com/docs/messaging/webhooks#webhook-signing). Old timestamps are replays.
import { createPublicKey, verify, type KeyObject } from "node:crypto";

/** How far a webhook's timestamp may be from our clock. */
export const TOLERANCE_SECONDS = 300;
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

/** The raw 32-byte key (base64) as a key object, or null when it is not one. */
export function telnyxPublicKey(base64: string): KeyObject | null {
  const raw = Buffer.from(base64, "base64");
  if (raw.length !== 32) return null;
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
  } catch {
    return null;
  }
}

/** Why the webhook is refused, or null when it is Telnyx's and fresh. */
export function telnyxSignatureProblem(key: KeyObject | null, signature: string | null, timestamp: string | null, body: string, nowMs: number): string | null {
  if (!key) return "the connection has no usable public key";
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return "the telnyx-signature-ed25519 and telnyx-timestamp headers are missing";
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return `the timestamp is more than ${TOLERANCE_SECONDS} s away from now (a replay)`;
  const valid = verify(null, Buffer.from(`${timestamp}|${body}`, "utf8"), key, Buffer.from(signature, "base64"));
  return valid ? null : "the signature does not verify with the connection's public key";
}
