// A PocketSphinx decoder's thread (see RecognitionThread in pocketsphinx.ts): it creates the decoder,
// decodes each utterance's audio as it arrives and answers its text. Decoding costs 5-7 ms of CPU per 20 ms of a
// caller's speech, and creating a decoder ~0.4 s; on the server's event loop both held up every live
// call's audio and every request. Resampling stays on the caller's side (the Emscripten-built
// resampler does not start inside a worker): audio arrives here at the model's 16 kHz.
import { Decoder, type PocketsphinxLocation, type PocketsphinxModel } from "./pocketsphinx-decoder.ts";

export type RecognitionRequest =
  /** `location`: the main thread's, so a thread loads the same libraries (the executable's carried copy or the OS's). */
  | { type: "create"; location: PocketsphinxLocation; args: string[] }
  /** `replay`: decode the start again once the decoder has adapted to this channel (see ADAPT_AFTER_SAMPLES). */
  | { type: "start"; utterance: number; model: PocketsphinxModel; replay: boolean }
  | { type: "partials" }
  | { type: "audio"; samples: Int16Array }
  | { type: "finish"; utterance: number }
  | { type: "abort" }
  /** Frees the decoder and ends the thread, after everything sent before it. */
  | { type: "close" };

export type RecognitionReply =
  | { type: "partial"; utterance: number; text: string }
  | { type: "result"; utterance: number; text: string }
  | { type: "error"; utterance: number; error: string }
  /** The decoder could not be created: its utterances end in errors, and it should be freed. */
  | { type: "failed"; error: string };

/**
 * An utterance that must adapt the decoder to its channel restarts once it has this much audio (1.5 s):
 * ending an utterance sets the decoder's normalisation to what it heard, and the audio so far is
 * decoded again from there while the caller is still talking. Replaying the whole utterance after it
 * ended put its full decode time (~1 s for a 3 s sentence) into the reply's latency; on Flite speech at
 * 8 kHz, adapting on 1.5 s is as accurate as on the whole utterance (first-utterance WER 25.8% vs 25.3%;
 * 31.1% without adapting), where 0.6 s and 1 s were not (29.3%, 28.0%). Shorter utterances replay at the end.
 */
const ADAPT_AFTER_SAMPLES = 16_000 * 1.5;

/**
 * How often partial hypotheses are computed when someone listens (in audio samples): every 100 ms, as
 * Deepgram's interims, so turn-taking 100 ms into a pause sees the last word (at 300 ms it read
 * "my number is four one fi" for "… five"); computing them costs no measurable decode time (9
 * utterances: 8.1–8.4 s either way, noise).
 */
const PARTIAL_EVERY_SAMPLES = (16_000 * 100) / 1000;

interface Utterance {
  id: number;
  model: PocketsphinxModel;
  /** The audio so far, kept until the decoder has adapted to this channel (null once it has, or need not). */
  replay: Int16Array[] | null;
  replaySamples: number;
  partials: boolean;
  samplesSincePartial: number;
  lastPartial: string;
  /** The first failure; the utterance's finish answers it. */
  error: string | null;
}

declare const self: Worker;

/** This thread's one decoder; null until created, or when creating it failed (`failure` says why). */
let decoder: Decoder | null = null;
/** Why the decoder does not exist, or can no longer be trusted: every later utterance fails with it. */
let failure: string | null = null;
let current: Utterance | null = null;

const message = (error: unknown) => String((error as Error)?.message ?? error);
const reply = (answer: RecognitionReply) => self.postMessage(answer);

self.onmessage = ({ data }: MessageEvent<RecognitionRequest>) => {
  switch (data.type) {
    case "create":
      try {
        decoder = Decoder.create(data.location, data.args);
      } catch (error) {
        failure = message(error);
        reply({ type: "failed", error: failure });
      }
      return;
    case "start":
      current = { id: data.utterance, model: data.model, replay: data.replay ? [] : null, replaySamples: 0, partials: false, samplesSincePartial: 0, lastPartial: "", error: failure };
      attempt(current, () => decoder!.startUtterance(data.model));
      return;
    case "partials":
      if (current) current.partials = true;
      return;
    case "audio":
      return decode(data.samples);
    case "finish":
      return finish(data.utterance);
    case "abort":
      if (!current) return;
      current = null;
      try {
        decoder?.endUtterance();
      } catch (error) {
        failure = message(error); // its next utterance fails, and the caller's side frees it then
      }
      return;
    case "close":
      // The decoder's ~100 MB are malloc'ed on this thread: ended without ps_free, they would stay taken.
      decoder?.free();
      decoder = null;
      process.exit(0); // in a worker, ends the thread only
  }
};

function attempt(utterance: Utterance, work: () => void): void {
  if (utterance.error) return;
  try {
    work();
  } catch (error) {
    utterance.error = message(error);
  }
}

function decode(samples: Int16Array): void {
  const utterance = current;
  if (!decoder || !utterance || utterance.error) return;
  attempt(utterance, () => decoder!.process(samples));
  if (utterance.replay) adaptEarly(utterance, samples);
  if (!utterance.partials || utterance.error) return;
  utterance.samplesSincePartial += samples.length;
  if (utterance.samplesSincePartial < PARTIAL_EVERY_SAMPLES) return;
  utterance.samplesSincePartial = 0;
  const partial = decoder.hypothesis();
  if (partial && partial !== utterance.lastPartial) reply({ type: "partial", utterance: utterance.id, text: (utterance.lastPartial = partial) });
}

/** Keeps the start of an utterance that must adapt; once there is enough, adapts and decodes it again. */
function adaptEarly(utterance: Utterance, samples: Int16Array): void {
  const kept = utterance.replay!;
  kept.push(samples);
  utterance.replaySamples += samples.length;
  if (utterance.replaySamples < ADAPT_AFTER_SAMPLES) return;
  utterance.replay = null;
  attempt(utterance, () => redecode(utterance.model, kept));
}

/** Ends the utterance (which adapts the decoder to what it heard) and decodes `audio` again from there. */
function redecode(model: PocketsphinxModel, audio: Int16Array[]): void {
  decoder!.endUtterance();
  decoder!.startUtterance(model);
  for (const samples of audio) decoder!.process(samples);
}

function finish(id: number): void {
  const utterance = current;
  if (!utterance || utterance.id !== id) return reply({ type: "error", utterance: id, error: "pocketsphinx utterance missing" });
  current = null;
  attempt(utterance, () => {
    if (utterance.replay) redecode(utterance.model, utterance.replay); // shorter than ADAPT_AFTER_SAMPLES
    decoder!.endUtterance();
  });
  if (utterance.error) return reply({ type: "error", utterance: id, error: utterance.error });
  reply({ type: "result", utterance: id, text: decoder!.hypothesis() });
}
