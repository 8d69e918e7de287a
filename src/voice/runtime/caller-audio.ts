import { DtmfDetector } from "../media/dtmf.ts";
import { samplesPerFrame } from "../media/frames.ts";
import { decodeG711 } from "../media/g711.ts";
import { FRAME_MS } from "../media/media-clock.ts";
import { StreamingResampler } from "../media/resampler.ts";
import { SpeechSegmenter, type SpeechSegmentEvent } from "../media/speech-segmenter.ts";
import { VoiceActivityDetector } from "../media/vad.ts";
import type { RecognitionSession, SpeechToText } from "../speech/types.ts";
import type { TurnTiming } from "./latency.ts";
import type { TranscriptOrder } from "./transcript-order.ts";

/** What the caller's audio tells the conversation, as it happens. */
export interface CallerAudioHooks {
  /** A key heard in the audio (in-band DTMF). */
  digit(digit: string): void;
  /** The caller started an utterance. */
  speechStarted(): void;
  /** The caller stopped talking (the words follow through `heard`). */
  speechEnded(): void;
  /** The caller finished one: its words (empty when nothing was recognised), in the order spoken. */
  heard(text: string, timing: TurnTiming): void;
  /** The recogniser could not start or failed; the conversation goes on without the words. */
  recognitionError(code: "stt_unavailable" | "stt_failed", message: string): void;
}

export interface CallerAudioOptions {
  lineRate: number;
  encoding: "mulaw" | "alaw" | null;
  stt: SpeechToText;
  /** What the recogniser is started with (language, model, rate, the call's id…). */
  recognition: Omit<Parameters<SpeechToText["start"]>[0], "startedAtMs">;
  sttSampleRate: number;
  endpointingMs: number;
  /** Caller turns are written through it, so they keep their place among turns known sooner. */
  transcript: TranscriptOrder;
  /** The call's timeline (ms of audio since the answer). */
  elapsedMs(): number;
}

/**
 * The caller's side of a call, like LiveKit's audio recognition: decode each frame, listen for
 * keys and speech, and turn utterances into text with the recogniser, reporting through hooks.
 */
export class CallerAudio {
  readonly frameSamples: number;
  /** Frames received since the answer (the caller channel's position in the recording). */
  frames = 0;
  private readonly vad: VoiceActivityDetector;
  private readonly segmenter: SpeechSegmenter;
  private readonly dtmf: DtmfDetector;
  private readonly toRecogniser: StreamingResampler | null;
  /** Scratch for the decoded frame and its resampled copy: everything downstream copies what it keeps. */
  private readonly pcm: Int16Array;
  private recognitionPcm: Int16Array | null = null;
  private recognition: { session: RecognitionSession; place: ReturnType<TranscriptOrder["open"]> } | null = null;
  /** Transcripts are handled in the order the caller spoke, whichever recognition finishes first. */
  private transcripts: Promise<void> = Promise.resolve();
  private utteranceStartMs = 0;
  private closed = false;

  constructor(private readonly options: CallerAudioOptions, private readonly hooks: CallerAudioHooks) {
    this.frameSamples = samplesPerFrame(options.lineRate);
    this.vad = new VoiceActivityDetector({ sampleRate: options.lineRate, mode: 3 });
    this.segmenter = new SpeechSegmenter({ sampleRate: options.lineRate, endpointingMs: options.endpointingMs, minSpeechMs: 80, preRollMs: 300 });
    this.dtmf = new DtmfDetector({ sampleRate: options.lineRate });
    this.pcm = new Int16Array(this.frameSamples);
    this.toRecogniser = options.lineRate === options.sttSampleRate ? null : new StreamingResampler({ fromRate: options.lineRate, toRate: options.sttSampleRate });
  }

  /** The caller is mid-utterance. */
  get speaking(): boolean {
    return this.segmenter.speaking;
  }

  /** An utterance is being recognised (it has not ended yet). */
  get recognising(): boolean {
    return this.recognition !== null;
  }

