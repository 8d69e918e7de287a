import { DtmfDetector } from "../media/dtmf.ts";
import { rmsDbfs, samplesPerFrame } from "../media/frames.ts";
import { decodeG711 } from "../media/g711.ts";
import { FRAME_MS } from "../media/media-clock.ts";
import { StreamingResampler } from "../media/resampler.ts";
import { SpeechSegmenter, type SpeechSegmentEvent } from "../media/speech-segmenter.ts";
import { VoiceActivityDetector } from "../media/vad.ts";
import type { RecognitionSession, SpeechToText } from "../speech/types.ts";
import type { EndpointingDecision, EndpointingPolicy } from "../turns/endpointing.ts";
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
  /** The caller paused mid-utterance with these words so far: a reply may be prepared (not played). */
  paused(text: string): void;
  /** The caller went on after a pause that was reported. */
  resumed(): void;
  /** The caller finished one: its words (empty when nothing was recognised), in the order spoken. */
  heard(text: string, timing: TurnTiming, utterance: Utterance): void;
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
  /** How long a silence ends an utterance, judged on the words so far. */
  endpointing: EndpointingPolicy;
  /** The recogniser marks sentence ends (a cue for the endpointing). */
  punctuated: boolean;
  language: string;
  /** What the agent said last (an expected short answer may end sooner). */
  agentLast(): string | null;
  /** Caller turns are written through it, so they keep their place among turns known sooner. */
  transcript: TranscriptOrder;
  /** The call's timeline (ms of audio since the answer). */
  elapsedMs(): number;
}

/** A pause this long mid-utterance is a pause (a shorter gap is between words): a batch recogniser transcribes what it has. */
export const PAUSE_MS = 100;
/**
 * A pause is reported (and a reply may start) this long before the endpointing's wait runs out, or at
 * PAUSE_MS if that is later: about a reply's time to its first audio (a model's first token and a voice's
 * first byte), so a reply to a turn judged unfinished is not started, and paid for, in every short pause.
 */
export const PREEMPT_LEAD_MS = 600;
/**
 * The VAD keeps saying "speech" for up to 100 ms after a voice stops (its hangover); a frame this far
 * below the utterance's speech level is already quiet for the pause, so a reply can start that much sooner.
 */
const QUIET_BELOW_SPEECH_DB = 25;

/** One utterance of the caller's, as the conversation marks it. */
export interface Utterance {
  /** Said over the agent and judged a backchannel ("mm-hmm"): noted, not answered. */
  backchannel: boolean;
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
  private utterance: Utterance = { backchannel: false };
  /** What the recogniser has heard of the utterance so far, and the endpointing's verdict on it. */
  private hypothesisText = "";
  private decision: EndpointingDecision | null = null;
  private voicedMs = 0;
  private silentMs = 0;
  /** The utterance's speech level (dBFS, a running mean of its voiced frames). */
  private speechDb: number | null = null;
  private lastVoiceAt = 0;
  /** A pause was reported (and not yet resumed from). */
  private pauseReported = false;
  /** A batch recogniser's transcript of the audio up to a pause, and whether the caller spoke since. */
  private speculative: { text: Promise<string>; stale: boolean } | null = null;
  private closed = false;

