import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ApiError } from "../../http/errors.ts";
import { BrowserLeg } from "../../telephony/browser/leg.ts";
import { CLOSE, parseClientMessage, type SessionRate } from "../../telephony/browser/protocol.ts";
import type { WebCalls } from "../../telephony/types.ts";
import { noteTokenCall, redeemToken, type RedeemedToken } from "./tokens.ts";

const doc = docsFor("Realtime");

const Query = t.Object({
  token: t.Optional(t.String({ description: "From POST /v1/realtime/token (or a widget's voice-token): single use" })),
  rate: t.Optional(t.Union([t.Literal("16000"), t.Literal("48000")], { description: "The browser's audio rate both ways (default 16000); 48000 is resampled at the edge" })),
});

/**
 * GET /v1/realtime/session (mounted under the family's prefix): the browser voice session, a
 * WebSocket that is a call. The token is spent before the upgrade, so a bad one is a plain 401
 * problem; then the socket opens, the call is recorded and the agent speaks.
 */
export function sessionRoutes(ctx: HttpContext, webCalls: WebCalls) {
  // What the upgrade's checks found, for the open that follows (the same request).
  const redeemed = new WeakMap<Request, RedeemedToken>();
  const legs = new Map<string, BrowserLeg>();
  return new Elysia().use(authPlugin(ctx)).ws("/session", {
    token: true,
    query: Query,
    detail: doc(
      "realtimeSession",
      "WebSocket: the browser voice session itself",
      "Binary messages both ways are PCM16 little-endian mono at `rate`. The server's text messages are JSON: `session` (call id, rate), `transcript` (role, text), `clear` (barge-in: drop queued playback), `dtmf`, `ended` (reason). The browser may send `{\"type\":\"hangup\"}` and `{\"type\":\"dtmf\",\"digit\":\"5\"}`. Malformed audio or text fails the call and closes the socket with 1007 (invalid payload), 1003 (unknown message) or 1009 (too big).",
    ),
    beforeHandle({ query, request }) {
      // Elysia runs a WebSocket route's beforeHandle twice (the route, then the upgrade): spend once.
      if (redeemed.has(request)) return;
      const token = redeemToken(ctx, query.token);
      // A widget visitor's token works only from the page it was issued to.
      const issuedTo = token.widgetId ? (token.metadata as { origin?: string }).origin : undefined;
      if (issuedTo && request.headers.get("origin") !== issuedTo) {
        throw new ApiError("forbidden", `this session token was issued to ${issuedTo}, not ${request.headers.get("origin") ?? "a request without an Origin"}`);
      }
      redeemed.set(request, token);
    },
    open(ws) {
      const token = redeemed.get(ws.data.request)!;
      const rate = Number(ws.data.query.rate ?? "16000") as SessionRate;
      let leg: BrowserLeg | null = null;
      try {
        // The raw socket: Elysia's wrapper would send audio frames as JSON text.
        const callId = webCalls.answer(token.workspaceId, { agentId: token.agentId, variables: token.variables, metadata: token.metadata }, (id) => (leg = new BrowserLeg(ws.raw, rate, id)));
        noteTokenCall(ctx, token.hash, callId);
      } catch (error) {
        ws.send(JSON.stringify({ type: "ended", reason: (error as Error).message }));
        ws.close(CLOSE.internal, "could not connect the agent");
        return;
      }
      legs.set(ws.id, leg!);
      leg!.open();
    },
    message(ws, message) {
      const leg = legs.get(ws.id);
      if (!leg) return;
      if (message instanceof Uint8Array) return leg.receiveAudio(message);
      if (message instanceof ArrayBuffer) return leg.receiveAudio(new Uint8Array(message));
      const command = parseClientMessage(message);
      if ("error" in command) leg.fail(command.code, command.error);
      else if (command.type === "hangup") leg.remoteHangup();
      else leg.receiveDigit(command.digit);
    },
    close(ws) {
      const leg = legs.get(ws.id);
      legs.delete(ws.id);
      leg?.remoteHangup();
    },
  });
}
