import type { AppContext } from "../core/context.ts";
import { mediaClock } from "../voice/media/media-clock.ts";
import { announceUtterance, builtinTts } from "../voice/speech/builtin/index.ts";
import { SimulatedCarrier } from "./simulated/carrier.ts";
import type { Carrier } from "./types.ts";

const registries = new WeakMap<AppContext, Map<string, Carrier>>();

/** The carrier that serves a number's calls; the simulated one always exists. */
export function carrierFor(ctx: AppContext, id: string): Carrier {
  let carriers = registries.get(ctx);
  if (!carriers) {
    carriers = new Map<string, Carrier>([
      ["simulated", new SimulatedCarrier({ tts: builtinTts(), clock: mediaClock, announce: (callId, line) => announceUtterance(callId, line.text, line.startMs, line.endMs) })],
    ]);
    registries.set(ctx, carriers);
  }
  const carrier = carriers.get(id);
  if (!carrier) throw new Error(`no carrier ${id} is configured`);
  return carrier;
}
