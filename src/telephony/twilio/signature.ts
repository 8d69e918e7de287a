// X-Twilio-Signature: base64 HMAC-SHA1, keyed with the account's auth token, over the URL Twilio
// requested followed by every POST parameter as name+value in sorted order
// (https://www.twilio.com/docs/usage/security#validating-requests).
import { createHmac } from "node:crypto";
import { safeEqual } from "../../lib/crypto.ts";

export type FormParams = Record<string, string | string[]>;

export function twilioSignature(authToken: string, url: string, params: FormParams = {}): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    // Repeated parameters: each distinct value, sorted, as its own name+value (as Twilio's libraries do).
    const values = Array.isArray(value) ? [...new Set(value)].sort() : [value];
    for (const one of values) data += name + one;
  }
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

/** The URL as Twilio may have signed it: with and without the scheme's default port. */
function urlForms(url: string): string[] {
  const parsed = new URL(url);
  const forms = [url];
  const defaultPort = parsed.protocol === "https:" || parsed.protocol === "wss:" ? "443" : "80";
  if (parsed.port) {
    if (parsed.port === defaultPort) {
      parsed.port = "";
      forms.push(parsed.toString());
    }
  } else {
    const withPort = `${parsed.protocol}//${parsed.hostname}:${defaultPort}${parsed.pathname}${parsed.search}`;
    forms.push(withPort);
  }
  return forms;
}

export function verifyTwilio(authToken: string, signature: string | null, url: string, params: FormParams = {}): boolean {
  if (!signature || !authToken) return false;
  return urlForms(url).some((form) => safeEqual(twilioSignature(authToken, form, params), signature));
}