  constructor(private readonly options: CallerAudioOptions, private readonly hooks: CallerAudioHooks) {
    this.frameSamples = samplesPerFrame(options.lineRate);
    this.vad = new VoiceActivityDetector({ sampleRate: options.lineRate, mode: 3 });
    this.segmenter = new SpeechSegmenter({ sampleRate: options.lineRate, minSpeechMs: 80, preRollMs: 300 });
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

  /** The recogniser gives words while the caller speaks (partials); a batch one only at a pause. */
  get partials(): boolean {
    return !!this.recognition && !this.recognition.session.transcribeSoFar;
  }

  /** What the recogniser has heard of the current utterance so far. */
  get hypothesis(): string {
    return this.hypothesisText;
  }

  /** The utterance being spoken now, for the conversation to mark. */
  get current(): Utterance {
    return this.utterance;
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
    if (event) return this.onSegment(event);
    if (!this.segmenter.speaking) return;
    const db = rmsDbfs(pcm);
    if (isSpeech && (this.speechDb === null || db > this.speechDb - QUIET_BELOW_SPEECH_DB)) {
      this.speechDb = this.speechDb === null ? db : this.speechDb * 0.9 + db * 0.1;
      this.voicedMs += FRAME_MS;
      this.silentMs = 0;
      this.lastVoiceAt = performance.now();
      if (this.speculative) this.speculative.stale = true;
      if (this.pauseReported) {
        this.pauseReported = false;
        this.hooks.resumed();
      }
      return;
    }
    this.silentMs += FRAME_MS;
    if (this.silentMs === PAUSE_MS) this.onPause();
    if (!this.pauseReported && this.silentMs >= PAUSE_MS && this.silentMs >= (this.decision?.waitMs ?? 0) - PREEMPT_LEAD_MS) this.reportPause();
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
      this.utterance = { backchannel: false };
      this.hypothesisText = "";
      this.voicedMs = event.detectedAtMs - event.atMs;
      this.silentMs = 0;
      this.speechDb = null;
      this.lastVoiceAt = performance.now();
      this.pauseReported = false;
      this.speculative = null;
      this.decide();
      this.abortRecognition();
      try {
        const session = this.options.stt.start({
          ...this.options.recognition,
          // Where the first sample written sits on the caller's audio timeline (the simulated recogniser matches on it).
          startedAtMs: this.frames * FRAME_MS - Math.round((event.audio.length / this.options.lineRate) * 1000),
        } as Parameters<SpeechToText["start"]>[0]);
        this.recognition = { session, place: this.options.transcript.open(this.utteranceStartMs) };
        session.onPartial = (text) => this.onHypothesis(session, text);
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
    const decision = this.decision;
    const timing: TurnTiming = {
      speechEndDetectedAt: performance.now(),
      lastVoiceAt: this.lastVoiceAt,
      endpointing: decision ? { waitMs: decision.waitMs, completeness: decision.completeness, reason: decision.reason } : undefined,
    };
    const startMs = this.utteranceStartMs;
    const endMs = this.options.elapsedMs() - this.segmenter.endpointingMs;
    const utterance = this.utterance;
    // A batch transcript taken at the pause covers the utterance when the caller said nothing since: no second upload.
    const speculative = this.speculative && !this.speculative.stale ? this.speculative.text : null;
    if (speculative) recognition?.session.abort();
    const transcript = speculative ? speculative.then((text) => ({ text })) : recognition ? recognition.session.finish() : Promise.resolve({ text: "" });
    this.speculative = null;
    const { transcript: order } = this.options;
    this.transcripts = this.transcripts.then(() =>
      transcript.then(
        (result) => {
          timing.confirmedAt = performance.now();
          timing.sttMs = timing.confirmedAt - timing.speechEndDetectedAt;
          const text = result.text.trim();
          if (this.closed) return;
          if (recognition) order.settle(recognition.place, text ? { role: "caller", text, start_ms: startMs, end_ms: Math.max(startMs, endMs), interrupted: false } : null);
          this.hooks.heard(text, timing, utterance);
        },
        (error) => {
          if (recognition) order.settle(recognition.place, null);
          this.hooks.recognitionError("stt_failed", (error as Error).message);
          timing.confirmedAt = performance.now();
          this.hooks.heard("", timing, utterance);
        },
      ),
    );
  }

  /** A partial hypothesis of the utterance in progress: the endpointing judges the words anew. */
  private onHypothesis(session: RecognitionSession, text: string): void {
    if (this.closed || this.recognition?.session !== session) return;
    const changed = text.trim() !== this.hypothesisText;
    this.hypothesisText = text.trim();
    this.decide();
    if (changed && this.pauseReported) this.repause();
  }

  /** Words that arrive during a reported pause replace those a reply was prepared on, or withdraw it until its time comes. */
  private repause(): void {
    if (this.hypothesisText && this.silentMs >= (this.decision?.waitMs ?? 0) - PREEMPT_LEAD_MS) {
      this.hooks.paused(this.hypothesisText);
      return;
    }
    this.pauseReported = false;
    this.hooks.resumed();
  }

  /** The wait that ends this utterance, from the words so far; applied to the silence already running. */
  private decide(): void {
    const { endpointing, punctuated, language, agentLast } = this.options;
    this.decision = endpointing.decide({ text: this.hypothesisText, punctuated, speechMs: this.voicedMs, agentLast: agentLast(), language });
    this.segmenter.endpointingMs = this.decision.waitMs;
  }

  /** The caller paused: a batch recogniser transcribes what it has so far; then the conversation hears of the pause. */
  private onPause(): void {
    const session = this.recognition?.session;
    if (!session) return;
    if (session.transcribeSoFar && (!this.speculative || this.speculative.stale)) {
      const speculative = {
        stale: false,
        text: session.transcribeSoFar().then(
          (result) => result.text.trim(),
          () => "",
        ),
      };
      this.speculative = speculative;
      void speculative.text.then((text) => {
        if (this.speculative !== speculative || speculative.stale || this.recognition?.session !== session || !text) return;
        const changed = text !== this.hypothesisText;
        this.hypothesisText = text;
        this.decide();
        if (changed && this.pauseReported) this.repause();
      });
    }
  }

  private reportPause(): void {
    if (!this.hypothesisText || this.pauseReported) return;
    this.pauseReported = true;
    this.hooks.paused(this.hypothesisText);
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
