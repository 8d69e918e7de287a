// A call's timeline: status changes, turns, tools, DTMF… in order, and each agent turn's latency (end of
// the caller's speech to the agent's first audio) split into its parts, with a bar to compare turns.
import type { CallEvent } from "../../../sdk/ts/src/index.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { formatClock } from "./call-text.ts";

const LATENCY_PARTS = [
  ["endpointing_ms", "Endpointing"],
  ["stt_ms", "Speech to text"],
  ["llm_ttft_ms", "Model first token"],
  ["tts_ttfb_ms", "Speech first byte"],
  ["platform_ms", "Parley"],
] as const;

const ms = (value: unknown) => (typeof value === "number" ? `${Math.round(value)} ms` : "—");

/** One line on what an event says (its data, briefly). */
function describe(event: CallEvent): string {
  const d = event.data as Record<string, unknown>;
  switch (event.type) {
    case "status":
      return `${String(d.status).replace(/_/g, " ")}${d.end_reason ? ` (${String(d.end_reason).replace(/_/g, " ")})` : ""}`;
    case "turn":
      return `${d.role === "agent" ? "Agent" : "Caller"}: ${String(d.text)}`;
    case "latency":
      return `End to end ${ms(d.end_to_end_ms)}`;
    default:
      return Object.entries(d)
        .map(([key, value]) => `${key.replace(/_/g, " ")}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
        .join(" · ");
  }
}

export function Timeline({ events }: { events: CallEvent[] }) {
  if (!events.length) return <p class="muted">No events yet.</p>;
  // Each latency follows the caller turn it answered.
  const latencies: { after: string; data: Record<string, unknown> }[] = [];
  let lastCaller = "";
  for (const event of events) {
    if (event.type === "turn" && event.data.role === "caller") lastCaller = String(event.data.text);
    if (event.type === "latency") latencies.push({ after: lastCaller, data: event.data });
  }
  const slowest = Math.max(1, ...latencies.map((l) => Number(l.data.end_to_end_ms) || 0));
  return (
    <>
      {latencies.length > 0 && (
        <>
          <h3 class="calls-subhead">Latency per turn</h3>
          <DataTable caption="Latency of each agent turn" columns={["After the caller said", "End to end", ...LATENCY_PARTS.map(([, label]) => label)]}>
            {latencies.map((latency, i) => (
              <tr key={i}>
                <th scope="row" class="calls-quote">{latency.after || "(the greeting)"}</th>
                <td>
                  <span class="calls-e2e">{ms(latency.data.end_to_end_ms)}</span>
                  <meter class="calls-meter" min={0} max={slowest} value={Number(latency.data.end_to_end_ms) || 0} aria-label={`End to end, turn ${i + 1}`} />
                </td>
                {LATENCY_PARTS.map(([key]) => (
                  <td key={key}>{ms(latency.data[key])}</td>
                ))}
              </tr>
            ))}
          </DataTable>
        </>
      )}
      <h3 class="calls-subhead">Events</h3>
      <ol class="calls-timeline">
        {events.map((event, i) => (
          <li key={i}>
            <span class="calls-offset muted small">{formatClock(event.offset_ms)}</span>
            <span class={`calls-kind ${event.type}`}>{event.type.replace(/_/g, " ")}</span>
            <span class="calls-what">{describe(event)}</span>
          </li>
        ))}
      </ol>
    </>
  );
}
