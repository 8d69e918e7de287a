import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ProviderConnection } from "../../../src/providers/connection.ts";
import { DeepgramTranscriber } from "../../../src/voice/speech/deepgram/index.ts";
import { ElevenLabsSpeech } from "../../../src/voice/speech/elevenlabs/index.ts";
import { OpenAiSpeech, OpenAiTranscriber } from "../../../src/voice/speech/openai/index.ts";
import { encodeWav, PcmDecoder } from "../../../src/voice/speech/openai/pcm-stream.ts";
import { resampleBuffer as resamplePcm } from "../../../src/voice/media/resampler.ts";
import { SpeechProviderError, type TextToSpeech } from "../../../src/voice/speech/types.ts";
import {
  concatPcm,
  pcmBytes,
  readWav,
  rms,
  startFakeDeepgram,
  startFakeElevenLabs,
  startFakeOpenAiAudio,
  tone,
  toneFrequency,
  type FakeDeepgram,
  type FakeElevenLabs,
  type FakeOpenAiAudio,
} from "../../helpers/fake-speech/index.ts";

const KEY = "sk-test-key";

function connectionTo(kind: ProviderConnection["kind"], baseUrl: string, options: { apiKey?: string | null; allowPrivate?: boolean; resolve?: ProviderConnection["policy"]["resolve"] } = {}): ProviderConnection {
  return { id: "prv_test", kind, baseUrl, apiKey: options.apiKey === undefined ? KEY : options.apiKey, policy: { allowPrivate: options.allowPrivate ?? true, resolve: options.resolve } };
}

async function collect(stream: AsyncIterable<Int16Array>): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return concatPcm(chunks);
}

async function rejection(promise: Promise<unknown>): Promise<SpeechProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SpeechProviderError);
    return error as SpeechProviderError;
  }
  throw new Error("expected a rejection");
}

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

/** Feeds `pcm` in 20 ms frames, as the call loop does. */
function writeFrames(session: { write(pcm: Int16Array): void }, pcm: Int16Array, rate: number) {
  const frame = (rate * 20) / 1000;
  for (let at = 0; at < pcm.length; at += frame) session.write(pcm.subarray(at, at + frame));
}

describe("provider audio rates through the shared resampler", () => {
  const cases: [number, number][] = [
    [24_000, 8_000],
    [24_000, 16_000],
    [16_000, 24_000],
    [22_050, 16_000],
    [16_000, 8_000],
    [8_000, 16_000],
  ];
  for (const [from, to] of cases) {
    test(`${from} Hz → ${to} Hz keeps length, pitch and level`, () => {
      const input = tone(from, 500, 1000, 10_000);
      const output = resamplePcm(input, from, to);
      expect(output.length).toBe(Math.ceil((input.length * to) / from));
      expect(toneFrequency(output, to)).toBeCloseTo(1000, -1);
      const middle = [Math.floor(output.length * 0.1), Math.floor(output.length * 0.9)] as const;
      expect(rms(output, ...middle) / rms(input)).toBeGreaterThan(0.97);
      expect(rms(output, ...middle) / rms(input)).toBeLessThan(1.03);
    });
  }

  test("downsampling filters out what the lower rate cannot carry instead of folding it back", () => {
    const high = tone(24_000, 300, 6_000, 10_000); // above the 4 kHz Nyquist of 8 kHz
    const output = resamplePcm(high, 24_000, 8_000);
    expect(rms(output) / rms(high)).toBeLessThan(0.02);
  });

  test("equal rates pass through; PCM bytes split at odd offsets reassemble", () => {
    const pcm = tone(16_000, 20);
    expect(resamplePcm(pcm, 16_000, 16_000)).toEqual(pcm);
    const bytes = pcmBytes(pcm);
    const decoder = new PcmDecoder();
    const parts = [bytes.subarray(0, 1), bytes.subarray(1, 4), bytes.subarray(4, 5), bytes.subarray(5)];
    expect(Array.from(concatPcm(parts.map((p) => decoder.push(p))))).toEqual(Array.from(pcm));
  });
});

