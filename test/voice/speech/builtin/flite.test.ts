// The built-in Flite voice: voices, audible speech of plausible length at telephone and wideband
// rates, speed, sentence streaming, abort, and the text splitting that drives it.
import { describe, expect, test } from "bun:test";
import { builtinTts, builtinVoices, DEFAULT_BUILTIN_VOICE } from "../../../../src/voice/speech/builtin/index.ts";
import { fliteLoaded, setFliteIdleRelease, splitForSynthesis } from "../../../../src/voice/speech/builtin/flite.ts";
import type { SynthesisOptions } from "../../../../src/voice/speech/types.ts";

const tts = builtinTts();

async function speak(text: string, options: Partial<SynthesisOptions> = {}): Promise<Int16Array[]> {
  const chunks: Int16Array[] = [];
  for await (const chunk of tts.synthesize(text, { voice: DEFAULT_BUILTIN_VOICE, speed: 1, sampleRate: 16_000, ...options })) {
    chunks.push(chunk);
  }
  return chunks;
}

const samplesIn = (chunks: Int16Array[]) => chunks.reduce((sum, chunk) => sum + chunk.length, 0);

function rms(chunks: Int16Array[]): number {
  let sum = 0;
  for (const chunk of chunks) for (const sample of chunk) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samplesIn(chunks)));
}

const SENTENCE = "I would like to book an appointment for Tuesday morning.";

describe("builtin:flite voices", () => {
  test("lists the compiled-in voices, including the default kal16", async () => {
    const voices = await tts.voices();
    expect(tts.id).toBe("builtin:flite");
    expect(voices.map((voice) => voice.id).sort()).toEqual(["awb", "kal", "kal16", "rms", "slt"]);
    expect(builtinVoices()).toEqual(voices);
    expect(DEFAULT_BUILTIN_VOICE).toBe("kal16");
    for (const voice of voices) {
      expect(voice).toMatchObject({ provider_id: "builtin", language: "en-US" });
      expect(["male", "female"]).toContain(voice.gender!);
    }
    expect(voices.find((voice) => voice.id === "slt")!.gender).toBe("female");
  });

  test("an unknown voice is refused with the list of known ones", async () => {
    await expect(speak("hello", { voice: "nobody" })).rejects.toThrow(/unknown Flite voice "nobody".*kal16/);
  });
});

describe("builtin:flite synthesis", () => {
  for (const sampleRate of [8_000, 16_000]) {
    test(`audible speech of plausible length at ${sampleRate} Hz for every voice`, async () => {
      for (const voice of builtinVoices()) {
        const chunks = await speak(SENTENCE, { voice: voice.id, sampleRate });
        const seconds = samplesIn(chunks) / sampleRate;
        expect(seconds).toBeGreaterThan(2); // ~11 syllables and a pause
        expect(seconds).toBeLessThan(6);
        expect(rms(chunks)).toBeGreaterThan(300);
      }
    });
  }

  test("the same text lasts as long at 8 kHz as at 16 kHz (resampled, not re-timed)", async () => {
    const narrow = samplesIn(await speak(SENTENCE, { sampleRate: 8_000 }));
    const wide = samplesIn(await speak(SENTENCE, { sampleRate: 16_000 }));
    expect(Math.abs(narrow * 2 - wide)).toBeLessThanOrEqual(2);
  });

  test("speed stretches or shortens the speech", async () => {
    const normal = samplesIn(await speak(SENTENCE));
    const slow = samplesIn(await speak(SENTENCE, { speed: 0.5 }));
    const fast = samplesIn(await speak(SENTENCE, { speed: 2 }));
    expect(slow / normal).toBeGreaterThan(1.7);
    expect(fast / normal).toBeLessThan(0.6);
  });

  test("streams one chunk per sentence, the first before the rest are made", async () => {
    const text = "Hello, thanks for calling. Your order ships tomorrow. Is there anything else?";
    const iterator = tts.synthesize(text, { voice: "kal16", speed: 1, sampleRate: 8_000 })[Symbol.asyncIterator]();
    const started = performance.now();
    const first = await iterator.next();
    const firstMs = performance.now() - started;
    expect(first.done).toBe(false);
    expect((first.value as Int16Array).length / 8_000).toBeLessThan(2.5); // only the first sentence
    expect(firstMs).toBeLessThan(1_000); // ~5 ms warm; generous for a cold CI machine
    let rest = 0;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest++;
    expect(rest).toBe(2);
  });

  test("empty or unspeakable text gives no audio", async () => {
    expect(await speak("")).toEqual([]);
    expect(await speak("  ... \n -- ")).toEqual([]);
  });

  test("aborting stops before the next sentence; an aborted signal gives nothing", async () => {
    const text = Array.from({ length: 20 }, (_, i) => `This is sentence number ${i + 1}.`).join(" ");
    const controller = new AbortController();
    const chunks: Int16Array[] = [];
    for await (const chunk of tts.synthesize(text, { voice: "slt", speed: 1, sampleRate: 8_000, signal: controller.signal })) {
      chunks.push(chunk);
      if (chunks.length === 2) controller.abort();
    }
    expect(chunks.length).toBe(2);

    // Abort arriving from elsewhere (a barge-in event) while the consumer waits between sentences.
    const late = new AbortController();
    const received: Int16Array[] = [];
    setTimeout(() => late.abort(), 0);
    for await (const chunk of tts.synthesize(text, { voice: "slt", speed: 1, sampleRate: 8_000, signal: late.signal })) {
      received.push(chunk);
      await Bun.sleep(5);
    }
    expect(received.length).toBeLessThan(3);

    expect(await speak(text, { signal: AbortSignal.abort() })).toEqual([]);
  });

  test("non-ASCII text is folded so Flite can read it", async () => {
    expect(splitForSynthesis("Café “naïve” — costs €5.")).toEqual(['Cafe "naive" , costs 5 euros.']);
    expect(rms(await speak("Café “naïve” — déjà vu"))).toBeGreaterThan(300);
  });
});

