// Twilio's doors into Parley (ENDPOINTS 82–84): the voice webhook, status callbacks and the Media
// Streams socket. Every request must carry an X-Twilio-Signature made with the connection's auth
// token; anything else is 403 and changes nothing.
import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ApiError } from "../../http/errors.ts";
import { NoContent, noContent } from "../../http/models.ts";
import type { CarrierRouteServices } from "../kind.ts";
import { mediaSocketHandlers } from "../media-stream/socket.ts";
import type { StreamCalls } from "../media-stream/live-calls.ts";
import { TwilioCarrier } from "./carrier.ts";
import { verifyTwilio, type FormParams } from "./signature.ts";
import { twilioCodec } from "./stream-codec.ts";

const doc = docsFor("Telephony");

const Callback = t.Object({
  // Optional to the schema so that a request without it is refused for its signature (403), like any stranger's.
  connection: t.Optional(t.String({ maxLength: 64, description: "The carrier connection the callback belongs to (Parley puts it in the URLs it gives Twilio)" })),
  call: t.Optional(t.String({ maxLength: 64, description: "The Parley call, on callbacks of calls Parley placed" })),
});

const refused = () => new ApiError("forbidden", "the request does not carry a valid X-Twilio-Signature for a Twilio connection of this instance");

/** Form values as strings (Twilio sends no files); anything else is not Twilio's. */
function formParams(body: unknown): FormParams {
  const params: FormParams = {};
  if (!body || typeof body !== "object") return params;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === "string") params[name] = value;
    else if (Array.isArray(value)) params[name] = value.map(String);
  }
  return params;
}

export function twilioRoutes(ctx: HttpContext, services: CarrierRouteServices, base: string, calls: StreamCalls) {
  /**
   * The URLs Twilio may have requested, as it knows them: the public URL (a number's webhooks), or this
   * node's own (a call's stream and status callbacks, --node-url); never the address we listen on.
   */
  const signedUrls = (request: Request, scheme: "http" | "ws") => {
    const url = new URL(request.url);
    const bases = [...new Set([ctx.publicUrl, ctx.config.nodeUrl || ctx.publicUrl])];
    return bases.map((base) => `${scheme === "ws" ? base.replace(/^http/, "ws") : base}${url.pathname}${url.search}`);
  };

  /** The connection's carrier, once the request is proven to come from its Twilio account. */
  const verified = (request: Request, connectionId: string | undefined, params: FormParams): TwilioCarrier => {
    const found = connectionId ? services.connection(connectionId) : undefined;
    const carrier = found?.carrier;
    if (!(carrier instanceof TwilioCarrier)) throw refused();
    const signature = request.headers.get("x-twilio-signature");
    if (!signedUrls(request, "http").some((url) => verifyTwilio(carrier.credentials.authToken, signature, url, params))) throw refused();
    if (params.AccountSid !== undefined && params.AccountSid !== carrier.credentials.accountSid) throw refused();
    return carrier;
  };

  const media = mediaSocketHandlers(twilioCodec, calls);
  /** The connections whose auth token signed a socket's handshake, from the check to the open. */
  const signedBy = new WeakMap<Request, string[]>();

  return new Elysia()
    .use(authPlugin(ctx))
    .post(
      `${base}/voice`,
      ({ request, query, body, set }) => {
        const params = formParams(body);
        const carrier = verified(request, query.connection, params);
        set.headers["content-type"] = "text/xml; charset=utf-8";
        return carrier.answerInbound(params);
      },
      {
        carrier: true,
        type: "urlencoded",
        query: Callback,
        body: t.Record(t.String(), t.Any()),
        response: { 200: t.String({ description: "TwiML: <Connect><Stream> to the number's agent, or <Reject>" }) },
        detail: {
          ...doc("twilioVoice", "Incoming/answered call: returns TwiML that opens a media stream", "Set as the number's Voice URL (Parley does so when it buys or imports the number)."),
          "x-response-types": ["text/xml"],
        },
      },
    )
    .post(
      `${base}/status`,
      ({ request, query, body }) => {
        const params = formParams(body);
        verified(request, query.connection, params).statusCallback(params, query.call);
        return noContent();
      },
      {
        carrier: true,
        type: "urlencoded",
        query: Callback,
        body: t.Record(t.String(), t.Any()),
        response: { 204: NoContent },
        detail: doc("twilioStatus", "Call status callback", "Ringing, busy, no-answer, failed, canceled and completed, and the answering-machine result (AnsweredBy)."),
      },
    )
    .ws(`${base}/stream`, {
      carrier: true,
      detail: doc(
        "twilioMediaStream",
        "WebSocket: Twilio Media Streams",
        "Bidirectional µ-law 8 kHz audio of a call whose TwiML Parley wrote: `connected`, `start`, `media`, `dtmf`, `mark`, `stop` in; `media`, `mark`, `clear` out. The handshake must be signed (X-Twilio-Signature) and the `start` must name a call and its one-time token.",
      ),
      beforeHandle({ request }) {
        const signature = request.headers.get("x-twilio-signature");
        const urls = signedUrls(request, "ws");
        // Twilio gives a stream URL no query string, so the socket names no connection: any of this kind may have signed it.
        const connections = services
          .connectionsOfKind("twilio")
          .filter((connection) => urls.some((url) => verifyTwilio(connection.credentials.auth_token ?? "", signature, url)))
          .map((connection) => connection.id);
        if (!connections.length) throw refused();
        signedBy.set(request, connections);
      },
      open(ws) {
        media.opened(ws, signedBy.get(ws.data.request) ?? []);
      },
      message: (ws, frame) => media.message(ws, frame),
      close: (ws) => media.closed(ws),
    });
}