describe("OpenAI transcription (batch, multipart)", () => {
  let fake: FakeOpenAiAudio;
  beforeAll(() => (fake = startFakeOpenAiAudio({ apiKey: KEY })));
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.configure({ transcript: "I would like to book a table", ttfbMs: 0, fail: null });
  });

  test("uploads the utterance as one WAV file with model and language fields, and returns the text", async () => {
    const stt = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url));
    expect(stt.id).toBe("openai:prv_test");
    const session = stt.start({ language: "en-US", sampleRate: 16_000 });
    const speech = tone(16_000, 640, 300);
    writeFrames(session, speech, 16_000);
    expect(fake.requests).toHaveLength(0); // batch: nothing leaves before finish()
    const transcript = await session.finish();
    expect(transcript).toEqual({ text: "I would like to book a table", confidence: null });

    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0];
    expect(request.path).toBe("/v1/audio/transcriptions");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers["content-type"]).toStartWith("multipart/form-data; boundary=");
    expect(request.upload!.fields).toEqual({ model: "whisper-1", language: "en", response_format: "json" });
    expect(request.upload!.file.name).toBe("utterance.wav");
    expect(request.upload!.file.type).toMatch(/^audio\/(x-)?wav$/); // sent as audio/wav; Bun's parser reports audio/x-wav
    expect(request.upload!.wav).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    expect(Array.from(request.upload!.wav!.samples)).toEqual(Array.from(speech));
  });

  test("the agent's model wins; an undetermined language is left for the model to detect", async () => {
    const stt = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url), { model: "gpt-4o-mini-transcribe" });
    const session = stt.start({ language: "und", sampleRate: 8_000, model: "whisper-large-v3" });
    writeFrames(session, tone(8_000, 300), 8_000);
    await session.finish();
    expect(fake.requests[0].upload!.fields).toEqual({ model: "whisper-large-v3", response_format: "json" });
    expect(fake.requests[0].upload!.wav!.sampleRate).toBe(8_000);
  });

  test("an utterance under OpenAI's 0.1 s minimum is empty without a request", async () => {
    const session = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url)).start({ language: "en", sampleRate: 16_000 });
    session.write(tone(16_000, 60));
    expect(await session.finish()).toEqual({ text: "", confidence: null });
    expect(fake.requests).toHaveLength(0);
  });

  test("errors carry the status and OpenAI's message", async () => {
    const wrongKey = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url, { apiKey: "sk-wrong" })).start({ language: "en", sampleRate: 16_000 });
    wrongKey.write(tone(16_000, 200));
    const unauthorized = await rejection(wrongKey.finish());
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.message).toContain("Incorrect API key provided");

    fake.configure({ fail: { status: 500, message: "The server had an error while processing your request." } });
    const broken = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url)).start({ language: "en", sampleRate: 16_000 });
    broken.write(tone(16_000, 200));
    const serverError = await rejection(broken.finish());
    expect(serverError.status).toBe(500);
    expect(serverError.message).toContain("The server had an error while processing your request.");
  });

  test("a slow server times out; abort() cancels an upload in flight", async () => {
    fake.configure({ ttfbMs: 400 });
    const slow = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url), { timeoutMs: 100 }).start({ language: "en", sampleRate: 16_000 });
    slow.write(tone(16_000, 200));
    const timedOut = await rejection(slow.finish());
    expect(timedOut.status).toBeNull();
    expect(timedOut.message).toContain("did not answer in time");

    const controller = new AbortController();
    const session = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url)).start({ language: "en", sampleRate: 16_000, signal: controller.signal });
    session.write(tone(16_000, 200));
    const started = Date.now();
    const pending = session.finish();
    setTimeout(() => controller.abort(), 50);
    expect((await rejection(pending)).message).toContain("aborted");
    expect(Date.now() - started).toBeLessThan(300);
  });

  describe("speculative transcription at a pause (transcribeSoFar)", () => {
    /** The fake answers with how much audio it was sent, so each answer shows which upload it came from. */
    const heard = () => fake.configure({ transcript: (upload) => `heard ${Math.round(upload.durationMs)} ms` });
    const start = (signal?: AbortSignal) => new OpenAiTranscriber(connectionTo("openai-compatible", fake.url)).start({ language: "en", sampleRate: 16_000, signal });

    test("uploads the audio so far while the session keeps listening; finish() with nothing written since reuses it", async () => {
      heard();
      const session = start();
      const speech = tone(16_000, 400, 300);
      writeFrames(session, speech, 16_000);
      expect(await session.transcribeSoFar!()).toEqual({ text: "heard 400 ms", confidence: null });
      expect(fake.requests).toHaveLength(1);
      expect(Array.from(fake.requests[0].upload!.wav!.samples)).toEqual(Array.from(speech));
      expect(await session.transcribeSoFar!()).toEqual({ text: "heard 400 ms", confidence: null }); // same audio, same answer
      expect(await session.finish()).toEqual({ text: "heard 400 ms", confidence: null });
      expect(fake.requests).toHaveLength(1);

      // finish() while the speculative upload is still in flight waits for it rather than sending another.
      fake.configure({ ttfbMs: 150 });
      const slow = start();
      writeFrames(slow, speech, 16_000);
      const speculative = slow.transcribeSoFar!();
      expect(await slow.finish()).toEqual({ text: "heard 400 ms", confidence: null });
      expect(await speculative).toEqual({ text: "heard 400 ms", confidence: null });
      expect(fake.requests).toHaveLength(2);
    });

    test("audio written after the speculation makes finish() upload the whole utterance again", async () => {
      heard();
      const session = start();
      const first = tone(16_000, 400, 300);
      const more = tone(16_000, 300, 500);
      writeFrames(session, first, 16_000);
      const speculative = session.transcribeSoFar!();
      writeFrames(session, more, 16_000); // the caller went on while the upload was in flight
      expect((await speculative).text).toBe("heard 400 ms");
      expect(await session.finish()).toEqual({ text: "heard 700 ms", confidence: null });
      expect(fake.requests).toHaveLength(2);
      expect(Array.from(fake.requests[1].upload!.wav!.samples)).toEqual([...first, ...more]);
    });

    test("under 0.1 s is empty without a request; a failure rejects only that speculation; the session stays usable", async () => {
      heard();
      const session = start();
      session.write(tone(16_000, 60));
      expect(await session.transcribeSoFar!()).toEqual({ text: "", confidence: null });
      expect(fake.requests).toHaveLength(0);
      writeFrames(session, tone(16_000, 340), 16_000);
      fake.configure({ fail: { status: 500, message: "The server had an error while processing your request." } });
      expect((await rejection(session.transcribeSoFar!())).status).toBe(500);
      fake.configure({ fail: null });
      expect(await session.finish()).toEqual({ text: "heard 400 ms", confidence: null }); // uploads again rather than reusing the failure
      expect(fake.requests).toHaveLength(2);
      expect((await rejection(session.transcribeSoFar!())).message).toContain("finished");
    });

    test("abort cancels a speculative upload in flight, and finish() then rejects", async () => {
      fake.configure({ ttfbMs: 400 });
      const controller = new AbortController();
      const session = start(controller.signal);
      session.write(tone(16_000, 200));
      const began = Date.now();
      const speculative = session.transcribeSoFar!();
      setTimeout(() => controller.abort(), 50);
      expect((await rejection(speculative)).message).toContain("aborted");
      expect(Date.now() - began).toBeLessThan(300);
      expect((await rejection(session.finish())).message).toContain("aborted");
      expect(fake.requests).toHaveLength(1);
    });
  });

  test("URL rules: a loopback base URL is refused before any request when private URLs are off", async () => {
    const session = new OpenAiTranscriber(connectionTo("openai-compatible", fake.url, { allowPrivate: false })).start({ language: "en", sampleRate: 16_000 });
    session.write(tone(16_000, 200));
    expect((await rejection(session.finish())).message).toContain("refused by the URL rules");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("OpenAI speech (streaming PCM)", () => {
  let fake: FakeOpenAiAudio;
  beforeAll(() => (fake = startFakeOpenAiAudio({ apiKey: KEY })));
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.configure({ ttfbMs: 0, chunkBytes: 4800, chunkDelayMs: 2, msPerChar: 20, fail: null });
  });
  const text = "Your table for two is booked for eight o'clock."; // 48 characters → 960 ms at 20 ms/char

  test("posts model, input, voice, speed and response_format pcm with the bearer key", async () => {
    const tts = new OpenAiSpeech(connectionTo("openai-compatible", fake.url));
    expect(tts.id).toBe("openai:prv_test");
    await collect(tts.synthesize(text, { voice: "nova", speed: 1.25, sampleRate: 24_000 }));
    const request = fake.requests[0];
    expect(request.path).toBe("/v1/audio/speech");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.json).toEqual({ model: "tts-1", input: text, voice: "nova", speed: 1.25, response_format: "pcm" });
  });

  test("24 kHz passes through sample-exact, even when the network splits samples", async () => {
    fake.configure({ chunkBytes: 4801 });
    const pcm = await collect(new OpenAiSpeech(connectionTo("openai-compatible", fake.url)).synthesize(text, { voice: "alloy", speed: 1, sampleRate: 24_000 }));
    expect(Array.from(pcm)).toEqual(Array.from(tone(24_000, text.length * 20, 440)));
  });

  for (const rate of [16_000, 8_000]) {
    test(`resampled to ${rate / 1000} kHz on the way: right length, pitch and level`, async () => {
      const pcm = await collect(new OpenAiSpeech(connectionTo("openai-compatible", fake.url)).synthesize(text, { voice: "alloy", speed: 1, sampleRate: rate }));
      expect(pcm.length).toBe(Math.ceil((text.length * 20 * rate) / 1000));
      expect(toneFrequency(pcm, rate)).toBeCloseTo(440, -1);
      expect(rms(pcm) / rms(tone(24_000, 500, 440))).toBeGreaterThan(0.95);
    });
  }

  test("a WAV answer (for servers without raw PCM) is read from its header", async () => {
    const tts = new OpenAiSpeech(connectionTo("openai-compatible", fake.url), { responseFormat: "wav", model: "kokoro" });
    const pcm = await collect(tts.synthesize(text, { voice: "af_bella", speed: 1, sampleRate: 16_000 }));
    expect(fake.requests[0].json).toMatchObject({ model: "kokoro", voice: "af_bella", response_format: "wav" });
    expect(pcm.length).toBe(Math.ceil((text.length * 20 * 16_000) / 1000));
    expect(toneFrequency(pcm, 16_000)).toBeCloseTo(440, -1);
  });

  test("the first chunk arrives while the server is still sending", async () => {
    fake.configure({ chunkDelayMs: 25 });
    const started = Date.now();
    let firstAt = 0;
    let serverDoneAtFirst: boolean | undefined;
    for await (const chunk of new OpenAiSpeech(connectionTo("openai-compatible", fake.url)).synthesize(text, { voice: "alloy", speed: 1, sampleRate: 8_000 })) {
      if (firstAt === 0 && chunk.length) {
        firstAt = Date.now() - started;
        serverDoneAtFirst = fake.requests[0].stream!.finished;
      }
    }
    const total = Date.now() - started;
    expect(serverDoneAtFirst).toBe(false);
    expect(firstAt).toBeLessThan(total / 3);
  });

  test("aborting the signal ends the stream quietly and hangs up on the server", async () => {
    fake.configure({ chunkDelayMs: 20, chunkBytes: 960 });
    const controller = new AbortController();
    let chunks = 0;
    for await (const _ of new OpenAiSpeech(connectionTo("openai-compatible", fake.url)).synthesize(text, { voice: "alloy", speed: 1, sampleRate: 16_000, signal: controller.signal })) {
      if (++chunks === 2) controller.abort();
      expect(chunks).toBeLessThan(4);
    }
    const log = fake.requests[0].stream!;
    await until(() => log.cancelled);
    expect(log.finished).toBe(false);
    expect(log.bytesSent).toBeLessThan(text.length * 20 * 48);
  });

  test("leaving the loop early also cancels the answer", async () => {
    fake.configure({ chunkDelayMs: 20, chunkBytes: 960 });
    for await (const _ of new OpenAiSpeech(connectionTo("openai-compatible", fake.url)).synthesize(text, { voice: "alloy", speed: 1, sampleRate: 16_000 })) break;
    await until(() => fake.requests[0].stream!.cancelled);
    expect(fake.requests[0].stream!.finished).toBe(false);
  });

  test("errors: 401 and 500 with OpenAI's message, header time-out, stalled stream", async () => {
    const say = (tts: TextToSpeech) => collect(tts.synthesize(text, { voice: "alloy", speed: 1, sampleRate: 16_000 }));
    const unauthorized = await rejection(say(new OpenAiSpeech(connectionTo("openai-compatible", fake.url, { apiKey: "sk-wrong" }))));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.message).toContain("Incorrect API key provided");

    fake.configure({ fail: { status: 500, message: "The server had an error while processing your request." } });
    const serverError = await rejection(say(new OpenAiSpeech(connectionTo("openai-compatible", fake.url))));
    expect(serverError.status).toBe(500);
    expect(serverError.message).toContain("The server had an error");

    fake.configure({ fail: null, ttfbMs: 400 });
    const slow = await rejection(say(new OpenAiSpeech(connectionTo("openai-compatible", fake.url), { connectTimeoutMs: 100 })));
    expect(slow.message).toContain("did not answer in time");

    fake.configure({ ttfbMs: 0, chunkDelayMs: 400, chunkBytes: 960 });
    const stalled = await rejection(say(new OpenAiSpeech(connectionTo("openai-compatible", fake.url), { idleTimeoutMs: 100 })));
    expect(stalled.message).toContain("stalled");
  });

  test("the header deadline does not cut off a long answer read slowly", async () => {
    fake.configure({ chunkDelayMs: 40, chunkBytes: 9600 });
    const pcm = await collect(new OpenAiSpeech(connectionTo("openai-compatible", fake.url), { connectTimeoutMs: 100 }).synthesize(text, { voice: "alloy", speed: 1, sampleRate: 24_000 }));
    expect(pcm.length).toBe(text.length * 20 * 24);
  });

  test("voices: OpenAI's documented names; any voice id goes through unchanged", async () => {
    const tts = new OpenAiSpeech(connectionTo("openai-compatible", fake.url));
    const voices = await tts.voices();
    expect(voices.map((v) => v.id)).toEqual(expect.arrayContaining(["alloy", "echo", "fable", "onyx", "nova", "shimmer"]));
    expect(voices[0]).toEqual({ id: "alloy", name: "Alloy", provider_id: "prv_test", language: "en", gender: null, description: null });
    expect((await new OpenAiSpeech(connectionTo("openai-compatible", fake.url), { voices: ["af_bella"] }).voices()).map((v) => v.id)).toEqual(["af_bella"]);
  });

  test("text over the 4096-character input limit goes out as several requests", async () => {
    const sentence = "This sentence is part of a very long answer. ";
    const long = sentence.repeat(Math.ceil(5000 / sentence.length));
    fake.configure({ msPerChar: 1, chunkDelayMs: 0 });
    await collect(new OpenAiSpeech(connectionTo("openai-compatible", fake.url)).synthesize(long, { voice: "alloy", speed: 1, sampleRate: 8_000 }));
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.every((r) => r.json.input.length <= 4096 && r.json.input.endsWith("."))).toBe(true);
  });

  test("URL rules: refused before any request", async () => {
    const error = await rejection(collect(new OpenAiSpeech(connectionTo("openai-compatible", fake.url, { allowPrivate: false })).synthesize(text, { voice: "alloy", speed: 1, sampleRate: 16_000 })));
    expect(error.message).toContain("refused by the URL rules");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("Deepgram live transcription (WebSocket)", () => {
  let fake: FakeDeepgram;
  beforeAll(() => (fake = startFakeDeepgram({ apiKey: KEY })));
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.handshakes.length = 0;
    fake.connections.length = 0;
    fake.configure({ script: ["I need to change", "my delivery address"], segmentMs: 400, interimEveryMs: 100, finalizeDelayMs: 0, ignoreFinalize: false, idleTimeoutMs: 10_000, rejectHandshake: null });
  });

  test("connects to /v1/listen with Token auth and the settings in the query", async () => {
    const stt = new DeepgramTranscriber(connectionTo("deepgram", fake.url));
    expect(stt.id).toBe("deepgram:prv_test");
    const session = stt.start({ language: "en-US", sampleRate: 16_000 });
    writeFrames(session, tone(16_000, 200), 16_000);
    await session.finish();
    expect(fake.handshakes).toHaveLength(1);
    const connection = fake.connections[0];
    expect(connection.headers.authorization).toBe(`Token ${KEY}`);
    expect(connection.query).toEqual({ encoding: "linear16", sample_rate: "16000", channels: "1", model: "nova-3", language: "en-US", interim_results: "true", endpointing: "300", punctuate: "true" });
  });

  test("streams audio as it is written, reports interim hypotheses, and finish() returns the finals joined", async () => {
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url), { model: "nova-2" }).start({ language: "en", sampleRate: 8_000 });
    const partials: string[] = [];
    session.onPartial = (text) => partials.push(text);
    const audio = tone(8_000, 700, 300);
    writeFrames(session, audio, 8_000);
    await until(() => fake.connections[0]?.audioBytes === audio.length * 2);
    expect(fake.connections[0].controls).toEqual([]); // audio went out before finish()
    expect(fake.connections[0].audioFrames).toBe(35);
    expect(partials.length).toBeGreaterThan(2);
    expect(partials).toContain("I need to change"); // first segment final (speech_final) at 400 ms
    expect(partials.at(-1)).toStartWith("I need to change my");

    const transcript = await session.finish();
    expect(transcript).toEqual({ text: "I need to change my delivery address", confidence: 0.98 });
    const connection = fake.connections[0];
    expect(connection.query.model).toBe("nova-2");
    expect(connection.controls.map((c) => c.type)).toEqual(["Finalize", "CloseStream"]);
    const finals = connection.sent.filter((m) => m.type === "Results" && m.is_final);
    expect(finals.map((m) => [m.channel.alternatives[0].transcript, m.speech_final, m.from_finalize])).toEqual([
      ["I need to change", true, false],
      ["my delivery address", false, true],
    ]);
    await fake.waitForClose(connection);
  });

  test("the fake: a script picked per connection may give it its own segment lengths (a caller whose words take a known time)", async () => {
    fake.hear((connection) => (connection.query.model === "slot-1" ? { segments: ["call me", "back tomorrow", "please"], segmentMs: [200, 250, 1000] } : "someone else"));
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url), { model: "slot-1" }).start({ language: "en", sampleRate: 8_000 });
    const audio = tone(8_000, 500, 300);
    writeFrames(session, audio, 8_000);
    await until(() => fake.connections[0]?.audioBytes === audio.length * 2);
    expect(await session.finish()).toEqual({ text: "call me back tomorrow please", confidence: 0.98 });
    // Its segments ended at 200 and 450 ms of audio, not every 400 ms as configured.
    const finals = fake.connections[0].sent.filter((m) => m.type === "Results" && m.is_final);
    expect(finals.map((m) => [m.channel.alternatives[0].transcript, m.start, m.duration, m.speech_final])).toEqual([
      ["call me", 0, 0.2, true],
      ["back tomorrow", 0.2, 0.25, true],
      ["please", 0.45, 0.05, false],
    ]);
  });

  test("the fake: a segment's speech apart from its pause: interims show all its words once the speech is heard, it is final after the pause", async () => {
    fake.hear(() => ({ segments: ["my number is", "four one five"], segmentMs: [900, 800], speechMs: [600, 700] }));
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url)).start({ language: "en", sampleRate: 8_000 });
    let sent = 0;
    const hear = async (ms: number) => {
      writeFrames(session, tone(8_000, ms, 300), 8_000);
      sent += ms * 16;
      await until(() => fake.connections[0]?.audioBytes === sent);
      const results = fake.connections[0].sent.filter((m) => m.type === "Results");
      return { interim: results.findLast((m) => !m.is_final)?.channel.alternatives[0].transcript, finals: results.filter((m) => m.is_final).map((m) => m.channel.alternatives[0].transcript) };
    };
    expect(await hear(300)).toEqual({ interim: "my number", finals: [] });
    // The caller has just stopped talking: the interim has every word said, as Deepgram's would.
    expect(await hear(300)).toEqual({ interim: "my number is", finals: [] });
    expect(await hear(200)).toEqual({ interim: "my number is", finals: [] }); // in the pause
    expect((await hear(400)).finals).toEqual(["my number is"]); // past the pause: the next segment began
    expect((await hear(400)).interim).toBe("four one five");
    expect((await session.finish()).text).toBe("my number is four one five");
  });

  test("audio written before the socket opens is queued, and finish() right away still works", async () => {
    fake.hear("just one thing");
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url)).start({ language: "en", sampleRate: 16_000 });
    writeFrames(session, tone(16_000, 300), 16_000);
    session.write(new Int16Array(0)); // never an empty frame: Deepgram reads it as "close"
    expect(await session.finish()).toEqual({ text: "just one thing", confidence: 0.98 });
    expect(fake.connections[0].audioBytes).toBe(300 * 16 * 2);
    expect(fake.connections[0].audioFrames).toBe(15);
  });

  test("nothing buffered: Finalize gets no answer, CloseStream's Metadata and close end the session", async () => {
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url)).start({ language: "en", sampleRate: 16_000 });
    expect(await session.finish()).toEqual({ text: "", confidence: null });
    const connection = fake.connections[0];
    expect(connection.sent.map((m) => m.type)).toEqual(["Metadata"]);
    expect((await fake.waitForClose(connection)).code).toBe(1000);
  });

  test("KeepAlive holds an idle socket open; without it Deepgram's NET-0001 close becomes an error", async () => {
    fake.configure({ idleTimeoutMs: 250 });
    const kept = new DeepgramTranscriber(connectionTo("deepgram", fake.url), { keepAliveMs: 80 }).start({ language: "en", sampleRate: 16_000 });
    kept.write(tone(16_000, 100));
    await Bun.sleep(600);
    kept.write(tone(16_000, 100));
    expect((await kept.finish()).text).toBe("I need to change"); // 200 ms of audio: still the first segment
    expect(fake.connections[0].controls.filter((c) => c.type === "KeepAlive").length).toBeGreaterThanOrEqual(3);

    const idle = new DeepgramTranscriber(connectionTo("deepgram", fake.url), { keepAliveMs: 5_000 }).start({ language: "en", sampleRate: 16_000 });
    idle.write(tone(16_000, 100));
    await until(() => fake.connections.length === 2);
    expect(await fake.waitForClose(fake.connections[1])).toMatchObject({ code: 1011, reason: "NET-0001", by: "server" });
    await Bun.sleep(20); // the close frame reaches the client
    const error = await rejection(idle.finish());
    expect(error.message).toContain("1011 NET-0001");
  });

  test("a wrong key is refused at the handshake with 401", async () => {
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url, { apiKey: "wrong" })).start({ language: "en", sampleRate: 16_000 });
    session.write(tone(16_000, 100));
    const error = await rejection(session.finish());
    expect(error.status).toBe(401);
    expect(error.message).toContain("check the API key");
    expect(fake.handshakes.map((h) => h.status)).toEqual([401]);
    expect(fake.connections).toHaveLength(0);
  });

  test("a server that never completes the handshake times out", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const session = new DeepgramTranscriber(connectionTo("deepgram", `http://127.0.0.1:${silent.port}`), { connectTimeoutMs: 150 }).start({ language: "en", sampleRate: 16_000 });
      session.write(tone(16_000, 100));
      expect((await rejection(session.finish())).message).toContain("no connection within 0.15 s");
    } finally {
      silent.stop(true);
    }
  });

  test("no final result in time rejects finish()", async () => {
    fake.configure({ ignoreFinalize: true });
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url), { finalizeTimeoutMs: 150 }).start({ language: "en", sampleRate: 16_000 });
    session.write(tone(16_000, 100));
    const started = Date.now();
    expect((await rejection(session.finish())).message).toContain("no final transcript within 0.15 s");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await fake.waitForClose()).by).toBe("client");
  });

  test("abort closes the socket; finish() then rejects", async () => {
    const controller = new AbortController();
    const session = new DeepgramTranscriber(connectionTo("deepgram", fake.url)).start({ language: "en", sampleRate: 16_000, signal: controller.signal });
    session.write(tone(16_000, 100));
    await until(() => fake.connections[0]?.audioBytes > 0);
    controller.abort();
    const closed = await fake.waitForClose();
    expect(closed).toMatchObject({ code: 1000, by: "client" });
    expect((await rejection(session.finish())).message).toContain("aborted");
  });

  test("URL rules: refused before any connection, also when the name resolves inside", async () => {
    const loopback = new DeepgramTranscriber(connectionTo("deepgram", fake.url, { allowPrivate: false })).start({ language: "en", sampleRate: 16_000 });
    loopback.write(tone(16_000, 100));
    expect((await rejection(loopback.finish())).message).toContain("refused by the URL rules");

    const rebinding = connectionTo("deepgram", "https://deepgram.example.com", { allowPrivate: false, resolve: async () => [{ address: "10.1.2.3", family: 4 }] });
    const inside = new DeepgramTranscriber(rebinding).start({ language: "en", sampleRate: 16_000 });
    expect((await rejection(inside.finish())).message).toContain("resolves to 10.1.2.3");
    expect(fake.handshakes).toHaveLength(0);
  });
});

