import type { AppContext } from "../../core/context.ts";
import type { AgentConfig } from "../agent-config.ts";
import type { CallLeg, LegEndReason } from "../../telephony/types.ts";
import { AgentConversation, type ConversationState } from "../brains/agent-brain.ts";
import type { BrainServices } from "../brains/services.ts";
import type { FlowAction } from "../brains/flow/engine.ts";
import { DtmfDetector } from "../media/dtmf.ts";
import { PcmFramer } from "../media/framer.ts";
import { samplesPerFrame } from "../media/frames.ts";
import { decodeG711, encodeG711 } from "../media/g711.ts";
import { StreamingResampler } from "../media/resampler.ts";
import { SpeechSegmenter, type SpeechSegmentEvent } from "../media/speech-segmenter.ts";
import { BeepDetector } from "../media/tones.ts";
import { VoiceActivityDetector } from "../media/vad.ts";
import { StereoWavWriter } from "../media/wav-writer.ts";
import type { RecognitionSession, SpeechToText, TextToSpeech } from "../speech/types.ts";
import { AnsweringMachineDetector } from "./amd.ts";
import { FRAME_MS, type MediaClock } from "../media/media-clock.ts";
import { PlaybackQueue, type SpokenSegment } from "./playback.ts";
import type { CallEnding, CallJournal } from "./journal.ts";
import { liveCalls, type LiveCall } from "./registry.ts";
import { SentenceSplitter } from "./sentences.ts";

export interface CallSessionOptions {
  ctx: AppContext;
  call: { id: string; workspaceId: string; agentId: string; variables: Record<string, unknown> };
  /** Where the call's events are recorded. */
  journal: CallJournal;
  /** What the agent's brain may use (tools, knowledge, its language model). */
  brains: BrainServices;
  agent: AgentConfig;
  leg: CallLeg;
  tts: TextToSpeech;
  stt: SpeechToText;
  /** Rate the recogniser wants (16 kHz for the offline one). */
  sttSampleRate: number;
  /** Outbound calls listen for an answering machine before the agent speaks. */
  screenForMachine: boolean;
  recordingPath: string | null;
  clock: MediaClock;
  /** Slots and settings the recogniser may need beyond the audio (the simulated one's call id). */
  recognitionContext?: Record<string, unknown>;
}

/** Why a response in progress was cancelled: each cause leaves the conversation in a different state. */
type ResponseKind = "brain" | "reminder" | "say" | "voicemail";

type ResponseCancel =
  /** The caller went on talking before the agent said a word: the response never happened. */
  | { cause: "dropped" }
  /** The caller talked over the agent: what they heard of it was said. */
  | { cause: "barge_in"; heard: string }
  | { cause: "ended" };

/** Keys arriving within this long of each other form one entry (or until `#`). */
const DIGIT_GAP_MS = 1500;
/** Calls must keep sending audio; this much silence from the transport means it is gone. */
const TRANSPORT_SILENCE_LIMIT_MS = 15_000;

interface TurnTiming {
  speechEndDetectedAt: number;
  sttMs?: number;
  brainStartedAt?: number;
  firstTextAt?: number;
  ttsRequestedAt?: number;
  firstAudioAt?: number;
  firstFrameAt?: number;
}

type Phase = "connecting" | "screening" | "waiting_for_beep" | "conversing" | "ending" | "ended";

/**
 * One live call: the conversation loop. Caller audio → decode → VAD and endpointing → speech to
 * text → the agent's brain → sentence by sentence speech → encode → the carrier, with the recorder
 * on both directions, turn-taking (barge-in, silence, max duration, DTMF) and the call's timeline.
 */
export class CallSession implements LiveCall {
  readonly callId: string;
  readonly workspaceId: string;
  readonly maxDurationMs: number;
  answeredAt: number | null = null;
  /** Settles once the call has ended and its outcome is recorded. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  private readonly ctx: AppContext;
  private readonly journal: CallJournal;
  private readonly agent: AgentConfig;
  private readonly leg: CallLeg;
  private readonly tts: TextToSpeech;
  private readonly stt: SpeechToText;
  private readonly options: CallSessionOptions;
  private readonly conversation: AgentConversation;
  private state: ConversationState;
  private phase: Phase = "connecting";

  private readonly lineRate: number;
  private readonly frameSamples: number;
  private readonly law: "mulaw" | "alaw" | null;
  private readonly vad: VoiceActivityDetector;
  private readonly segmenter: SpeechSegmenter;
  private readonly dtmf: DtmfDetector;
  private beeps: BeepDetector | null = null;
  private amd: AnsweringMachineDetector | null = null;
  private toRecogniser: StreamingResampler | null;
  private recorder: StereoWavWriter | null = null;
  private readonly playback = new PlaybackQueue();
  /** Scratch for the caller's decoded frame and its resampled copy: everything downstream copies what it keeps. */
  private readonly callerPcm: Int16Array;
  private recognitionPcm: Int16Array | null = null;