describe("builtin:flite thread", () => {
  test("Flite speaks on its own thread: the event loop keeps turning while a sentence is made", async () => {
    await speak("Warm.", { voice: "slt" }); // the thread is up and Flite loaded
    let turns = 0;
    let turning = true;
    const turn = () => {
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    // One long sentence is one run of Flite (tens of ms); on the event loop it would allow no turn at all.
    const chunks = await speak(`${SENTENCE.replace(".", ",")} or, if that is taken, Wednesday afternoon, or failing that Thursday at any time at all.`, { voice: "slt" });
    turning = false;
    expect(chunks).toHaveLength(1);
    expect(turns).toBeGreaterThan(3);
  });

  test("sentences of simultaneous callers take turns; a caller that hangs up is dropped from the wait", async () => {
    const first = speak("First caller, first sentence. First caller, second sentence.");
    const gone = new AbortController();
    const second = speak("Second caller, who hangs up. Never spoken.", { signal: gone.signal });
    gone.abort();
    const third = speak("Third caller.");
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(a).toHaveLength(2);
    expect(b).toEqual([]);
    expect(rms(c)).toBeGreaterThan(500);
  });
});

describe("builtin:flite memory", () => {
  test("an idle Flite is released and loads again for the next sentence", async () => {
    setFliteIdleRelease(300);
    try {
      expect(samplesIn(await speak(SENTENCE))).toBeGreaterThan(0);
      expect(fliteLoaded()).toBe(true);
      await Bun.sleep(150);
      expect(samplesIn(await speak("Still here."))).toBeGreaterThan(0); // use postpones the release
      await Bun.sleep(200);
      expect(fliteLoaded()).toBe(true);
      await Bun.sleep(400);
      expect(fliteLoaded()).toBe(false);
      expect(rms(await speak(SENTENCE))).toBeGreaterThan(500);
      expect(fliteLoaded()).toBe(true);
    } finally {
      setFliteIdleRelease(60_000);
    }
  });
});

describe("splitForSynthesis", () => {
  test("splits at sentence ends but not at abbreviations, initials or decimals", () => {
    expect(splitForSynthesis("Hello Dr. Smith. Your visit is at 3.30 p.m. on Tuesday! Is that OK? Ask J. Smith.")).toEqual([
      "Hello Dr. Smith.",
      "Your visit is at 3.30 p.m. on Tuesday!",
      "Is that OK?",
      "Ask J. Smith.",
    ]);
  });

  test("each line is its own piece, and very long sentences are cut at commas", () => {
    expect(splitForSynthesis("First line\nsecond line")).toEqual(["First line", "second line"]);
    const clause = "we open at nine in the morning on weekdays";
    const long = Array.from({ length: 10 }, () => clause).join(", ") + ".";
    const pieces = splitForSynthesis(long);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(240);
    expect(pieces.join(" ")).toBe(long);
  });
});
