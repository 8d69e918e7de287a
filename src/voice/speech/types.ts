// The speech interfaces every engine implements (built-in offline engines and remote providers), so
// the conversation loop never knows which one it drives.
//
// Audio inside Parley is 16-bit signed little-endian PCM, mono. Telephony arrives at 8 kHz (G.711)
// and is resampled; engines state the rate they accept and produce.

export interface Voice {
  /** The value an agent's `voice.voice_id` takes. */
  id: string;
  name: string;
  /** `builtin` or the provider connection id that serves it. */
  provider_id: string;
  language: string;
  gender: "female" | "male" | "neutral" | null;
  description: string | null;
}

export interface SynthesisOptions {
  voice: string;
  /** 1.0 = normal; 0.5–2.0. */
  speed: number;
  /** Rate the caller wants the PCM in; the engine resamples if it produces another. */
  sampleRate: number;
  signal?: AbortSignal;
}

export interface TextToSpeech {
  /** Stable id for logs and the call timeline, e.g. `builtin:flite`, `elevenlabs:prv_…`. */
  readonly id: string;
  /**
   * Streams the spoken text as PCM16 mono chunks at `options.sampleRate`. The first chunk should come
   * as early as the engine can (time to first byte is measured per turn). Aborting the signal stops
   * synthesis promptly (barge-in).
   */
  synthesize(text: string, options: SynthesisOptions): AsyncIterable<Int16Array>;
  voices(): Promise<Voice[]>;
  /** Gets ready for a call about to speak (a local engine loads meanwhile, off the event loop); optional. */
  warm?(): void;
}

export interface RecognitionOptions {
  /** BCP 47, e.g. en-US. */
  language: string;
  /** Rate of the PCM that will be written. */
  sampleRate: number;
  model?: string;
  signal?: AbortSignal;
  /** Where the audio comes from (a call id): engines that adapt to the channel start over when it changes. */
  channel?: string;
}

export interface Transcript {
  text: string;
  /** 0–1 when the engine says; null otherwise. */
  confidence: number | null;
}

/**
 * One utterance's recognition. The loop writes the caller's audio while they speak (from the start
 * of speech that VAD detected) and calls `finish()` when endpointing decides they are done.
 * Streaming engines transcribe as audio arrives; batch engines transcribe the buffer in finish().
 */
export interface RecognitionSession {
  write(pcm: Int16Array): void;
  /** Partial hypotheses as they form (streaming engines, the built-in ones); used for barge-in and end-of-turn decisions. */
  onPartial?: (text: string) => void;
  /**
   * Transcribes the audio written so far without ending the session, which keeps accepting audio
   * (batch engines, which have no partials): used at a pause to start a reply early. finish() reuses
   * the result when nothing was written since, so a runtime that may end the utterance in that pause
   * should stop writing during it. A failure rejects only this promise; the session stays usable.
   */
  transcribeSoFar?(): Promise<Transcript>;
  finish(): Promise<Transcript>;
  abort(): void;
}

export interface SpeechToText {
  readonly id: string;
  /** Its transcripts mark sentence ends (. ? !): the endpointing reads a missing mark as "not finished yet". */
  readonly punctuates?: boolean;
  /** Throws SpeechUnavailable when the engine cannot run here (e.g. no offline model installed). */
  start(options: RecognitionOptions): RecognitionSession;
}

/** The engine exists but cannot run on this machine; `reason` says what is missing, for humans. */
export class SpeechUnavailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A remote speech provider failed (HTTP status, time-out, protocol error). */
export class SpeechProviderError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message);
  }
}
