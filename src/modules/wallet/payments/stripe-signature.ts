import { createHmac, timingSafeEqual } from "node:crypto";

/** Stripe's default: a signed event older (or newer) than this is a replay and is refused. */
export const STRIPE_TOLERANCE_SECONDS = 300;

/**
 * Checks a `Stripe-Signature` header (`t=<unix>,v1=<hex>[,v1=…]`): HMAC-SHA256 with the endpoint's
 * signing secret over `<t>.<raw body>`, any v1 matching, the timestamp within the tolerance.
 * Answers what is wrong, or null when the payload is Stripe's.
 */
export function stripeSignatureProblem(secret: string, header: string | null, payload: string, nowMs: number): string | null {
  if (!header) return "no Stripe-Signature header";
  let timestamp = Number.NaN;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.split("=", 2).map((s) => s?.trim());
    if (key === "t") timestamp = Number(value);
    else if (key === "v1" && value) signatures.push(value);
  }
  if (!Number.isInteger(timestamp)) return "the Stripe-Signature header has no timestamp";
  if (!signatures.length) return "the Stripe-Signature header has no v1 signature";
  if (Math.abs(nowMs / 1000 - timestamp) > STRIPE_TOLERANCE_SECONDS) return "the signature's timestamp is outside the tolerance (a replay?)";
  const expected = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest();
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : "no signature matches the payload";
}
