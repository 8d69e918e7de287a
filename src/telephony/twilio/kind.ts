// Twilio as a kind of connection: an account's REST API for calls and numbers, its webhooks and
// Media Streams for the calls themselves.
import type { CarrierKind } from "../kind.ts";
import { StreamCalls } from "../media-stream/live-calls.ts";
import { TwilioCarrier } from "./carrier.ts";
import { twilioRoutes } from "./routes.ts";
import { prepareTwilio } from "./settings.ts";

const BASE = "/v1/telephony/twilio";

export function twilioKind(): CarrierKind {
  // One table of live calls and waiting streams for every Twilio connection (and their rebuilds).
  const calls = new StreamCalls();
  return {
    kind: "twilio",
    summary:
      "A Twilio account: calls through its REST API with Media Streams back to Parley, numbers searched, bought and imported through it. Settings: api_base_url, country, machine_detection, ring_timeout_seconds. Credentials: account_sid and auth_token (which also checks every request Twilio sends). Parley's public URL must be https and reachable from Twilio.",
    prepare: prepareTwilio,
    callbackUrls(connection, publicUrl) {
      return {
        voice_url: `${publicUrl}${BASE}/voice?connection=${connection.id}`,
        status_callback_url: `${publicUrl}${BASE}/status?connection=${connection.id}`,
        media_stream_url: `${publicUrl.replace(/^http/, "ws")}${BASE}/stream`,
      };
    },
    create: (connection, env) => new TwilioCarrier(connection, calls, env, BASE),
    routes: (ctx, services, base) => twilioRoutes(ctx, services, base, calls),
  };
}