  /** Decodes one frame from the carrier and listens for keys in it: its PCM, whether it is speech, and its sample offset. */
  decode(frame: Uint8Array): { pcm: Int16Array; isSpeech: boolean; at: number } {
    const { encoding } = this.options;
    const pcm = !encoding
      ? new Int16Array(frame.buffer, frame.byteOffset, frame.byteLength >> 1)
      : frame.length === this.frameSamples
        ? decodeG711(encoding, frame, this.pcm)
        : decodeG711(encoding, frame);
    const at = this.frames++ * this.frameSamples;
    for (const event of this.dtmf.push(pcm)) this.hooks.digit(event.digit);
    return { pcm, isSpeech: pcm.length === this.frameSamples && this.vad.isSpeech(pcm), at };
  }

  /** In conversation: finds where utterances start and end, and feeds the recogniser while one lasts. */
  listen(pcm: Int16Array, isSpeech: boolean): void {
    const event = this.segmenter.push(pcm, isSpeech);
    if (this.recognition && this.segmenter.speaking) this.toRecognition(pcm);
    if (event) this.onSegment(event);
  }

  /** The call ended: stop recognising and free the native pieces. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abortRecognition();
    this.vad.free();
    this.toRecogniser?.free();
  }

  private onSegment(event: SpeechSegmentEvent): void {
    if (event.type === "speech_start") {
      this.utteranceStartMs = this.options.elapsedMs();
      this.abortRecognition();
      try {
        const session = this.options.stt.start({
          ...this.options.recognition,
          // Where the first sample written sits on the caller's audio timeline (the simulated recogniser matches on it).
          startedAtMs: this.frames * FRAME_MS - Math.round((event.audio.length / this.options.lineRate) * 1000),
        } as Parameters<SpeechToText["start"]>[0]);
        this.recognition = { session, place: this.options.transcript.open(this.utteranceStartMs) };
        this.toRecognition(event.audio);
      } catch (error) {
        this.recognition = null;
        this.hooks.recognitionError("stt_unavailable", (error as Error).message);
      }
      this.hooks.speechStarted();
      return;
    }
    const recognition = this.recognition;
    this.recognition = null;
    this.hooks.speechEnded();
    const timing: TurnTiming = { speechEndDetectedAt: performance.now() };
    const startMs = this.utteranceStartMs;
    const endMs = this.options.elapsedMs() - this.options.endpointingMs;
    const transcript = recognition ? recognition.session.finish() : Promise.resolve({ text: "" });
    const { transcript: order } = this.options;
    this.transcripts = this.transcripts.then(() =>
      transcript.then(
        (result) => {
          timing.sttMs = performance.now() - timing.speechEndDetectedAt;
          const text = result.text.trim();
          if (this.closed) return;
          if (recognition) order.settle(recognition.place, text ? { role: "caller", text, start_ms: startMs, end_ms: Math.max(startMs, endMs), interrupted: false } : null);
          this.hooks.heard(text, timing);
        },
        (error) => {
          if (recognition) order.settle(recognition.place, null);
          this.hooks.recognitionError("stt_failed", (error as Error).message);
          this.hooks.heard("", timing);
        },
      ),
    );
  }

  private abortRecognition(): void {
    if (!this.recognition) return;
    this.recognition.session.abort();
    this.options.transcript.settle(this.recognition.place, null);
    this.recognition = null;
  }

  private toRecognition(pcm: Int16Array): void {
    const session = this.recognition?.session;
    if (!session) return;
    if (!this.toRecogniser) {
      session.write(pcm);
      return;
    }
    const room = this.toRecogniser.maxOutputSamples(pcm.length);
    if (!this.recognitionPcm || this.recognitionPcm.length < room) this.recognitionPcm = new Int16Array(room);
    const out = this.recognitionPcm;
    const written = this.toRecogniser.pushInto(pcm, out);
    if (written) session.write(out.subarray(0, written));
  }
}
