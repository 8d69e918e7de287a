/** How a turn's reply was started: on the confirmed turn (none, or wasted when replies started at its pauses were dropped), or at its last pause and kept (hit). */
export type Preemption = "none" | "hit" | "wasted";

/** When each stage of one turn answered (performance.now() marks), from the caller's last word to the agent's first frame. */
export interface TurnTiming {
  /** The end of the caller's last voiced frame. */
  lastVoiceAt: number;
  /** The silence reached the endpointing wait: the utterance ended. */
  speechEndDetectedAt: number;
  /** The wait the endpointing chose for this utterance, and why. */
  endpointing?: { waitMs: number; completeness: string; reason: string };
  /** The final transcript after the end (the turn is confirmed once it is in). */
  sttMs?: number;
  confirmedAt?: number;
  /** What set the reply going: the pause (a preemptive reply) or the confirmed turn. */
  triggeredAt?: number;
  preemption?: Preemption;
  /** Replies started at this turn's pauses and dropped (each cost a model request). */
  preemptionsWasted?: number;
  brainStartedAt?: number;
  firstTextAt?: number;
  /** The model's text first made a piece worth speaking. */
  firstPieceAt?: number;
  ttsRequestedAt?: number;
  firstAudioAt?: number;
  firstFrameAt?: number;
}

/**
 * The `latency` timeline entry of a turn: each provider's share and what Parley itself added. Parley's
 * share follows the path that decided when the first frame went out: a reply ready before the turn was
 * confirmed waited on the endpointing and the transcript (not Parley's), one ready later on its own stages.
 */
export function latencyNote(timing: TurnTiming, fallbackEndpointingMs: number): Record<string, number | string | null> {
  const since = (from?: number, to?: number) => (from !== undefined && to !== undefined ? Math.max(0, Math.round(to - from)) : null);
  const stt = timing.sttMs === undefined ? null : Math.round(timing.sttMs);
  const confirmed = timing.confirmedAt ?? timing.speechEndDetectedAt + (timing.sttMs ?? 0);
  let platform: number | null = null;
  if (timing.firstFrameAt !== undefined && timing.firstAudioAt !== undefined) {
    const audioFirst = timing.firstAudioAt <= confirmed;
    const sent = since(audioFirst ? confirmed : timing.firstAudioAt, timing.firstFrameAt) ?? 0;
    platform = audioFirst ? sent : sent + (since(timing.triggeredAt, timing.brainStartedAt) ?? 0) + (since(timing.firstPieceAt, timing.ttsRequestedAt) ?? 0);
  }
  return {
    endpointing_ms: timing.endpointing?.waitMs ?? fallbackEndpointingMs,
    endpointing: timing.endpointing ? `${timing.endpointing.completeness}: ${timing.endpointing.reason}` : null,
    preemption: timing.preemption ?? "none",
    preemptions_wasted: timing.preemptionsWasted ?? 0,
    stt_ms: stt,
    llm_ttft_ms: since(timing.brainStartedAt, timing.firstTextAt),
    tts_ttfb_ms: since(timing.ttsRequestedAt, timing.firstAudioAt),
    end_to_end_ms: since(timing.speechEndDetectedAt, timing.firstFrameAt),
    perceived_ms: since(timing.lastVoiceAt, timing.firstFrameAt),
    platform_ms: platform,
  };
}
