// The simulated recogniser returns what the simulated callee announced for the audio span a
// session covers; it never looks at the audio.
import { describe, expect, test } from "bun:test";
import { SimulatedRecogniser, SimulatedUtteranceRegistry } from "../../../../src/voice/speech/builtin/simulated.ts";
import { builtinStt } from "../../../../src/voice/speech/builtin/index.ts";

const RATE = 8_000;
/** `ms` of (silent) audio; the recogniser only counts samples. */
const audio = (ms: number) => new Int16Array((RATE * ms) / 1000);

function setup() {
  const registry = new SimulatedUtteranceRegistry();
  const recogniser = new SimulatedRecogniser(registry);
  /** A session starting at `startMs` that receives `ms` of audio in 20 ms frames, then finishes. */
  const hear = async (callId: string, startMs: number, ms: number) => {
    const session = recogniser.start({ language: "en-US", sampleRate: RATE, callId, startedAtMs: startMs });
    for (let written = 0; written < ms; written += 20) session.write(audio(Math.min(20, ms - written)));
    return session.finish();
  };
  return { registry, recogniser, hear };
}

describe("SimulatedRecogniser", () => {
  test("returns the utterance whose span the session's audio covers", async () => {
    const { registry, hear } = setup();
    registry.announce("call_a", "I would like to book an appointment", 1_000, 3_000);
    registry.announce("call_a", "yes please", 5_000, 5_800);
    expect(await hear("call_a", 900, 2_300)).toEqual({ text: "I would like to book an appointment", confidence: 1 });
    expect(await hear("call_a", 4_800, 1_200)).toEqual({ text: "yes please", confidence: 1 });
  });

  test("a session spanning two utterances gets both, in spoken order", async () => {
    const { registry, hear } = setup();
    registry.announce("call_a", "goodbye", 2_000, 2_600);
    registry.announce("call_a", "my order number is four two one seven", 0, 1_800);
    expect((await hear("call_a", 0, 3_000)).text).toBe("my order number is four two one seven goodbye");
  });

  test("silence, other calls and a brush with a neighbour's edge give nothing", async () => {
    const { registry, hear } = setup();
    registry.announce("call_a", "hello", 1_000, 2_000);
    expect(await hear("call_a", 3_000, 1_000)).toEqual({ text: "", confidence: null });
    expect((await hear("call_b", 1_000, 1_000)).text).toBe("");
    // VAD pre-roll catching the last 50 ms of the previous utterance does not repeat it.
    registry.announce("call_a", "next", 2_100, 2_900);
    expect((await hear("call_a", 1_950, 1_000)).text).toBe("next");
    // A very short utterance counts once half of it is covered.
    registry.announce("call_a", "no", 4_000, 4_080);
    expect((await hear("call_a", 4_040, 500)).text).toBe("no");
  });

  test("the span follows the samples written, at the session's rate", async () => {
    const { registry, recogniser } = setup();
    registry.announce("call_a", "late words", 1_500, 2_500);
    const session = recogniser.start({ language: "en-US", sampleRate: 16_000, callId: "call_a", startedAtMs: 0 });
    session.write(new Int16Array(16_000)); // 1 s: ends before the utterance
    expect((await session.finish()).text).toBe("");
  });

  test("forgetting a call drops its utterances; a session without a call id is refused", async () => {
    const { registry, recogniser, hear } = setup();
    registry.announce("call_a", "hello", 0, 1_000);
    registry.forget("call_a");
    expect((await hear("call_a", 0, 1_000)).text).toBe("");
    expect(() => recogniser.start({ language: "en-US", sampleRate: RATE })).toThrow(/callId/);
    expect(() => registry.announce("call_a", "backwards", 500, 100)).toThrow(RangeError);
  });

  describe("partial hypotheses, for turn-taking at a pause", () => {
    /** Writes `ms` of audio in 20 ms frames and lets the partials (delivered after write returns) arrive. */
    const write = async (session: { write(pcm: Int16Array): void }, ms: number) => {
      for (let written = 0; written < ms; written += 20) session.write(audio(20));
      await Promise.resolve();
    };

    test("reveal an utterance's words as the session's audio covers them, every 100 ms of audio", async () => {
      const { registry, recogniser } = setup();
      registry.announce("call_a", "my number is four one five", 1_000, 2_200); // 200 ms a word
      const session = recogniser.start({ language: "en-US", sampleRate: RATE, callId: "call_a", startedAtMs: 700 });
      const partials: [number, string][] = [];
      let heardMs = 700;
      session.onPartial = (text) => partials.push([heardMs, text]);
      while (heardMs < 2_200) {
        heardMs += 100;
        await write(session, 100);
      }
      // A word shows once its middle is heard; the whole utterance by the time its audio has been written.
      expect(partials).toEqual([
        [1_100, "my"],
        [1_300, "my number"],
        [1_500, "my number is"],
        [1_700, "my number is four"],
        [1_900, "my number is four one"],
        [2_100, "my number is four one five"],
      ]);
      expect(await session.finish()).toEqual({ text: "my number is four one five", confidence: 1 });
    });

    test("in a pause the partial holds what came before it; the caller going on adds to it; nothing after finish", async () => {
      const { registry, recogniser } = setup();
      registry.announce("call_a", "my number is", 0, 900);
      registry.announce("call_a", "four one five", 1_900, 2_800);
      const session = recogniser.start({ language: "en-US", sampleRate: RATE, callId: "call_a", startedAtMs: 0 });
      const partials: string[] = [];
      session.onPartial = (text) => partials.push(text);
      await write(session, 1_000); // the speech and the first 100 ms of the pause
      expect(partials.at(-1)).toBe("my number is");
      await write(session, 1_800);
      expect(partials.at(-1)).toBe("my number is four one five");
      const count = partials.length;
      expect((await session.finish()).text).toBe("my number is four one five");
      await write(session, 500);
      expect(partials).toHaveLength(count);
    });
  });

  test("is the `simulated` engine from the builtin index", () => {
    expect(builtinStt("simulated").id).toBe("simulated");
  });
});
