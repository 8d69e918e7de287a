/** When each stage of one turn answered (performance.now() marks), from the caller's last word to the agent's first frame. */
export interface TurnTiming {
  speechEndDetectedAt: number;
  sttMs?: number;
  brainStartedAt?: number;
  firstTextAt?: number;
  ttsRequestedAt?: number;
  firstAudioAt?: number;
  firstFrameAt?: number;
}

/** The `latency` timeline entry of a turn: each provider's share and what Parley itself added. */
export function latencyNote(timing: TurnTiming, endpointingMs: number): Record<string, number | null> {
  const since = (from?: number, to?: number) => (from !== undefined && to !== undefined ? Math.round(to - from) : null);
  const endToEnd = since(timing.speechEndDetectedAt, timing.firstFrameAt);
  const stt = timing.sttMs === undefined ? null : Math.round(timing.sttMs);
  const llm = since(timing.brainStartedAt, timing.firstTextAt);
  const tts = since(timing.ttsRequestedAt, timing.firstAudioAt);
  return {
    endpointing_ms: endpointingMs,
    stt_ms: stt,
    llm_ttft_ms: llm,
    tts_ttfb_ms: tts,
    end_to_end_ms: endToEnd,
    platform_ms: endToEnd === null ? null : Math.max(0, endToEnd - (stt ?? 0) - (llm ?? 0) - (tts ?? 0)),
  };
}
