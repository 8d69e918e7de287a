import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { announceUtterance } from "../../voice/speech/builtin/index.ts";
import type { InboundCalls, InboundRequest, MediaFormat } from "../types.ts";
import { SoftphoneLeg } from "./softphone.ts";

const E164 = "^\\+[1-9]\\d{6,14}$";

const Query = t.Object({
  to: t.String({ pattern: E164 }),
  from: t.Optional(t.String({ pattern: E164 })),
  encoding: t.Optional(t.Union([t.Literal("pcmu"), t.Literal("pcma"), t.Literal("l16")])),
  rate: t.Optional(t.Union([t.Literal("8000"), t.Literal("16000")])),
  recognition: t.Optional(t.Union([t.Literal("agent"), t.Literal("simulated")])),
});

type SoftphoneQuery = (typeof Query)["static"];

function formatOf(query: SoftphoneQuery): MediaFormat {
  const encoding = query.encoding ?? "pcmu";
  // G.711 is 8 kHz by definition; linear PCM may be wideband.
  return { encoding, sampleRate: encoding === "l16" ? Number(query.rate ?? "16000") : 8000 };
}

function inboundRequest(query: SoftphoneQuery): InboundRequest {
  return { kind: "simulated", to: query.to, from: query.from ?? null, carrierOptions: query.recognition ? { recognition: query.recognition } : null };
}

/**
 * The simulated carrier's inbound side: a WebSocket "softphone" that dials one of the workspace's
 * numbers and talks to its agent with real audio. Binary messages are 20 ms frames (µ-law 8 kHz by
 * default); text messages are JSON: `{type:"dtmf",digit}`, `{type:"hangup"}`, and for simulated
 * recognition `{type:"announce",text,start_ms,end_ms}` (ms of audio sent since `answered`).
 * Not part of the public contract (hidden from the OpenAPI document); the browser session reuses it.
 */
export function softphoneRoutes(ctx: HttpContext, inbound: InboundCalls, base: string) {
  const legs = new Map<string, { leg: SoftphoneLeg; callId: string }>();
  return new Elysia().use(authPlugin(ctx)).ws(`${base}/softphone`, {
    auth: "write",
    query: Query,
    detail: { hide: true },
    beforeHandle({ principal, query }) {
      // Refuse before the upgrade, as a plain HTTP problem: unknown, unassigned or switched-off numbers never ring.
      inbound.check(principal.workspaceId, inboundRequest(query));
    },
    open(ws) {
      const { principal, query } = ws.data;
      let leg: SoftphoneLeg | null = null;
      try {
        // The raw socket: Elysia's wrapper would send audio frames as JSON text.
        const callId = inbound.answer(principal.workspaceId, inboundRequest(query), (id) => (leg = new SoftphoneLeg(ws.raw, formatOf(query), id)));
        legs.set(ws.id, { leg: leg!, callId });
      } catch (error) {
        ws.send(JSON.stringify({ type: "ended", reason: (error as Error).message }));
        // Refused before the agent was reached (409), or the agent could not be connected.
        ws.close(leg ? 1011 : 4409, leg ? "could not connect the agent" : "rejected");
        return;
      }
      leg!.ring();
    },
    message(ws, message) {
      const entry = legs.get(ws.id);
      if (!entry) return;
      if (message instanceof Uint8Array) {
        entry.leg.receiveAudio(message);
        return;
      }
      if (message instanceof ArrayBuffer) {
        entry.leg.receiveAudio(new Uint8Array(message));
        return;
      }
      let command = message as Record<string, unknown>;
      if (typeof message === "string") {
        try {
          command = JSON.parse(message);
        } catch {
          return;
        }
      }
      if (command?.type === "dtmf" && typeof command.digit === "string" && /^[0-9*#A-D]$/.test(command.digit)) entry.leg.receiveDtmf(command.digit);
      else if (command?.type === "hangup") entry.leg.remoteHangup();
      else if (command?.type === "announce" && typeof command.text === "string" && Number(command.end_ms) > Number(command.start_ms)) {
        announceUtterance(entry.callId, command.text, Number(command.start_ms), Number(command.end_ms));
      }
    },
    close(ws) {
      const entry = legs.get(ws.id);
      legs.delete(ws.id);
      entry?.leg.remoteHangup();
    },
  });
}
