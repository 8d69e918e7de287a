// Telnyx's doors into Parley: Call Control events (ENDPOINTS 85), each verified with Telnyx's Ed25519
// signature and timestamp (a replay or forgery is 403 and changes nothing), and the media stream
// socket (a documented departure: the catalogue has no row for it; see README).
import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { RawBody } from "../../http/body-parser.ts";
import { docsFor } from "../../http/docs.ts";
import { ApiError } from "../../http/errors.ts";
import { NoContent, noContent } from "../../http/models.ts";
import type { CarrierRouteServices } from "../kind.ts";
import { mediaSocketHandlers } from "../media-stream/socket.ts";
import type { StreamCalls } from "../media-stream/live-calls.ts";
import { TelnyxCarrier, type TelnyxEvent } from "./carrier.ts";
import { telnyxSignatureProblem } from "./signature.ts";
import { telnyxCodec } from "./stream-codec.ts";

const doc = docsFor("Telephony");
/** Event ids already handled: Telnyx retries a webhook it thinks failed, and a replay must change nothing. */
const SEEN_LIMIT = 10_000;

const Callback = t.Object({
  connection: t.Optional(t.String({ maxLength: 64, description: "The carrier connection the event belongs to (Parley puts it in the URLs it gives Telnyx)" })),
  call: t.Optional(t.String({ maxLength: 64, description: "The Parley call, on events of calls Parley placed" })),
});

export function telnyxRoutes(ctx: HttpContext, services: CarrierRouteServices, base: string, calls: StreamCalls) {
  const seen = new Set<string>();
  const media = mediaSocketHandlers(telnyxCodec, calls);

  return new Elysia()
    .use(authPlugin(ctx))
    .post(
      `${base}/events`,
      async ({ request, query, body }) => {
        const found = query.connection ? services.connection(query.connection) : undefined;
        const carrier = found?.carrier;
        const text = body instanceof RawBody ? body.text : "";
        const problem = carrier instanceof TelnyxCarrier ? telnyxSignatureProblem(carrier.verifyKey, request.headers.get("telnyx-signature-ed25519"), request.headers.get("telnyx-timestamp"), text, Date.now()) : "no Telnyx connection of this instance has that id";
        if (problem || !(carrier instanceof TelnyxCarrier)) throw new ApiError("forbidden", `not a Telnyx event for this instance: ${problem}`);
        let event: TelnyxEvent;
        try {
          const data = JSON.parse(text).data;
          if (!data || typeof data.event_type !== "string" || typeof data.id !== "string" || typeof data.payload !== "object") throw new Error("no data.event_type, data.id and data.payload");
          event = data;
        } catch (error) {
          throw new ApiError("bad_request", `the event is not Telnyx's JSON: ${(error as Error).message}`);
        }
        if (seen.has(event.id)) return noContent();
        seen.add(event.id);
        if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value!);
        await carrier.event(event, query.call);
        return noContent();
      },
      {
        carrier: true,
        query: Callback,
        response: { 204: NoContent },
        detail: {
          ...doc("telnyxEvents", "Telnyx call-control webhook", "Set as the Call Control application's webhook URL (the connection's `callback_urls`). Signed with Ed25519 (`telnyx-signature-ed25519` over `telnyx-timestamp|body`); timestamps more than 5 minutes away are refused; a repeated event id changes nothing."),
          "x-body-types": ["application/json"],
          "x-body-raw": true,
        },
      },
    )
    .ws(`${base}/stream`, {
      carrier: true,
      detail: doc(
        "telnyxMediaStream",
        "WebSocket: Telnyx media streaming",
        "Bidirectional µ-law 8 kHz audio of a call Parley placed or answered. Telnyx does not sign the handshake: the `start` must carry, in the call's client_state, the call and its single-use token.",
      ),
      open: (ws) => media.opened(ws),
      message: (ws, frame) => media.message(ws, frame),
      close: (ws) => media.closed(ws),
    });
}
