// The conversation benchmark's figures, per carrier side by side, against the goals.
import { percentile } from "../stats.ts";
import type { TurnRecord } from "./caller.ts";

const BUCKETS: [number, number][] = [
  [400, 600],
  [600, 800],
  [800, 1000],
  [1000, 1201],
];

const ms = (values: number[], p: number) => (values.length ? `${Math.round(percentile(values, p))} ms` : "–");
const share = (hits: number, total: number) => (total ? `${hits}/${total} (${((100 * hits) / total).toFixed(1)} %)` : "–");

/** Parley's own timeline of the same calls, as a cross-check of what the callers measured. */
export interface ParleyView {
  /** Each answered turn's `latency` event: perceived_ms, from the caller's last voiced frame as Parley heard it (no network). */
  latencyMs: number[];
  /** Every latency event as Parley wrote it, with the caller turn it answered (for --json). */
  latencyEvents: Record<string, unknown>[];
  /** Answered turns whose reply was started at the caller's pause and played (hit), and replies started at pauses and dropped (wasted). */
  preemption: { hit: number; wasted: number; turns: number };
  /** Each latency event's platform_ms: what Parley itself added (all but providers and endpointing). */
  platformMs: number[];
  bargeIns: number;
  /** Caller utterances written to the transcripts: a turn Parley split at a pause counts once per piece. */
  callerTurns: number;
  /** Chat completions the agents asked the model for (the summary after each call not counted). */
  modelRequests: number;
}

export interface CarrierResult {
  carrier: string;
  records: TurnRecord[];
  view: ParleyView;
}

/** Rows of label → one cell per carrier. */
function rows({ records, view }: CarrierResult): [string, string][] {
  const complete = records.filter((r) => r.kind === "complete");
  const latency = complete.flatMap((r) => (r.latencyMs === null ? [] : [r.latencyMs]));
  const pausedTurns = records.filter((r) => r.kind === "paused" || r.kind === "digits");
  const pausedLatency = pausedTurns.flatMap((r) => (r.latencyMs === null ? [] : [r.latencyMs]));
  const pauses = records.flatMap((r) => r.pauses);
  const over = (kind: string) =>
    records.filter((r) => r.kind === kind && r.over && !("skipped" in r.over)).map((r) => r.over as { stopped: boolean; stopMs: number | null; replied: boolean; resumed: boolean });
  const skipped = (kind: string) => records.filter((r) => r.kind === kind && r.over && "skipped" in r.over).length;
  const interruptions = over("interruption");
  const stopTimes = interruptions.flatMap((o) => (o.stopMs === null ? [] : [o.stopMs]));
  const backchannels = over("backchannel");
  const out: [string, string][] = [
    ["caller turns measured", String(records.length)],
    ["perceived latency, complete turns  p50", ms(latency, 50)],
    ["                                   p95", ms(latency, 95)],
    ["  answered (of complete turns)", share(complete.filter((r) => r.answered).length, complete.length)],
    ["perceived latency after a paused turn p50", ms(pausedLatency, 50)],
    ["  (turns not cut in)                  p95", ms(pausedLatency, 95)],
  ];
  for (const [low, high] of BUCKETS) {
    const bucket = pauses.filter((p) => p.ms >= low && p.ms < high);
    out.push([`false cut-ins, pauses ${low}–${high === 1201 ? 1200 : high - 1} ms`, share(bucket.filter((p) => p.cutIn).length, bucket.length)]);
  }
  out.push(["false cut-ins, all pauses ≤ 1,200 ms", share(pauses.filter((p) => p.cutIn).length, pauses.length)]);
  out.push(["barge-in stop time  p50", ms(stopTimes, 50)]);
  out.push(["                    p95", ms(stopTimes, 95)]);
  out.push(["  interruptions that stopped the agent", share(interruptions.filter((o) => o.stopped).length, interruptions.length) + (skipped("interruption") ? ` (+${skipped("interruption")} not said)` : "")]);
  out.push(["backchannels that made the agent stop and reply", share(backchannels.filter((o) => o.replied).length, backchannels.length) + (skipped("backchannel") ? ` (+${skipped("backchannel")} not said)` : "")]);
  out.push(["  paused it ≥ 300 ms, then it went on", share(backchannels.filter((o) => o.stopped && o.resumed).length, backchannels.length)]);
  out.push(["  it talked on without a gap", share(backchannels.filter((o) => !o.stopped).length, backchannels.length)]);
  out.push(["Parley's timeline: latency events p50", ms(view.latencyMs, 50)]);
  out.push(["  (perceived_ms)                   p95", ms(view.latencyMs, 95)]);
  out.push(["  replies started at the last pause (hit)", share(view.preemption.hit, view.preemption.turns)]);
  out.push(["  replies started at pauses and dropped", `${view.preemption.wasted} (${view.preemption.turns ? (view.preemption.wasted / view.preemption.turns).toFixed(2) : "–"} per answered turn)`]);
  out.push(["  Parley's own share (platform_ms) p95", ms(view.platformMs, 95)]);
  out.push(["  barge-ins", String(view.bargeIns)]);
  const said = records.filter((r) => !(r.over && "skipped" in r.over)).length;
  out.push(["  pauses where it ended the utterance", share(Math.max(0, view.callerTurns - said), pauses.length)]);
  out.push(["  model requests per caller turn", said ? (view.modelRequests / said).toFixed(2) : "–"]);
  return out;
}

export function printReport(results: CarrierResult[]): void {
  const columns = results.map(rows);
  const width = 44;
  console.log(`   ${"".padEnd(width)}${results.map((r) => r.carrier.padStart(26)).join("")}`);
  columns[0].forEach(([label], i) => console.log(`   ${label.padEnd(width)}${columns.map((c) => c[i][1].padStart(26)).join("")}`));
  console.log("   goals: latency p50 ≤ 650 ms, p95 ≤ 900 ms; false cut-ins ≤ 2 %; barge-in stop p95 ≤ 250 ms; backchannel stops ≤ 5 %");
}
