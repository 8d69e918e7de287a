// What the live calls of this process show an operator: how many there are on each kind of carrier,
// how long each stage of a turn took, and how the callers' media arrived. Counts of calls that have
// ended are kept here; the live ones are read at each scrape.
import type { AppContext } from "../../core/context.ts";
import type { MetricsRegistry } from "../../core/metrics.ts";
import type { MediaCounts } from "../../telephony/types.ts";
import { liveCalls, type LiveCall } from "./registry.ts";

/** A turn's stages take tenths of a second to seconds (a model's first token, a voice's first audio). */
const TURN_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
/** The `latency` timeline entry's fields (see latency.ts), by the stage they are counted as. */
const STAGES: [field: string, stage: string][] = [
  ["endpointing_ms", "endpointing"],
  ["stt_ms", "stt"],
  ["llm_ttft_ms", "llm_first_token"],
  ["tts_ttfb_ms", "tts_first_byte"],
  ["platform_ms", "platform"],
  ["end_to_end_ms", "end_to_end"],
  ["perceived_ms", "perceived"],
];
const TRANSPORTS: MediaCounts["transport"][] = ["rtp", "websocket"];

type MediaTotals = Record<MediaCounts["transport"], { received: number; lost: number; late: number }>;
const endedMedia = new WeakMap<AppContext, MediaTotals>();

function turnLatency(metrics: MetricsRegistry) {
  return metrics.histogram("parley_call_turn_latency_seconds", "Per answered turn, from the caller's last word to the agent's first audio frame: each stage's share (endpointing: the silence waited for; stt; llm_first_token; tts_first_byte; platform: what Parley itself added) the whole from the end of the utterance (end_to_end) and from the caller's last voiced frame (perceived).", TURN_BUCKETS, ["stage"]);
}

/** A turn's latency entry, into the histograms (stages an engine did not report are left out). */
export function observeTurnLatency(ctx: AppContext, note: Record<string, number | string | null>): void {
  const family = turnLatency(ctx.metrics);
  for (const [field, stage] of STAGES) {
    const ms = note[field];
    if (typeof ms === "number") family.labels(stage).observe(ms / 1000);
  }
}

/**
 * A reply started at the caller's pause: `hit` when the turn ended as it assumed and it was played,
 * `wasted` when the caller went on or said otherwise (its model request was paid for all the same).
 */
export function countPreemption(ctx: AppContext, outcome: "hit" | "wasted"): void {
  preemptions(ctx.metrics).labels(outcome).inc();
}

function preemptions(metrics: MetricsRegistry) {
  return metrics.counter("parley_call_preemptions_total", "Replies started at a caller's pause, by outcome: hit (played once the turn was confirmed) or wasted (the caller went on or said otherwise; its model request still cost).", ["outcome"]);
}

/** A call leaves the live registry: its media counts join those of the calls ended before it. */
export function recordEndedCall(ctx: AppContext, call: LiveCall): void {
  const counts = call.mediaCounts();
  if (!counts) return;
  const totals = mediaTotals(ctx);
  totals[counts.transport].received += counts.received;
  totals[counts.transport].lost += counts.lost;
  totals[counts.transport].late += counts.late;
}

/** Declares the calls' metrics and reads the live registry at each scrape; `carrierKinds` are shown at 0 when idle. */
export function callRuntimeMetrics(ctx: AppContext, carrierKinds: string[]): void {
  const metrics = ctx.metrics;
  turnLatency(metrics);
  preemptions(metrics);
  const live = metrics.gauge("parley_calls_live", "Calls live in this process (ringing or in progress), by carrier kind.", ["carrier"]);
  const media = {
    received: metrics.counter("parley_media_frames_received_total", "Callers' 20 ms audio frames received, by transport (rtp: SIP trunks; websocket: carriers' media streams and browsers).", ["transport"]),
    lost: metrics.counter("parley_media_frames_lost_total", "Callers' frames that never came (RTP sequence gaps the jitter buffer gave up on), by transport.", ["transport"]),
    late: metrics.counter("parley_media_frames_late_total", "Callers' frames that came late: RTP packets after their frame was given up or played, WebSocket frames more than 200 ms behind their place in the stream.", ["transport"]),
  };
  metrics.onCollect("calls", () => {
    const byKind = new Map<string, number>(carrierKinds.map((kind) => [kind, 0]));
    const sums = structuredClone(mediaTotals(ctx));
    for (const call of liveCalls(ctx).values()) {
      byKind.set(call.carrierKind, (byKind.get(call.carrierKind) ?? 0) + 1);
      const counts = call.mediaCounts();
      if (!counts) continue;
      sums[counts.transport].received += counts.received;
      sums[counts.transport].lost += counts.lost;
      sums[counts.transport].late += counts.late;
    }
    live.reset();
    for (const [kind, count] of byKind) live.labels(kind).set(count);
    // Monotonic by construction: ended calls' counts only grow, and a live call's move into them whole.
    for (const transport of TRANSPORTS) for (const key of ["received", "lost", "late"] as const) media[key].labels(transport).value = sums[transport][key];
  });
}

function mediaTotals(ctx: AppContext): MediaTotals {
  let totals = endedMedia.get(ctx);
  if (!totals) endedMedia.set(ctx, (totals = { rtp: { received: 0, lost: 0, late: 0 }, websocket: { received: 0, lost: 0, late: 0 } }));
  return totals;
}
