// The simulated carrier as a kind of connection: the built-in one every workspace has, needing no
// settings and no credentials. Its own route is the softphone (real audio into an inbound call).
import { invalid } from "../../http/errors.ts";
import { mediaClock } from "../../voice/media/media-clock.ts";
import { announceUtterance, builtinTts } from "../../voice/speech/builtin/index.ts";
import type { CarrierKind } from "../kind.ts";
import { SimulatedCarrier, type SimulatedCarrierDeps } from "./carrier.ts";
import { softphoneRoutes } from "./softphone-route.ts";

export function simulatedKind(): CarrierKind {
  const deps: SimulatedCarrierDeps = { tts: builtinTts(), clock: mediaClock, announce: (callId, line) => announceUtterance(callId, line.text, line.startMs, line.endMs) };
  return {
    kind: "simulated",
    summary: "Scripted callees on a fictional number range (555-01XX), no network: for development and tests. Takes no settings or credentials.",
    prepare(input) {
      const [setting] = Object.keys(input.settings);
      if (setting) throw invalid(`settings.${setting}`, "the simulated carrier takes no settings");
      const [credential] = Object.keys(input.credentials);
      if (credential) throw invalid(`credentials.${credential}`, "the simulated carrier takes no credentials");
      return input;
    },
    callbackUrls: () => ({}),
    create: (connection) => new SimulatedCarrier(connection.id, deps),
    routes: (ctx, services, base) => softphoneRoutes(ctx, services.inbound, base),
  };
}
