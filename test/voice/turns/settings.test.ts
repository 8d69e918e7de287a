import { describe, expect, test } from "bun:test";
import { defaultTurnTaking, withDefaults, type TurnTakingInput } from "../../../src/voice/agent-config.ts";
import { filledTurnTaking, resolveTurnTaking, turnTakingProblems } from "../../../src/voice/turns/settings.ts";

// turn_taking as agents stored it before issue 37 (no endpointing, preemption, sensitivity or backchannels).
const legacy = (endpointing_ms: number): TurnTakingInput => ({
  endpointing_ms,
  interruptions: { enabled: true, min_speech_ms: 250 },
  silence: { reminder_after_s: 15, reminder_message: "Are you still there?", timeout_s: 30 },
  max_duration_s: 600,
  end_call_phrases: ["goodbye"],
});

describe("resolveTurnTaking", () => {
  test("a new agent's defaults: dynamic 300/600/2000 ms, preemptive, medium sensitivity, backchannels ignored, 200 ms of speech", () => {
    expect(resolveTurnTaking(withDefaults({ name: "x" }, "en-US").turn_taking)).toEqual({
      endpointing: { mode: "dynamic", minMs: 300, neutralMs: 600, maxMs: 2000 },
      preemptive: true,
      interruptions: { enabled: true, minSpeechMs: 200, sensitivity: "medium", backchannels: "ignore" },
      silence: { reminderAfterS: 15, reminderMessage: "Are you still there?", timeoutS: 30 },
      maxDurationS: 600,
      endCallPhrases: ["goodbye", "bye bye"],
    });
  });

  test("a stored agent with only endpointing_ms: it becomes the neutral wait, the default range widened around it", () => {
    expect(resolveTurnTaking(legacy(600)).endpointing).toEqual({ mode: "dynamic", minMs: 300, neutralMs: 600, maxMs: 2000 });
    expect(resolveTurnTaking(legacy(150)).endpointing).toEqual({ mode: "dynamic", minMs: 150, neutralMs: 150, maxMs: 2000 });
    expect(resolveTurnTaking(legacy(3500)).endpointing).toEqual({ mode: "dynamic", minMs: 300, neutralMs: 3500, maxMs: 3500 });
    const old = resolveTurnTaking(legacy(600));
    expect(old.preemptive).toBe(true);
    expect(old.interruptions).toEqual({ enabled: true, minSpeechMs: 250, sensitivity: "medium", backchannels: "ignore" });
  });

  test("what is given wins, a field at a time", () => {
    const resolved = resolveTurnTaking({
      ...legacy(800),
      endpointing: { mode: "fixed", max_delay_ms: 4000 },
      preemptive_generation: false,
      interruptions: { enabled: false, min_speech_ms: 400, sensitivity: "low", backchannels: "interrupt" },
    });
    expect(resolved.endpointing).toEqual({ mode: "fixed", minMs: 300, neutralMs: 800, maxMs: 4000 });
    expect(resolved.preemptive).toBe(false);
    expect(resolved.interruptions).toEqual({ enabled: false, minSpeechMs: 400, sensitivity: "low", backchannels: "interrupt" });
  });
});

describe("filledTurnTaking", () => {
  test("writes every setting out in one key order, and filling twice changes nothing", () => {
    const filled = filledTurnTaking(legacy(1200));
    expect(filled).toEqual({ ...legacy(1200), endpointing: { mode: "dynamic", min_delay_ms: 300, max_delay_ms: 2000 }, preemptive_generation: true, interruptions: { enabled: true, min_speech_ms: 250, sensitivity: "medium", backchannels: "ignore" } });
    expect(JSON.stringify(filledTurnTaking(filled))).toBe(JSON.stringify(filled));
    expect(Object.keys(filled)).toEqual(Object.keys(defaultTurnTaking()));
    const { end_call_phrases, endpointing_ms, ...rest } = legacy(1200);
    expect(JSON.stringify(filledTurnTaking({ end_call_phrases, ...rest, endpointing_ms }))).toBe(JSON.stringify(filled));
  });
});

describe("turnTakingProblems", () => {
  test("min_delay_ms <= endpointing_ms <= max_delay_ms, each side named", () => {
    expect(turnTakingProblems(defaultTurnTaking())).toEqual([]);
    expect(turnTakingProblems(legacy(150))).toEqual([]);
    expect(turnTakingProblems({ ...legacy(600), endpointing: { min_delay_ms: 700 } })).toEqual([{ field: "turn_taking.endpointing.min_delay_ms", message: "must not be more than endpointing_ms (600)" }]);
    expect(turnTakingProblems({ ...legacy(2500), endpointing: { max_delay_ms: 2400 } })).toEqual([{ field: "turn_taking.endpointing.max_delay_ms", message: "must not be less than endpointing_ms (2500)" }]);
    // A wait beyond the default maximum is fine when the maximum is left to follow it.
    expect(turnTakingProblems({ ...legacy(2500), endpointing: { mode: "dynamic" } })).toEqual([]);
    expect(turnTakingProblems({ ...legacy(600), endpointing: { min_delay_ms: 600, max_delay_ms: 600 } })).toEqual([]);
  });
});
