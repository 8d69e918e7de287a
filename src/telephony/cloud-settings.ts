// The settings every cloud carrier connection (Twilio, Telnyx) shares: its API base, the country its
// numbers are searched in, answering-machine detection and the ring time-out. Checked once, 422
// naming the field; the public URL is checked against the API base they end up with.
import { invalid } from "../http/errors.ts";
import { checkUrlShape, OutboundRefused } from "../net/outbound.ts";
import type { PrepareEnv } from "./kind.ts";
import { requireReachable } from "./public-url.ts";

export const CLOUD_SETTINGS = ["api_base_url", "country", "machine_detection", "ring_timeout_seconds"];

export interface CloudSettings {
  apiBaseUrl: string;
  country: string;
  machineDetection: boolean;
  ringTimeoutSeconds: number;
}

/**
 * Checks the shared settings of `s` (and refuses any setting not in `known`); returns them normalised.
 * `carrier` names the carrier in messages; `cloudApi` is its real API base.
 */
export function prepareCloudSettings(s: Record<string, unknown>, known: string[], env: PrepareEnv, carrier: string, cloudApi: string): Record<string, unknown> {
  for (const key of Object.keys(s)) if (!known.includes(key)) throw invalid(`settings.${key}`, `unknown setting; a ${carrier} connection takes ${known.join(", ")}`);
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
  requireReachable(carrier, env.publicUrl, (settings.api_base_url ?? cloudApi) === cloudApi);
  return settings;
}

export function readCloudSettings(settings: Record<string, unknown>, cloudApi: string): CloudSettings {
  return {
    apiBaseUrl: (settings.api_base_url as string | undefined) ?? cloudApi,
    country: (settings.country as string | undefined) ?? "US",
    machineDetection: (settings.machine_detection as boolean | undefined) ?? false,
    ringTimeoutSeconds: (settings.ring_timeout_seconds as number | undefined) ?? 30,
  };
}
