import { createHmac, randomBytes } from "node:crypto";

/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The header name carries the instance brand: `X-Parley-Signature`, `X-Acme-Signature`. */
export function brandSignatureHeader(brandName: string): string {
  const token = brandName.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "") || "Parley";
  return `X-${token}-Signature`;
}

export interface SignedHeaders {
  [name: string]: string;
}

/**
 * Both schemes over the exact bytes sent. `secrets` is newest first; during a rotation the old
 * secret signs too, so receivers that have not switched yet keep verifying.
 *  - `X-<Brand>-Signature: sha256=<hex HMAC-SHA256(body)>` keyed with the secret string as given
 *    (comma-separated, newest first, while two are valid);
 *  - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256("id.timestamp.body")>` keyed with
 *    the base64-decoded part after `whsec_` (space-separated while two are valid).
 */
export function signWebhook(options: { eventId: string; body: string; timestampSeconds: number; secrets: string[]; brandName: string }): SignedHeaders {
  const { eventId, body, timestampSeconds, secrets, brandName } = options;
  const brand = secrets.map((secret) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`).join(",");
  const standard = secrets
    .map((secret) => `v1,${createHmac("sha256", standardKey(secret)).update(`${eventId}.${timestampSeconds}.${body}`).digest("base64")}`)
    .join(" ");
  return {
    [brandSignatureHeader(brandName)]: brand,
    "webhook-id": eventId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": standard,
  };
}

function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
}
