// A Telnyx connection's settings and credentials: checked once (422 naming the field), so the
// carrier can trust them.
import { invalid } from "../../http/errors.ts";
import { checkUrlShape, OutboundRefused } from "../../net/outbound.ts";
import type { PrepareEnv, PreparedConnection } from "../kind.ts";
import { requireReachable } from "../public-url.ts";
import { telnyxPublicKey } from "./signature.ts";

export const TELNYX_API = "https://api.telnyx.com";

export interface TelnyxSettings {
  /** The Call Control application calls are placed on and numbers are attached to (Telnyx's connection_id). */
  appId: string;
  apiBaseUrl: string;
  country: string;
  machineDetection: boolean;
  ringTimeoutSeconds: number;
}

const KNOWN = new Set(["call_control_app_id", "api_base_url", "country", "machine_detection", "ring_timeout_seconds"]);

export function prepareTelnyx(input: PreparedConnection, env: PrepareEnv): PreparedConnection {
  const s = input.settings;
  for (const key of Object.keys(s)) if (!KNOWN.has(key)) throw invalid(`settings.${key}`, `unknown setting; a Telnyx connection takes ${[...KNOWN].join(", ")}`);
  if (typeof s.call_control_app_id !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(s.call_control_app_id)) throw invalid("settings.call_control_app_id", "required: the id of the Call Control application (Telnyx's connection_id) calls are placed on");
  const settings: Record<string, unknown> = { call_control_app_id: s.call_control_app_id };
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
  for (const key of Object.keys(c)) if (key !== "api_key" && key !== "public_key") throw invalid(`credentials.${key}`, "unknown credential; a Telnyx connection takes api_key and public_key");
  if (typeof c.api_key !== "string" || c.api_key.length < 10) throw invalid("credentials.api_key", "required: a Telnyx API key (KEY…)");
  if (typeof c.public_key !== "string" || !telnyxPublicKey(c.public_key)) throw invalid("credentials.public_key", "required: the account's webhook public key (base64, 32 bytes), which checks every event Telnyx sends");
  requireReachable("Telnyx", env.publicUrl, (settings.api_base_url ?? TELNYX_API) === TELNYX_API);
  return { settings, credentials: { api_key: c.api_key, public_key: c.public_key } };
}

export function readTelnyx(settings: Record<string, unknown>): TelnyxSettings {
  return {
    appId: (settings.call_control_app_id as string | undefined) ?? "",
    apiBaseUrl: (settings.api_base_url as string | undefined) ?? TELNYX_API,
    country: (settings.country as string | undefined) ?? "US",
    machineDetection: (settings.machine_detection as boolean | undefined) ?? false,
    ringTimeoutSeconds: (settings.ring_timeout_seconds as number | undefined) ?? 30,
  };
}