describe("ElevenLabs speech (streaming PCM)", () => {
  let fake: FakeElevenLabs;
  beforeAll(() => (fake = startFakeElevenLabs({ apiKey: KEY })));
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.configure({ ttfbMs: 0, chunkBytes: 3200, chunkDelayMs: 2, msPerChar: 20, fail: null });
  });
  const voice = "21m00Tcm4TlvDq8ikWAM";
  const text = "Thanks for calling, how can I help?"; // 35 characters → 700 ms

  test("posts to the voice's stream endpoint with xi-api-key, pcm output format and the model", async () => {
    const tts = new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url));
    expect(tts.id).toBe("elevenlabs:prv_test");
    const pcm = await collect(tts.synthesize(text, { voice, speed: 1, sampleRate: 16_000 }));
    const request = fake.requests[0];
    expect(request.path).toBe(`/v1/text-to-speech/${voice}/stream`);
    expect(request.query).toEqual({ output_format: "pcm_16000" });
    expect(request.headers["xi-api-key"]).toBe(KEY);
    expect(request.headers.authorization).toBeUndefined();
    expect(request.json).toEqual({ text, model_id: "eleven_flash_v2_5" }); // speed 1: the voice's stored settings stay
    expect(Array.from(pcm)).toEqual(Array.from(tone(16_000, 700, 440)));
  });

  test("speed goes in voice_settings, within ElevenLabs' 0.7–1.2 range", async () => {
    const tts = new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url), { modelId: "eleven_multilingual_v2" });
    await collect(tts.synthesize(text, { voice, speed: 1.1, sampleRate: 16_000 }));
    await collect(tts.synthesize(text, { voice, speed: 2, sampleRate: 16_000 }));
    expect(fake.requests.map((r) => r.json)).toEqual([
      { text, model_id: "eleven_multilingual_v2", voice_settings: { speed: 1.1 } },
      { text, model_id: "eleven_multilingual_v2", voice_settings: { speed: 1.2 } },
    ]);
  });

  test("rates it produces are asked for directly; others are resampled from the nearest", async () => {
    const tts = new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url));
    const at8k = await collect(tts.synthesize(text, { voice, speed: 1, sampleRate: 8_000 }));
    const at48k = await collect(tts.synthesize(text, { voice, speed: 1, sampleRate: 48_000 }));
    const at11k = await collect(tts.synthesize(text, { voice, speed: 1, sampleRate: 11_025 }));
    expect(fake.requests.map((r) => r.query.output_format)).toEqual(["pcm_8000", "pcm_24000", "pcm_16000"]);
    expect(at8k.length).toBe(5_600);
    expect(at48k.length).toBe(33_600);
    expect(at11k.length).toBe(Math.ceil(0.7 * 11_025));
    expect(toneFrequency(at48k, 48_000)).toBeCloseTo(440, -1);
    expect(toneFrequency(at11k, 11_025)).toBeCloseTo(440, -1);
  });

  test("time to first byte is the server's, and audio flows before the answer is complete", async () => {
    fake.configure({ ttfbMs: 150, chunkDelayMs: 25 });
    const started = Date.now();
    let firstAt = 0;
    let serverDone: boolean | undefined;
    for await (const chunk of new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url)).synthesize(text, { voice, speed: 1, sampleRate: 16_000 })) {
      if (!firstAt && chunk.length) {
        firstAt = Date.now() - started;
        serverDone = fake.requests[0].stream!.finished;
      }
    }
    expect(firstAt).toBeGreaterThanOrEqual(140);
    expect(firstAt).toBeLessThan(Date.now() - started - 50);
    expect(serverDone).toBe(false);
  });

  test("abort stops the stream and the server sees the hang-up", async () => {
    fake.configure({ chunkDelayMs: 20, chunkBytes: 640 });
    const controller = new AbortController();
    let chunks = 0;
    for await (const _ of new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url)).synthesize(text, { voice, speed: 1, sampleRate: 16_000, signal: controller.signal })) {
      if (++chunks === 1) controller.abort();
    }
    expect(chunks).toBe(1);
    await until(() => fake.requests[0].stream!.cancelled);
    expect(fake.requests[0].stream!.finished).toBe(false);
  });

  test("errors carry the status and ElevenLabs' message", async () => {
    const say = (tts: TextToSpeech, voiceId = voice) => collect(tts.synthesize(text, { voice: voiceId, speed: 1, sampleRate: 16_000 }));
    const unauthorized = await rejection(say(new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url, { apiKey: "wrong" }))));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.message).toContain("Invalid API key");

    const unknownVoice = await rejection(say(new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url)), "no-such-voice"));
    expect(unknownVoice.status).toBe(404);
    expect(unknownVoice.message).toContain("was not found");

    fake.configure({ fail: { status: 500, message: "Internal server error, please retry" } });
    const serverError = await rejection(say(new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url))));
    expect(serverError.status).toBe(500);
    expect(serverError.message).toContain("Internal server error, please retry");

    fake.configure({ fail: null, ttfbMs: 400 });
    expect((await rejection(say(new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url), { connectTimeoutMs: 100 })))).message).toContain("did not answer in time");
  });

  test("voices come from GET /v1/voices, mapped to Parley's shape", async () => {
    const tts = new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url));
    expect(await tts.voices()).toEqual([
      { id: "21m00Tcm4TlvDq8ikWAM", name: "Rachel", provider_id: "prv_test", language: "en-US", gender: "female", description: "american, calm, young, narration" },
      { id: "pNInz6obpgDQGcFmaJgB", name: "Adam", provider_id: "prv_test", language: "en", gender: "male", description: "A deep, steady narrator." },
    ]);
    const request = fake.requests[0];
    expect([request.method, request.path, request.headers["xi-api-key"]]).toEqual(["GET", "/v1/voices", KEY]);
    expect((await rejection(new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url, { apiKey: "wrong" })).voices())).status).toBe(401);
  });

  test("URL rules: refused before any request", async () => {
    const refused = new ElevenLabsSpeech(connectionTo("elevenlabs", fake.url, { allowPrivate: false }));
    expect((await rejection(collect(refused.synthesize(text, { voice, speed: 1, sampleRate: 16_000 })))).message).toContain("refused by the URL rules");
    expect((await rejection(refused.voices())).message).toContain("refused by the URL rules");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("fake servers validate like the real ones", () => {
  test("OpenAI: missing model, wrong file type, too-short audio", async () => {
    const fake = startFakeOpenAiAudio({ apiKey: KEY });
    try {
      const post = (form: FormData) => fetch(`${fake.url}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form });
      const noModel = new FormData();
      noModel.append("file", new Blob([encodeWav(tone(16_000, 200), 16_000)]), "a.wav");
      expect((await post(noModel)).status).toBe(400);
      const text = new FormData();
      text.append("file", new Blob(["hello"]), "a.txt");
      text.append("model", "whisper-1");
      expect(((await (await post(text)).json()) as any).error.message).toContain("Invalid file format");
      const short = new FormData();
      short.append("file", new Blob([encodeWav(tone(16_000, 50), 16_000)]), "a.wav");
      short.append("model", "whisper-1");
      const answer = await post(short);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as any).error.code).toBe("audio_too_short");
      expect(readWav(encodeWav(tone(8_000, 100), 8_000))!.samples.length).toBe(800);
    } finally {
      fake.stop();
    }
  });

  test("Deepgram: handshake needs a WebSocket upgrade and a sample rate with the encoding", async () => {
    const fake = startFakeDeepgram({ apiKey: KEY });
    try {
      const plain = await fetch(`${fake.url}/v1/listen`, { headers: { authorization: `Token ${KEY}` } });
      expect(plain.status).toBe(400);
      const socket = new WebSocket(`${fake.url.replace("http", "ws")}/v1/listen?encoding=linear16`, { headers: { authorization: `Token ${KEY}` } });
      const closed = await new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));
      expect(closed).toBe(1006);
      expect(fake.handshakes.at(-1)!.status).toBe(400);
    } finally {
      fake.stop();
    }
  });
});
