// The transcript beside the recording: the turn playing is marked (aria-current), and each turn is a
// button that plays the recording from where it starts.
import { useEffect, useRef } from "preact/hooks";
import type { CallTurn } from "../../../sdk/ts/src/index.ts";
import { formatClock } from "./call-text.ts";

export type Turn = CallTurn;

export function Transcript({ turns, timeMs, onSeek }: { turns: Turn[]; timeMs: number; onSeek: ((ms: number) => void) | null }) {
  // The turn playing: the last one started at or before the position, while it lasts.
  const playing = onSeek ? turns.findIndex((turn) => timeMs >= turn.start_ms && timeMs < turn.end_ms) : -1;
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (playing >= 0) list.current?.children[playing]?.scrollIntoView({ block: "nearest" });
  }, [playing]);
  if (!turns.length) return <p class="muted">Nothing has been said yet.</p>;
  return (
    <ol class="calls-transcript" ref={list} aria-label="Transcript">
      {turns.map((turn, i) => {
        const content = (
          <>
            {onSeek && <span class="visually-hidden">Play from </span>}
            <span class="calls-turn-head">
              <span class="muted small">{formatClock(turn.start_ms)}</span>
              <span class="calls-speaker">{turn.role === "agent" ? " Agent: " : " Caller: "}</span>
            </span>
            <span class="calls-turn-text">
              {turn.text}
              {turn.interrupted && <span class="badge">interrupted</span>}
            </span>
          </>
        );
        return (
          <li key={i} class={`calls-turn ${turn.role}`} aria-current={i === playing ? "true" : undefined}>
            {onSeek ? (
              <button type="button" class="calls-turn-button" onClick={() => onSeek(turn.start_ms)}>
                {content}
              </button>
            ) : (
              <div class="calls-turn-button">{content}</div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
