// A Telnyx connection's settings and credentials: checked once (422 naming the field), so the
// carrier can trust them.
import { invalid } from "../../http/errors.ts";
import { CLOUD_SETTINGS, prepareCloudSettings, readCloudSettings, type CloudSettings } from "../cloud-settings.ts";
import type { PrepareEnv, PreparedConnection } from "../kind.ts";
import { telnyxPublicKey } from "./signature.ts";

export const TELNYX_API = "https://api.telnyx.com";

export interface TelnyxSettings extends CloudSettings {
  /** The Call Control application calls are placed on and numbers are attached to (Telnyx's connection_id). */
  appId: string;
}

const KNOWN = ["call_control_app_id", ...CLOUD_SETTINGS];

export function prepareTelnyx(input: PreparedConnection, env: PrepareEnv): PreparedConnection {
  const s = input.settings;
  const c = input.credentials;
  for (const key of Object.keys(c)) if (key !== "api_key" && key !== "public_key") throw invalid(`credentials.${key}`, "unknown credential; a Telnyx connection takes api_key and public_key");
  if (typeof c.api_key !== "string" || c.api_key.length < 10) throw invalid("credentials.api_key", "required: a Telnyx API key (KEY…)");
  if (typeof c.public_key !== "string" || !telnyxPublicKey(c.public_key)) throw invalid("credentials.public_key", "required: the account's webhook public key (base64, 32 bytes), which checks every event Telnyx sends");
  const settings = prepareCloudSettings(s, KNOWN, env, "Telnyx", TELNYX_API);
  if (typeof s.call_control_app_id !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(s.call_control_app_id)) throw invalid("settings.call_control_app_id", "required: the id of the Call Control application (Telnyx's connection_id) calls are placed on");
  return { settings: { call_control_app_id: s.call_control_app_id, ...settings }, credentials: { api_key: c.api_key, public_key: c.public_key } };
}

export function readTelnyx(settings: Record<string, unknown>): TelnyxSettings {
  return { appId: (settings.call_control_app_id as string | undefined) ?? "", ...readCloudSettings(settings, TELNYX_API) };
}