  private recognition: RecognitionSession | null = null;
  /** Transcripts are handled in the order the caller spoke, whichever recognition finishes first. */
  private transcripts: Promise<void> = Promise.resolve();
  private utteranceStartMs = 0;
  /** Caller text not yet answered: a response dropped before the agent said anything, or words heard while the caller went on. */
  private pendingCallerText = "";
  private responding: AbortController | null = null;
  /** The response in progress may be dropped when the caller goes on talking before it is heard (not a greeting). */
  private droppable = false;
  private responseChain: Promise<void> = Promise.resolve();
  private agentTurnStartMs: number | null = null;
  private agentSpeaking = false;
  private bargeInSpeechMs = 0;
  private afterPlayback: (() => void) | null = null;
  private timing: TurnTiming | null = null;
  /**
   * Who the latest response speaks for: the brain's words are in its history (a barge-in trims them
   * there too); a reminder does not restart the silence count.
   */
  private speakingFor: ResponseKind = "brain";

  private elapsedMs = 0;
  private callerFrames = 0;
  private lastTransportAudio = performance.now();
  private readonly dialledAt = performance.now();
  private lastActivityMs = 0;
  private remindedAt: number | null = null;
  private digits = "";
  private lastDigitMs = 0;
  private firstDigitMs = 0;
  private unsubscribe: (() => void) | null = null;
  private slots: Record<string, unknown> = {};

