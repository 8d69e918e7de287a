// Telnyx as a kind of connection: an account's Call Control application for calls, API v2 for
// numbers, media streaming for the audio.
import type { CarrierKind } from "../kind.ts";
import { StreamCalls } from "../media-stream/live-calls.ts";
import { TelnyxCarrier } from "./carrier.ts";
import { telnyxRoutes } from "./routes.ts";
import { prepareTelnyx } from "./settings.ts";

const BASE = "/v1/telephony/telnyx";

export function telnyxKind(): CarrierKind {
  const calls = new StreamCalls();
  return {
    kind: "telnyx",
    summary:
      "A Telnyx account: calls through a Call Control application with media streaming back to Parley, numbers searched, ordered and imported through API v2. Settings: call_control_app_id (required), api_base_url, country, machine_detection, ring_timeout_seconds. Credentials: api_key and public_key (the webhook signing key). Parley's public URL must be https and reachable from Telnyx.",
    prepare: prepareTelnyx,
    callbackUrls(connection, publicUrl) {
      return {
        webhook_url: `${publicUrl}${BASE}/events?connection=${connection.id}`,
        media_stream_url: `${publicUrl.replace(/^http/, "ws")}${BASE}/stream`,
      };
    },
    create: (connection, env) => new TelnyxCarrier(connection, calls, env, BASE),
    routes: (ctx, services, base) => telnyxRoutes(ctx, services, base, calls),
  };
}
