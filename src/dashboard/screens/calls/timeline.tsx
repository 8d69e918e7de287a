// A call's timeline: status changes, turns, tools, DTMF… in order on one clock (from the answer, as the
// transcript and the recording count), and each agent turn's latency: what the caller waited, the pause
// the agent chose, whether the reply was prepared during it, and the response's parts.
import type { Call, CallEvent } from "../../../sdk/ts/src/index.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { endReasonText, formatOffset, statusLabel } from "./call-text.ts";

/** The response's parts, in the order they happen (a reply prepared at the caller's pause ran them during it). */
const RESPONSE_PARTS = [
  ["stt_ms", "Speech to text"],
  ["llm_ttft_ms", "Model first token"],
  ["tts_ttfb_ms", "Speech first byte"],
  ["platform_ms", "Parley"],
] as const;

const ms = (value: unknown) => (typeof value === "number" ? `${Math.round(value)} ms` : "—");
const num = (value: unknown) => (typeof value === "number" ? value : null);

/** What the caller waited: from their last voiced frame to the agent's first sound (older entries: the pause, then the response). */
function waited(data: Record<string, unknown>): number | null {
  const perceived = num(data.perceived_ms);
  if (perceived !== null) return perceived;
  const pause = num(data.endpointing_ms);
  const response = num(data.end_to_end_ms);
  return pause === null || response === null ? null : pause + response;
}

/** How the reply began: prepared during the pause and played once the turn was confirmed, or after it. */
function replyStart(data: Record<string, unknown>): string {
  const wasted = num(data.preemptions_wasted) ?? 0;
  const dropped = wasted ? ` (${wasted} dropped)` : "";
  if (data.preemption === "hit") return `during the pause${dropped}`;
  return data.preemption === undefined ? "—" : `after the pause${dropped}`;
}

/** The pause and why the agent chose it ("complete: terminal '?'"). */
function pauseText(data: Record<string, unknown>): string {
  return typeof data.endpointing === "string" && data.endpointing ? `${ms(data.endpointing_ms)} (${data.endpointing})` : ms(data.endpointing_ms);
}

/** One line on what an event says (its data, briefly). */
function describe(event: CallEvent): string {
  const d = event.data as Record<string, unknown>;
  switch (event.type) {
    case "status":
      return `${statusLabel(String(d.status) as Call["status"])}${d.end_reason ? `: ${endReasonText(String(d.end_reason))}` : ""}`;
    case "turn":
      return `${d.role === "agent" ? "Agent" : "Caller"}: ${String(d.text)}`;
    case "latency":
      return `The caller waited ${ms(waited(d))}: a pause of ${pauseText(d)}, the reply started ${replyStart(d)}, a response of ${ms(d.end_to_end_ms)} after the pause`;
    case "extracted": {
      const fields = Array.isArray(d.fields) ? d.fields.map(String) : [];
      return fields.length ? `Fields filled in: ${fields.join(", ")}` : "No fields to fill in (the agent asks for none)";
    }
    default:
      return Object.entries(d)
        .map(([key, value]) => `${key.replace(/_/g, " ")}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
        .join(" · ");
  }
}

/**
 * Where an event sits on the call's clock: a turn where it started (the transcript's own time), any other
 * event when it was recorded, less the time the call took to be answered (`answeredAfterMs`).
 */
function timeOf(event: CallEvent, answeredAfterMs: number): number {
  if (event.type === "turn" && typeof event.data.start_ms === "number") return event.data.start_ms;
  return event.offset_ms - answeredAfterMs;
}

/** `answeredAfterMs`: from the call's creation to its answer; null when it was never answered. */
export function Timeline({ events, answeredAfterMs }: { events: CallEvent[]; answeredAfterMs: number | null }) {
  if (!events.length) return <p class="muted">No events yet.</p>;
  // Each latency follows the caller turn it answered.
  const latencies: { after: string; data: Record<string, unknown> }[] = [];
  let lastCaller = "";
  for (const event of events) {
    if (event.type === "turn" && event.data.role === "caller") lastCaller = String(event.data.text);
    if (event.type === "latency") latencies.push({ after: lastCaller, data: event.data });
  }
  const slowest = Math.max(1, ...latencies.map((l) => waited(l.data) ?? 0));
  // A turn is recorded when it ends but placed where it began: sorting keeps the list in time order.
  const placed = events.map((event) => ({ event, at: timeOf(event, answeredAfterMs ?? 0) })).sort((a, b) => a.at - b.at);
  return (
    <>
      {latencies.length > 0 && (
        <>
          <h3 class="calls-subhead">Latency per turn</h3>
          <p class="hint" id="calls-latency-note">
            What the caller waited runs from their last word to the agent's first sound. The pause before answering is the silence the agent chose to wait, judged from the caller's words (shorter
            after a finished sentence, longer after "and" or a number being read). A reply started during the pause was prepared meanwhile and played once the caller had surely finished; otherwise
            the response followed the pause. The response is speech to text, the model's first token, the speech's first byte and what Parley itself added.
          </p>
          <DataTable caption="Latency of each agent turn" columns={["After the caller said", "Caller waited", "Pause before answering", "Reply started", "Response (after the pause)", ...RESPONSE_PARTS.map(([, label]) => label)]}>
            {latencies.map((latency, i) => (
              <tr key={i}>
                <th scope="row" class="calls-quote">{latency.after || "(the greeting)"}</th>
                <td>
                  <span class="calls-e2e">{ms(waited(latency.data))}</span>
                  <meter class="calls-meter" min={0} max={slowest} value={waited(latency.data) ?? 0} aria-label={`Caller waited, turn ${i + 1}`} />
                </td>
                <td>{pauseText(latency.data)}</td>
                <td>{replyStart(latency.data)}</td>
                <td>{ms(latency.data.end_to_end_ms)}</td>
                {RESPONSE_PARTS.map(([key]) => (
                  <td key={key}>{ms(latency.data[key])}</td>
                ))}
              </tr>
            ))}
          </DataTable>
        </>
      )}
      <h3 class="calls-subhead">Events</h3>
      <p class="hint">
        {answeredAfterMs === null
          ? "The call was never answered: times count from when it was placed."
          : "Times count from the moment the call was answered, as in the transcript and the recording; what happened before (queued, ringing) has a minus sign."}
      </p>
      <ol class="calls-timeline">
        {placed.map(({ event, at }, i) => (
          <li key={i}>
            <span class="calls-offset muted small">{formatOffset(at)}</span>
            <span class={`calls-kind ${event.type}`}>{event.type.replace(/_/g, " ")}</span>
            <span class="calls-what">{describe(event)}</span>
          </li>
        ))}
      </ol>
    </>
  );
}