  constructor(options: CallSessionOptions) {
    this.options = options;
    this.ctx = options.ctx;
    this.journal = options.journal;
    this.callId = options.call.id;
    this.workspaceId = options.call.workspaceId;
    this.agent = options.agent;
    this.leg = options.leg;
    this.tts = options.tts;
    this.stt = options.stt;
    this.maxDurationMs = this.agent.turn_taking.max_duration_s * 1000;
    this.lineRate = this.leg.format.sampleRate;
    this.frameSamples = samplesPerFrame(this.lineRate);
    this.law = this.leg.format.encoding === "pcmu" ? "mulaw" : this.leg.format.encoding === "pcma" ? "alaw" : null;
    this.vad = new VoiceActivityDetector({ sampleRate: this.lineRate, mode: 3 });
    this.segmenter = new SpeechSegmenter({
      sampleRate: this.lineRate,
      endpointingMs: this.agent.turn_taking.endpointing_ms,
      minSpeechMs: 80,
      preRollMs: 300,
    });
    this.dtmf = new DtmfDetector({ sampleRate: this.lineRate });
    this.callerPcm = new Int16Array(this.frameSamples);
    this.toRecogniser = this.lineRate === options.sttSampleRate ? null : new StreamingResampler({ fromRate: this.lineRate, toRate: options.sttSampleRate });
    this.conversation = new AgentConversation(options.brains, this.agent, {
      workspaceId: this.workspaceId,
      agentId: options.call.agentId,
      callId: this.callId,
      variables: options.call.variables,
    });
    this.state = this.conversation.initialState();
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Wires the leg; the call goes live when the carrier says it was answered. */
  start(): void {
    liveCalls(this.ctx).set(this.callId, this);
    this.leg.onEvent((event) => {
      if (event.type === "answered") this.onAnswered();
      else if (event.type === "ended") this.onLegEnded(event.reason, event.detail);
    });
    this.leg.onAudio((frame) => this.onCallerFrame(frame));
    this.leg.onDtmf((digit) => this.onDigit(digit, "out-of-band"));
  }

  // ---------------------------------------------------------------- the API's controls (LiveCall)

  hangup(reason = "agent_hangup"): void {
    this.finish({ status: "completed", endReason: reason });
  }

  say(text: string): void {
    this.journal.note("say", { text });
    this.enqueueResponse(async (signal) => {
      await this.speakText(text, signal);
      return null;
    }, false, { kind: "say" });
  }

  async transfer(to: string, reason: string | null): Promise<void> {
    await this.doTransfer(to, reason);
  }

  silentForMs(): number {
    return performance.now() - this.lastTransportAudio;
  }

  ringingForMs(): number {
    return this.phase === "connecting" ? performance.now() - this.dialledAt : 0;
  }

  terminate(reason: "max_duration" | "transport_lost" | "never_answered" | "shutdown"): void {
    if (reason === "shutdown") {
      const answered = this.phase !== "connecting";
      this.finish({ status: answered ? "failed" : "canceled", endReason: "server_shutdown" }, true, "the server stopped while the call was live");
    } else if (reason === "max_duration") this.finish({ status: "completed", endReason: "max_duration" }, true, "the watchdog ended a call past its max duration");
    else if (reason === "never_answered") {
      this.finish({ status: "no_answer", endReason: "no_answer" }, true, `the carrier said neither answered nor failed in ${Math.round(this.ringingForMs() / 1000)} s`);
    } else {
      const message = `the carrier sent no audio for ${Math.round(this.silentForMs() / 1000)} s: the line is gone`;
      this.journal.error("transport_lost", message, true);
      this.finish({ status: "failed", endReason: "error" }, true, message);
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /** A getter, not a comparison, because awaits and callbacks can end the call between two checks. */
  private get ended(): boolean {
    return this.phase === "ended";
  }

  private onAnswered(): void {
    if (this.phase !== "connecting") return;
    this.journal.answered();
    this.answeredAt = this.ctx.clock.now();
    this.lastTransportAudio = performance.now();
    if (this.options.recordingPath) this.recorder = new StereoWavWriter(this.options.recordingPath, { sampleRate: this.lineRate });
    this.unsubscribe = this.options.clock.subscribe(() => this.onTick());
    if (this.options.screenForMachine) {
      this.phase = "screening";
      this.amd = new AnsweringMachineDetector();
      this.beeps = new BeepDetector({ sampleRate: this.lineRate });
      return;
    }
    this.beginConversation();
  }

  private beginConversation(): void {
    this.phase = "conversing";
    this.lastActivityMs = this.elapsedMs;
    this.enqueueResponse(async (signal) => {
      const opening = await this.conversation.open(this.state);
      for (const text of opening.say) await this.speakText(text, signal);
      return opening.action;
    }, true);
  }

  private onLegEnded(reason: LegEndReason, detail?: string): void {
    if (this.ended) return;
    if (this.phase === "connecting") {
      const status = reason === "busy" ? "busy" : reason === "no_answer" ? "no_answer" : reason === "rejected" ? "canceled" : "failed";
      this.finish({ status, endReason: reason === "remote_hangup" ? "customer_hangup" : reason }, false, detail);
      return;
    }
    this.finish({ status: "completed", endReason: reason === "transferred" ? "transferred" : "customer_hangup" }, false, detail);
  }

  /** Ends the call exactly once: stops audio, closes the recording, and records the outcome. */
  private finish(ending: CallEnding, hangUpLeg = true, detail?: string): void {
    if (this.ended) return;
    const wasAnswered = this.phase !== "connecting";
    this.phase = "ended";
    this.responding?.abort({ cause: "ended" } satisfies ResponseCancel);
    this.recognition?.abort();
    this.recognition = null;
    this.unsubscribe?.();
    if (this.agentTurnStartMs !== null) this.closeAgentTurn(this.playback.heardText(), true);
    this.playback.clear();
    if (hangUpLeg) this.leg.hangup();
    const recording = this.recorder?.close() ?? null;
    this.vad.free();
    this.toRecogniser?.free();
    if (detail) this.journal.note("carrier", { detail });
    this.journal.end({
      ...ending,
      recordingPath: wasAnswered && recording ? recording.path : null,
      durationMs: wasAnswered ? this.elapsedMs : 0,
      slots: this.state.brain === "flow" ? { ...this.state.flow.slots, ...this.slots } : this.slots,
    });
    liveCalls(this.ctx).delete(this.callId);
    this.resolveDone();
  }

  // ---------------------------------------------------------------- audio from the caller

  private onCallerFrame(frame: Uint8Array): void {
    if (this.ended || this.phase === "connecting") return;
    this.lastTransportAudio = performance.now();
    const pcm = !this.law ? new Int16Array(frame.buffer, frame.byteOffset, frame.byteLength >> 1) : frame.length === this.frameSamples ? decodeG711(this.law, frame, this.callerPcm) : decodeG711(this.law, frame);
    this.recorder?.writeAt("caller", pcm, this.callerFrames * this.frameSamples);
    this.callerFrames++;
    for (const event of this.dtmf.push(pcm)) this.onDigit(event.digit, "in-band");
    const isSpeech = pcm.length === this.frameSamples && this.vad.isSpeech(pcm);
    const beep = this.beeps ? this.beeps.push(pcm).length > 0 : false;

    if (this.phase === "screening") {
      const verdict = this.amd!.push(FRAME_MS, isSpeech, beep);
      if (verdict) this.onMachineVerdict(verdict);
      return;
    }
    if (this.phase === "waiting_for_beep") {
      if (beep) this.leaveVoicemail("beep");
      return;
    }
    const event = this.segmenter.push(pcm, isSpeech);
    if (this.recognition && this.segmenter.speaking) this.toRecognition(pcm);
    if (event) this.onSegment(event);
    // Barge-in: the caller talks over the agent long enough to mean it.
    if (isSpeech && this.agentSpeaking && this.agent.turn_taking.interruptions.enabled) {
      this.bargeInSpeechMs += FRAME_MS;
      if (this.bargeInSpeechMs >= this.agent.turn_taking.interruptions.min_speech_ms) this.interrupt();
    } else if (!isSpeech) this.bargeInSpeechMs = 0;
  }

  private onSegment(event: SpeechSegmentEvent): void {
    if (event.type === "speech_start") {
      this.remindedAt = null;
      // While the agent talks without barge-in, its own turn is not interrupted: the caller's words still count.
      this.utteranceStartMs = this.elapsedMs;
      this.recognition?.abort();
      try {
        this.recognition = this.stt.start({
          language: this.agent.transcriber.language ?? this.agent.language,
          sampleRate: this.options.sttSampleRate,
          model: this.agent.transcriber.model,
          channel: this.callId,
          ...(this.options.recognitionContext ?? {}),
          // Where the first sample written sits on the caller's audio timeline (the simulated recogniser matches on it).
          startedAtMs: this.callerFrames * FRAME_MS - Math.round((event.audio.length / this.lineRate) * 1000),
        } as Parameters<SpeechToText["start"]>[0]);
        this.toRecognition(event.audio);
      } catch (error) {
        this.recognition = null;
        this.journal.error("stt_unavailable", (error as Error).message, false);
      }
      // A response still being prepared is dropped: the caller has more to say.
      if (this.responding && this.droppable && !this.agentSpeaking) {
        this.responding.abort({ cause: "dropped" } satisfies ResponseCancel);
        this.responding = null;
      }
      return;
    }
    const recognition = this.recognition;
    this.recognition = null;
    this.lastActivityMs = this.elapsedMs;
    const timing: TurnTiming = { speechEndDetectedAt: performance.now() };
    const startMs = this.utteranceStartMs;
    const endMs = this.elapsedMs - this.agent.turn_taking.endpointing_ms;
    const transcript = recognition ? recognition.finish() : Promise.resolve({ text: "" });
    this.transcripts = this.transcripts.then(() =>
      transcript.then(
        (result) => {
          timing.sttMs = performance.now() - timing.speechEndDetectedAt;
          const text = result.text.trim();
          if (this.ended) return;
          if (text) this.journal.turn({ role: "caller", text, start_ms: startMs, end_ms: Math.max(startMs, endMs), interrupted: false });
          this.onCallerText(text, timing);
        },
        (error) => {
          this.journal.error("stt_failed", (error as Error).message, false);
          this.onCallerText("", timing);
        },
      ),
    );
  }

  private onCallerText(text: string, timing: TurnTiming): void {
    // Already talking again (a pause mid-sentence, or the recogniser was slow): answer both parts together.
    if (this.segmenter.speaking) {
      if (text) this.pendingCallerText = joinText(this.pendingCallerText, text);
      return;
    }
    if (text || this.pendingCallerText) this.respondTo({ text }, timing);
  }

  private toRecognition(pcm: Int16Array): void {
    if (!this.recognition) return;
    if (!this.toRecogniser) {
      this.recognition.write(pcm);
      return;
    }
    const room = this.toRecogniser.maxOutputSamples(pcm.length);
    if (!this.recognitionPcm || this.recognitionPcm.length < room) this.recognitionPcm = new Int16Array(room);
    const out = this.recognitionPcm;
    const written = this.toRecogniser.pushInto(pcm, out);
    if (written) this.recognition.write(out.subarray(0, written));
  }

  private onDigit(digit: string, how: "in-band" | "out-of-band"): void {
    if (this.phase !== "conversing") return;
    this.journal.note("dtmf", { digit, how });
    this.remindedAt = null;
    this.lastActivityMs = this.elapsedMs;
    if (digit === "#") {
      this.flushDigits();
      return;
    }
    if (!this.digits) this.firstDigitMs = this.elapsedMs;
    this.digits += digit;
    this.lastDigitMs = this.elapsedMs;
  }

  private flushDigits(): void {
    if (!this.digits) return;
    const digits = this.digits;
    this.digits = "";
    this.journal.turn({ role: "caller", text: `[keyed ${digits}]`, start_ms: this.firstDigitMs, end_ms: this.elapsedMs, interrupted: false });
    this.respondTo({ digits }, { speechEndDetectedAt: performance.now() });
  }

  // ---------------------------------------------------------------- answering machines

  private onMachineVerdict(verdict: "human" | "machine"): void {
    this.journal.note("amd", { verdict, reason: this.amd?.reasons.at(-1) });
    if (verdict === "human") {
      this.beeps = null;
      this.beginConversation();
      return;
    }
    if (this.agent.voicemail.action === "hang_up") {
      this.finish({ status: "completed", endReason: "voicemail" });
      return;
    }
    this.phase = "waiting_for_beep";
    // No beep within the greeting's usual length: speak anyway rather than hang on forever.
    setTimeout(() => this.phase === "waiting_for_beep" && this.leaveVoicemail("timeout"), 20_000).unref?.();
  }

  private leaveVoicemail(trigger: "beep" | "timeout"): void {
    if (this.phase !== "waiting_for_beep") return;
    this.phase = "conversing";
    this.journal.note("voicemail", { trigger });
    const message = this.agent.voicemail.message ?? this.agent.first_message ?? "Hello, please call us back. Goodbye.";
    this.enqueueResponse(async (signal) => {
      await this.speakText(message, signal);
      return { type: "end" } as FlowAction;
    }, true, { endReason: "voicemail", kind: "voicemail" });
  }

  // ---------------------------------------------------------------- the agent's turns

  private respondTo(input: { text?: string; digits?: string }, timing: TurnTiming): void {
    if (this.phase !== "conversing") return;
    const text = input.text === undefined ? undefined : joinText(this.pendingCallerText, input.text);
    if (text !== undefined) this.pendingCallerText = text;
    this.timing = timing;
    this.enqueueResponse(async (signal) => {
      timing.brainStartedAt = performance.now();
      // A dropped response must leave no trace (a flow's attempts, the model's history): it is retried with more words.
      const before = structuredClone(this.state);
      const stream = this.conversation.replyStream(this.state, { text, digits: input.digits }, signal);
      const splitter = new SentenceSplitter();
      let action: FlowAction | null = null;
      let complete = false;
      try {
        for (;;) {
          const next = await stream.next();
          if (next.done) {
            for (const sentence of splitter.flush()) await this.speakText(sentence, signal);
            action = next.value.action;
            complete = true;
            break;
          }
          if (signal.aborted) break;
          const event = next.value;
          if (event.type === "text") {
            if (event.text) timing.firstTextAt ??= performance.now();
            const sentences = splitter.push(event.text);
            if (event.final) sentences.push(...splitter.flush());
            for (const sentence of sentences) await this.speakText(sentence, signal);
          } else if (event.type === "tool") {
            this.journal.note("tool_call", { ...event.call });
            if (event.call.name === "send_dtmf" && typeof event.call.result === "string") this.leg.sendDtmf(event.call.result);
          } else if (event.type === "error") this.journal.error("brain_failed", event.message, false);
        }
      } finally {
        // A turn that said nothing must not lend its timing to whatever is said next (a reminder, a say).
        if (this.timing === timing && timing.ttsRequestedAt === undefined) this.timing = null;
      }
      if (!signal.aborted) {
        this.pendingCallerText = "";
        return action;
      }
      const cancel = signal.reason as ResponseCancel;
      if (cancel.cause === "dropped") {
        await stream.return({ action: null, ended: false });
        this.state = before;
        return null;
      }
      this.pendingCallerText = "";
      // Cut off mid-reply: an end or transfer the brain already decided still happens (the rest is not said).
      if (!complete && this.state.ended) action = await decidedAction(stream);
      else if (!complete) await stream.return({ action: null, ended: false });
      if (cancel.cause === "barge_in") this.conversation.noteInterruption(this.state, cancel.heard);
      return this.state.ended ? action : null;
    }, true, { droppable: true });
  }

  /**
   * Runs responses one after another. `interruptible` responses are cancelled by caller speech;
   * the action they return (end, transfer) is carried out once their audio has played.
   */
  private enqueueResponse(
    run: (signal: AbortSignal) => Promise<FlowAction | null>,
    interruptible: boolean,
    options: { endReason?: string; droppable?: boolean; kind?: ResponseKind } = {},
  ): void {
    const endReason = options.endReason ?? "agent_hangup";
    this.responseChain = this.responseChain.then(async () => {
      if (this.ended) return;
      this.speakingFor = options.kind ?? "brain";
      const controller = new AbortController();
      if (interruptible) {
        this.responding = controller;
        this.droppable = options.droppable ?? false;
      }
      let action: FlowAction | null = null;
      try {
        action = await run(controller.signal);
      } catch (error) {
        if (!controller.signal.aborted) this.journal.error("response_failed", (error as Error).message, false);
      }
      if (this.responding === controller) this.responding = null;
      if (!action || this.ended) return;
      const act = action;
      this.whenPlaybackDone(() => {
        if (act.type === "transfer") void this.doTransfer(act.number ?? this.agent.transfer_number ?? "", "the agent transferred the call");
        else this.finish({ status: "completed", endReason });
      });
    });
  }

  /** Synthesises one sentence and queues its frames as they arrive (playback starts with the first). */
  private async speakText(text: string, signal: AbortSignal): Promise<void> {
    if (!text.trim() || signal.aborted || this.ended) return;
    const segment = this.playback.startSegment(text);
    if (this.agentTurnStartMs === null) this.agentTurnStartMs = this.elapsedMs;
    const framer = new PcmFramer(this.frameSamples);
    const timing = this.timing;
    if (timing) timing.ttsRequestedAt ??= performance.now();
    try {
      for await (const chunk of this.tts.synthesize(text, { voice: this.agent.voice.voice_id, speed: this.agent.voice.speed ?? 1, sampleRate: this.lineRate, signal })) {
        if (signal.aborted || this.ended) break;
        if (timing && chunk.length) timing.firstAudioAt ??= performance.now();
        framer.push(chunk);
        for (let frame = framer.next(); frame; frame = framer.next()) this.queueFrame(frame, segment);
      }
      if (!signal.aborted) for (let frame = framer.flush(); frame; frame = framer.flush()) this.queueFrame(frame, segment);
    } catch (error) {
      if (!signal.aborted) this.journal.error("tts_failed", (error as Error).message, false);
    } finally {
      segment.complete = true;
    }
  }

  private queueFrame(pcm: Int16Array, segment: SpokenSegment): void {
    this.playback.push(this.law ? encodeG711(this.law, pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength), pcm, segment);
  }

  /** Barge-in: stop talking at once, drop what the carrier buffered, keep only what was heard. */
  private interrupt(): void {
    if (!this.agentSpeaking) return;
    this.bargeInSpeechMs = 0;
    this.leg.clearAudio();
    const heard = this.playback.clear();
    const decided = this.afterPlayback;
    this.afterPlayback = null;
    this.agentSpeaking = false;
    // A reply still being written trims the history itself, once its stream is closed.
    if (this.responding) this.responding.abort({ cause: "barge_in", heard } satisfies ResponseCancel);
    else if (this.speakingFor === "brain") this.conversation.noteInterruption(this.state, heard);
    this.responding = null;
    this.closeAgentTurn(heard, true);
    this.journal.note("barge_in", { heard });
    // Talking over a goodbye (or "I'll transfer you") does not undo it.
    decided?.();
  }

  private closeAgentTurn(text: string, interrupted: boolean): void {
    const start = this.agentTurnStartMs;
    this.agentTurnStartMs = null;
    this.playback.endTurn();
    if (start === null || !text.trim()) return;
    this.journal.turn({ role: "agent", text: text.trim(), start_ms: start, end_ms: this.elapsedMs, interrupted });
  }

  private whenPlaybackDone(action: () => void): void {
    if (this.playback.idle && !this.agentSpeaking) action();
    else this.afterPlayback = action;
  }

  private async doTransfer(to: string, reason: string | null): Promise<void> {
    if (this.ended) return;
    if (!to) {
      this.journal.error("transfer_failed", "no number to transfer to", false);
      return;
    }
    this.journal.transfer(to, reason);
    try {
      await this.leg.transfer(to);
    } catch (error) {
      this.journal.error("transfer_failed", (error as Error).message, false);
      return;
    }
    this.finish({ status: "transferred", endReason: "transferred", transferredTo: to }, false);
  }

  // ---------------------------------------------------------------- the 20 ms tick

  private onTick(): void {
    if (this.ended) return;
    this.elapsedMs += FRAME_MS;
    const frame = this.playback.next();
    if (frame) {
      if (!this.agentSpeaking) this.agentSpeaking = true;
      this.leg.sendAudio(frame.payload);
      this.recorder?.writeAt("agent", frame.pcm, Math.round((this.elapsedMs / FRAME_MS) * this.frameSamples));
      const timing = this.timing;
      if (timing && timing.firstFrameAt === undefined) {
        timing.firstFrameAt = performance.now();
        this.recordLatency(timing);
      }
    } else if (this.agentSpeaking && !this.responding) {
      // The turn's audio is all played (and nothing more is coming).
      this.agentSpeaking = false;
      if (this.speakingFor !== "reminder") this.lastActivityMs = this.elapsedMs;
      this.closeAgentTurn(this.playback.heardText(), false);
      const next = this.afterPlayback;
      this.afterPlayback = null;
      next?.();
    } else if (!this.agentSpeaking && this.afterPlayback && this.playback.idle && !this.responding) {
      const next = this.afterPlayback;
      this.afterPlayback = null;
      next();
    }
    if (this.ended) return;
    this.checkTimers();
  }

  private checkTimers(): void {
    if (this.answeredAt !== null && this.elapsedMs >= this.maxDurationMs) {
      this.finish({ status: "completed", endReason: "max_duration" });
      return;
    }
    if (this.digits && this.elapsedMs - this.lastDigitMs >= DIGIT_GAP_MS) this.flushDigits();
    if (this.phase !== "conversing" || this.agentSpeaking || this.responding || this.segmenter.speaking || this.recognition) return;
    const silence = this.elapsedMs - this.lastActivityMs;
    const { reminder_after_s, reminder_message, timeout_s } = this.agent.turn_taking.silence;
    if (silence >= timeout_s * 1000) {
      this.finish({ status: "completed", endReason: "silence_timeout" });
      return;
    }
    if (this.remindedAt === null && silence >= reminder_after_s * 1000 && reminder_after_s < timeout_s) {
      this.remindedAt = this.elapsedMs;
      this.enqueueResponse(async (signal) => {
        await this.speakText(reminder_message, signal);
        return null;
      }, true, { droppable: true, kind: "reminder" });
    }
  }

  private recordLatency(timing: TurnTiming): void {
    const since = (from?: number, to?: number) => (from !== undefined && to !== undefined ? Math.round(to - from) : null);
    const endToEnd = since(timing.speechEndDetectedAt, timing.firstFrameAt);
    const stt = timing.sttMs === undefined ? null : Math.round(timing.sttMs);
    const llm = since(timing.brainStartedAt, timing.firstTextAt);
    const tts = since(timing.ttsRequestedAt, timing.firstAudioAt);
    this.journal.note("latency", {
      endpointing_ms: this.agent.turn_taking.endpointing_ms,
      stt_ms: stt,
      llm_ttft_ms: llm,
      tts_ttfb_ms: tts,
      end_to_end_ms: endToEnd,
      // What Parley itself added between the providers' answers.
      platform_ms: endToEnd === null ? null : Math.max(0, endToEnd - (stt ?? 0) - (llm ?? 0) - (tts ?? 0)),
    });
    this.timing = null;
  }
}

/** Runs a reply the caller cut off to its end, unspoken, for the action it decided. */
async function decidedAction(stream: AsyncGenerator<unknown, { action: FlowAction | null }>): Promise<FlowAction | null> {
  for (;;) {
    const next = await stream.next();
    if (next.done) return next.value.action;
  }
}

function joinText(first: string, second: string): string {
  return first && second ? `${first} ${second}` : first || second;
}

export { TRANSPORT_SILENCE_LIMIT_MS };
