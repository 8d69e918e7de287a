// A Twilio connection's settings and credentials: checked once (422 naming the field), so the
// carrier can trust them.
import { invalid } from "../../http/errors.ts";
import { CLOUD_SETTINGS, prepareCloudSettings, readCloudSettings, type CloudSettings } from "../cloud-settings.ts";
import type { PrepareEnv, PreparedConnection } from "../kind.ts";

export const TWILIO_API = "https://api.twilio.com";

export type TwilioSettings = CloudSettings;

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
}

const ACCOUNT_SID = /^AC[0-9a-f]{32}$/;

export function prepareTwilio(input: PreparedConnection, env: PrepareEnv): PreparedConnection {
  const c = input.credentials;
  for (const key of Object.keys(c)) if (key !== "account_sid" && key !== "auth_token") throw invalid(`credentials.${key}`, "unknown credential; a Twilio connection takes account_sid and auth_token");
  if (typeof c.account_sid !== "string" || !ACCOUNT_SID.test(c.account_sid)) throw invalid("credentials.account_sid", "required: the account SID, AC followed by 32 hex digits");
  if (typeof c.auth_token !== "string" || c.auth_token.length < 16) throw invalid("credentials.auth_token", "required: the account's auth token (it also checks every request Twilio sends)");
  const settings = prepareCloudSettings(input.settings, CLOUD_SETTINGS, env, "Twilio", TWILIO_API);
  return { settings, credentials: { account_sid: c.account_sid, auth_token: c.auth_token } };
}

export function readTwilio(settings: Record<string, unknown>): TwilioSettings {
  return readCloudSettings(settings, TWILIO_API);
}

export function readCredentials(credentials: Record<string, string>): TwilioCredentials {
  return { accountSid: credentials.account_sid ?? "", authToken: credentials.auth_token ?? "" };
}
