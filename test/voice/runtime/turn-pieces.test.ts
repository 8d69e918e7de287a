// The pieces a turn's reply is made of: the text cut into speakable pieces (the first may be a clause,
// so the voice starts sooner) and the turn's latency entry (whose share is Parley's own).
import { describe, expect, test } from "bun:test";
import { latencyNote } from "../../../src/voice/runtime/latency.ts";
import { SentenceSplitter } from "../../../src/voice/runtime/sentences.ts";

describe("SentenceSplitter", () => {
  const stream = (splitter: SentenceSplitter, tokens: string[]) => [...tokens.flatMap((t) => splitter.push(t)), ...splitter.flush()];
  const tokens = "Sure, I can help you with that today. Let me note it down, then we are done.".match(/\S+\s*/g)!;

  test("cuts at sentence ends", () => {
    expect(stream(new SentenceSplitter(), tokens)).toEqual(["Sure, I can help you with that today.", "Let me note it down, then we are done."]);
  });

  test("with firstClause, the first piece ends at its first clause mark; later ones at sentence ends", () => {
    expect(stream(new SentenceSplitter({ firstClause: true }), tokens)).toEqual(["Sure,", "I can help you with that today.", "Let me note it down, then we are done."]);
    // A number's comma is no clause mark.
    expect(stream(new SentenceSplitter({ firstClause: true }), ["It costs 1,200 ", "euros. ", "Fine."])).toEqual(["It costs 1,200 euros.", "Fine."]);
  });
});

describe("latencyNote", () => {
  const base = { lastVoiceAt: 0, speechEndDetectedAt: 300, endpointing: { waitMs: 300, completeness: "complete", reason: "terminal '?'" }, sttMs: 150, confirmedAt: 450 };

  test("a reply started at the pause and ready before the turn was confirmed: Parley's share is what came after the confirmation", () => {
    const note = latencyNote({ ...base, preemption: "hit", triggeredAt: 100, brainStartedAt: 101, firstTextAt: 451, firstPieceAt: 452, ttsRequestedAt: 452, firstAudioAt: 440, firstFrameAt: 462 }, 600);
    expect(note).toMatchObject({ endpointing_ms: 300, endpointing: "complete: terminal '?'", preemption: "hit", perceived_ms: 462, end_to_end_ms: 162, platform_ms: 12 });
  });

  test("a reply ready after the confirmation: Parley's share is its own steps on the way (start, hand-over to the voice, first frame)", () => {
    const note = latencyNote({ ...base, triggeredAt: 450, brainStartedAt: 455, firstTextAt: 805, firstPieceAt: 900, ttsRequestedAt: 903, firstAudioAt: 1053, firstFrameAt: 1065 }, 600);
    // 5 ms to start the model, 3 ms to hand the first piece to the voice, 12 ms to the first frame; the model's 95 ms of tokens to its first piece are not Parley's.
    expect(note).toMatchObject({ preemption: "none", stt_ms: 150, llm_ttft_ms: 350, tts_ttfb_ms: 150, perceived_ms: 1065, platform_ms: 20 });
  });
});
