// A Twilio connection's settings and credentials: checked once (422 naming the field), so the
// carrier can trust them.
import { invalid } from "../../http/errors.ts";
import { checkUrlShape, OutboundRefused } from "../../net/outbound.ts";
import type { PrepareEnv, PreparedConnection } from "../kind.ts";
import { requireReachable } from "../public-url.ts";

export const TWILIO_API = "https://api.twilio.com";

export interface TwilioSettings {
  /** Twilio's REST API, or a server speaking it (a proxy, a test double). */
  apiBaseUrl: string;
  /** Where number searches look (ISO 3166 alpha-2). */
  country: string;
  /** Twilio's answering-machine detection on outbound calls (AnsweredBy). */
  machineDetection: boolean;
  ringTimeoutSeconds: number;
}

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
}

const KNOWN = new Set(["api_base_url", "country", "machine_detection", "ring_timeout_seconds"]);
const ACCOUNT_SID = /^AC[0-9a-f]{32}$/;

export function prepareTwilio(input: PreparedConnection, env: PrepareEnv): PreparedConnection {
  const s = input.settings;
  for (const key of Object.keys(s)) if (!KNOWN.has(key)) throw invalid(`settings.${key}`, `unknown setting; a Twilio connection takes ${[...KNOWN].join(", ")}`);
  const settings: Record<string, unknown> = {};
  if (s.api_base_url !== undefined) {
    if (typeof s.api_base_url !== "string") throw invalid("settings.api_base_url", "must be a URL");
    try {
      settings.api_base_url = checkUrlShape(s.api_base_url, { allowPrivate: env.allowPrivateUrls }).toString().replace(/\/$/, "");
    } catch (error) {
      if (error instanceof OutboundRefused) throw invalid("settings.api_base_url", error.message);
      throw error;
    }
  }
  if (s.country !== undefined) {
    if (typeof s.country !== "string" || !/^[A-Za-z]{2}$/.test(s.country)) throw invalid("settings.country", "must be a two-letter country code (US, GB, …)");
    settings.country = s.country.toUpperCase();
  }
  if (s.machine_detection !== undefined) {
    if (typeof s.machine_detection !== "boolean") throw invalid("settings.machine_detection", "must be true or false");
    settings.machine_detection = s.machine_detection;
  }
  if (s.ring_timeout_seconds !== undefined) {
    const value = s.ring_timeout_seconds;
    if (!Number.isInteger(value) || (value as number) < 5 || (value as number) > 600) throw invalid("settings.ring_timeout_seconds", "must be a whole number of seconds from 5 to 600");
    settings.ring_timeout_seconds = value;
  }
  const c = input.credentials;
  for (const key of Object.keys(c)) if (key !== "account_sid" && key !== "auth_token") throw invalid(`credentials.${key}`, "unknown credential; a Twilio connection takes account_sid and auth_token");
  if (typeof c.account_sid !== "string" || !ACCOUNT_SID.test(c.account_sid)) throw invalid("credentials.account_sid", "required: the account SID, AC followed by 32 hex digits");
  if (typeof c.auth_token !== "string" || c.auth_token.length < 16) throw invalid("credentials.auth_token", "required: the account's auth token (it also checks every request Twilio sends)");
  requireReachable("Twilio", env.publicUrl, (settings.api_base_url ?? TWILIO_API) === TWILIO_API);
  return { settings, credentials: { account_sid: c.account_sid, auth_token: c.auth_token } };
}

export function readTwilio(settings: Record<string, unknown>): TwilioSettings {
  return {
    apiBaseUrl: (settings.api_base_url as string | undefined) ?? TWILIO_API,
    country: (settings.country as string | undefined) ?? "US",
    machineDetection: (settings.machine_detection as boolean | undefined) ?? false,
    ringTimeoutSeconds: (settings.ring_timeout_seconds as number | undefined) ?? 30,
  };
}

export function readCredentials(credentials: Record<string, string>): TwilioCredentials {
  return { accountSid: credentials.account_sid ?? "", authToken: credentials.auth_token ?? "" };
}
