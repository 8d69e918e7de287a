import type { AppContext } from "../../core/context.ts";
import type { AgentConfig } from "../agent-config.ts";
import type { CallLeg, LegEndReason } from "../../telephony/types.ts";
import { AgentConversation, type ConversationState } from "../brains/agent-brain.ts";
import type { BrainServices } from "../brains/services.ts";
import type { FlowAction } from "../brains/flow/engine.ts";
import { PcmFramer } from "../media/framer.ts";
import { encodeG711 } from "../media/g711.ts";
import type { SpeechToText, TextToSpeech } from "../speech/types.ts";
import { FRAME_MS, type MediaClock } from "../media/media-clock.ts";
import { CallerAudio, type Utterance } from "./caller-audio.ts";
import { CallRecording } from "./call-recording.ts";
import { DigitCollector, type KeyedEntry } from "./digit-collector.ts";
import { latencyNote, type TurnTiming } from "./latency.ts";
import { countPreemption, observeTurnLatency, recordEndedCall } from "./metrics.ts";
import { PlaybackQueue, type SpokenSegment } from "./playback.ts";
import type { CallEnding, CallJournal } from "./journal.ts";
import { liveCalls, type LiveCall } from "./registry.ts";
import { AgentResponse } from "./response.ts";
import { BEEP_WAIT_MS, CallScreening } from "./screening.ts";
import { SentenceSplitter } from "./sentences.ts";
import { SpeechOverAgent, type OverlapAction } from "./speech-over-agent.ts";
import { TranscriptOrder, type PendingTurn } from "./transcript-order.ts";
import { fixedEndpointing, textCueEndpointing } from "../turns/endpointing.ts";
import { resolveTurnTaking, type ResolvedTurnTaking } from "../turns/settings.ts";
import { sameWords } from "../turns/words.ts";

export interface CallSessionOptions {
  ctx: AppContext;
  call: { id: string; workspaceId: string; agentId: string; variables: Record<string, unknown> };
  /** Where the call's events are recorded. */
  journal: CallJournal;
  /** What the agent's brain may use (tools, knowledge, its language model). */
  brains: BrainServices;
  agent: AgentConfig;
  leg: CallLeg;
  /** The kind of carrier the leg is on (`browser` for web calls), as the metrics count live calls. */
  carrierKind: string;
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

/** While screening, a gap this long in the callee's audio counts as silence, frame by frame. */
const SCREENING_GAP_MS = 3 * FRAME_MS;

/** Calls must keep sending audio; this much silence from the transport means it is gone. */
const TRANSPORT_SILENCE_LIMIT_MS = 15_000;
const CARRIER_AMD = "the carrier's answering-machine detection";

type Phase = "connecting" | "screening" | "waiting_for_beep" | "conversing" | "ending" | "ended";

/**
 * One live call: turn-taking. The caller's audio (keys, utterances, their words) comes from
 * CallerAudio; the session decides who speaks: the agent's brain answers sentence by sentence as
 * AgentResponses, the caller may talk over them, silence and keys have their rules, and the
 * transcript is written in the order turns started.
 */
export class CallSession implements LiveCall {
  readonly callId: string;
  readonly workspaceId: string;
  readonly carrierKind: string;
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
  private readonly options: CallSessionOptions;
  private readonly conversation: AgentConversation;
  private state: ConversationState;
  private phase: Phase = "connecting";

  private readonly lineRate: number;
  private readonly law: "mulaw" | "alaw" | null;
  private readonly caller: CallerAudio;
  private readonly transcript: TranscriptOrder;
  private readonly digits = new DigitCollector();
  private screening: CallScreening | null = null;
  /** What a screening hears for a frame the line did not send. */
  private silentFrame: Int16Array | null = null;
  /** The carrier's answering-machine verdict when it came before the answer. */
  private carrierVerdict: "human" | "machine" | null = null;
  private transferringTo: string | null = null;
  private recording: CallRecording | null = null;
  private readonly playback = new PlaybackQueue();

  /** Caller text not yet answered: a response dropped before the agent said anything, or words heard while the caller went on. */
  private pendingCallerText = "";
  /** The interruptible response in progress (being prepared or spoken). */
  private responding: AgentResponse | null = null;
  /** The response that spoke last: its kind decides what a barge-in trims and whether silence restarts. */
  private lastResponse: AgentResponse | null = null;
  /** A response whose decided action (end, transfer) waits for its audio to finish. */
  private finishing: AgentResponse | null = null;
  private responseChain: Promise<void> = Promise.resolve();
  private agentTurnStartMs: number | null = null;
  /** The agent's turn holds its place in the transcript while it lasts: words said over it come after it. */
  private agentTurnPlace: PendingTurn | null = null;
  private agentSpeaking = false;
  /** What the agent said last (heard), for the endpointing: an expected short answer may end sooner. */
  private lastAgentText: string | null = null;
  private readonly turns: ResolvedTurnTaking;
  /** A reply started at the caller's pause on these words, held until the turn is confirmed. */
  private preempted: { response: AgentResponse; text: string; timing: TurnTiming } | null = null;
  /** Replies started at the current turn's pauses and dropped. */
  private preemptionsWasted = 0;
  /** Caller speech over the agent, while it is judged (backchannel or interruption). */
  private readonly overlap: SpeechOverAgent;

  private elapsedMs = 0;
  private lastTransportAudio = performance.now();
  private readonly dialledAt = performance.now();
  private lastActivityMs = 0;
  private remindedAt: number | null = null;
  private unsubscribe: (() => void) | null = null;
  private slots: Record<string, unknown> = {};

  constructor(options: CallSessionOptions) {
    this.options = options;
    this.ctx = options.ctx;
    this.journal = options.journal;
    this.callId = options.call.id;
    this.workspaceId = options.call.workspaceId;
    this.carrierKind = options.carrierKind;
    this.agent = options.agent;
    this.leg = options.leg;
    this.tts = options.tts;
    this.maxDurationMs = this.agent.turn_taking.max_duration_s * 1000;
    this.lineRate = this.leg.format.sampleRate;
    this.law = this.leg.format.encoding === "pcmu" ? "mulaw" : this.leg.format.encoding === "pcma" ? "alaw" : null;
    this.transcript = new TranscriptOrder((turn) => this.journal.turn(turn));
    this.turns = resolveTurnTaking(this.agent.turn_taking);
    const { endpointing } = this.turns;
    this.caller = new CallerAudio(
      {
        lineRate: this.lineRate,
        encoding: this.law,
        stt: options.stt,
        recognition: {
          language: this.agent.transcriber.language ?? this.agent.language,
          sampleRate: options.sttSampleRate,
          model: this.agent.transcriber.model,
          channel: this.callId,
          ...(options.recognitionContext ?? {}),
        },
        sttSampleRate: options.sttSampleRate,
        endpointing: endpointing.mode === "fixed" ? fixedEndpointing(endpointing.neutralMs) : textCueEndpointing({ minMs: endpointing.minMs, neutralMs: endpointing.neutralMs, maxMs: endpointing.maxMs }),
        punctuated: options.stt.punctuates ?? false,
        language: this.agent.transcriber.language ?? this.agent.language,
        agentLast: () => this.lastAgentText,
        transcript: this.transcript,
        elapsedMs: () => this.elapsedMs,
      },
      {
        digit: (digit) => this.onDigit(digit, "in-band"),
        speechStarted: () => this.onSpeechStarted(),
        speechEnded: () => (this.lastActivityMs = this.elapsedMs),
        paused: (text) => this.onCallerPaused(text),
        resumed: () => this.dropPreempted(),
        heard: (text, timing, utterance) => this.onCallerText(text, timing, utterance),
        recognitionError: (code, message) => this.journal.error(code, message, false),
      },
    );
    this.overlap = new SpeechOverAgent(this.turns.interruptions, this.caller);
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
    // A carrier calls these from its own socket or timer: a defect in one ends this call, not the carrier's loop.
    this.leg.onEvent((event) =>
      this.guarded(() => {
        if (event.type === "answered") this.onAnswered();
        else if (event.type === "ended") this.onLegEnded(event.reason, event.detail, event.code);
        else if (event.type === "carrier_call") this.journal.note("carrier", { carrier_call_id: event.id });
        else if (event.type === "answered_by") this.onCarrierVerdict(event.verdict);
        else if (event.type === "media_report") this.journal.note("media", event.report);
      }),
    );
    this.leg.onAudio((frame) => {
      try {
        this.onCallerFrame(frame); // 50 times a second: no closure per frame
      } catch (error) {
        this.onDefect(error);
      }
    });
    this.leg.onDtmf((digit) => this.guarded(() => this.onDigit(digit, "out-of-band")));
  }

  // ---------------------------------------------------------------- the API's controls (LiveCall)

  mediaCounts() {
    return this.leg.mediaCounts?.() ?? null;
  }

  hangup(reason = "agent_hangup"): void {
    this.finish({ status: "completed", endReason: reason });
  }

  say(text: string): void {
    this.journal.note("say", { text });
    this.enqueueResponse(new AgentResponse("say", false, false), async (response) => {
      await this.speakText(text, response);
      return null;
    });
  }

  sayAndEnd(text: string, reason: string): void {
    this.journal.note("say", { text, then: "end", reason });
    this.enqueueResponse(
      new AgentResponse("say", false, false),
      async (response) => {
        try {
          await this.speakText(text, response);
        } catch (error) {
          this.journal.error("response_failed", (error as Error).message, false);
        }
        return { type: "end" } as FlowAction;
      },
      reason,
    );
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

  talkMs(): number {
    return this.elapsedMs;
  }

  terminate(reason: "max_duration" | "transport_lost" | "never_answered" | "shutdown" | "node_lost"): void {
    // The survivor that took this node over ended the call already: this end finds it ended and writes nothing.
    if (reason === "node_lost") this.finish({ status: "failed", endReason: "node_lost" });
    else if (reason === "shutdown") {
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
    if (this.options.recordingPath) {
      this.recording = new CallRecording(this.options.recordingPath, this.lineRate, (message) => this.journal.error("recording_failed", message, false));
    }
    this.unsubscribe = this.options.clock.subscribe(() => this.onTick(), (error) => this.onDefect(error));
    if (this.options.screenForMachine) {
      this.phase = "screening";
      this.screening = new CallScreening(this.lineRate);
      if (this.carrierVerdict) this.onMachineVerdict(this.carrierVerdict, CARRIER_AMD);
      return;
    }
    this.beginConversation();
  }

  private beginConversation(): void {
    this.phase = "conversing";
    this.lastActivityMs = this.elapsedMs;
    this.enqueueResponse(new AgentResponse("brain", true, false), async (response) => {
      const opening = await this.conversation.open(this.state);
      for (const text of opening.say) await this.speakText(text, response);
      return opening.action;
    });
  }

  private onLegEnded(reason: LegEndReason, detail?: string, code?: string): void {
    if (this.ended) return;
    if (reason === "failed" && this.phase !== "connecting") {
      // The far end broke the protocol or the line failed mid-call: a failed call, saying why.
      const message = detail ?? "the line failed";
      this.journal.error(code ?? "transport_failed", message, true);
      this.finish({ status: "failed", endReason: code ?? "error" }, false, message);
      return;
    }
    if (this.phase === "connecting") {
      const status = reason === "busy" ? "busy" : reason === "no_answer" ? "no_answer" : reason === "rejected" ? "canceled" : "failed";
      this.finish({ status, endReason: reason === "remote_hangup" ? "customer_hangup" : reason }, false, detail);
      return;
    }
    // A carrier may report the transfer (its stream stopping) before the transfer request itself returns.
    if (reason === "transferred") this.finish({ status: "transferred", endReason: "transferred", transferredTo: this.transferringTo ?? undefined }, false, detail);
    else this.finish({ status: "completed", endReason: "customer_hangup" }, false, detail);
  }

  private guarded(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.onDefect(error);
    }
  }

  /** A defect in the call's own handling: said once (it would recur every frame), and the call ends rather than linger half-run. */
  private onDefect(error: unknown): void {
    this.ctx.logger.error("a live call failed inside; ending it", { call_id: this.callId, error });
    if (this.ended) return; // it failed while ending: the log is all there is to do
    this.unsubscribe?.();
    try {
      this.finish({ status: "failed", endReason: "error" }, true, `internal error: ${(error as Error).message}`);
    } catch (failure) {
      this.ctx.logger.error("could not end a call that failed inside", { call_id: this.callId, error: failure });
    }
  }

  /** Ends the call exactly once: stops audio, closes the recording, and records the outcome. */
  private finish(ending: CallEnding, hangUpLeg = true, detail?: string): void {
    if (this.ended) return;
    const wasAnswered = this.phase !== "connecting";
    this.phase = "ended";
    this.responding?.cancel({ cause: "ended" });
    this.caller.close();
    this.unsubscribe?.();
    if (this.agentTurnStartMs !== null) this.closeAgentTurn(this.playback.heardText(), true);
    this.playback.clear();
    if (hangUpLeg) this.leg.hangup(ending.endReason);
    const recording = this.recording?.close() ?? null;
    this.transcript.close();
    if (detail) this.journal.note("carrier", { detail });
    this.journal.end({
      ...ending,
      recordingPath: wasAnswered && recording ? recording.path : null,
      durationMs: wasAnswered ? this.elapsedMs : 0,
      slots: this.state.brain === "flow" ? { ...this.state.flow.slots, ...this.slots } : this.slots,
    });
    recordEndedCall(this.ctx, this);
    liveCalls(this.ctx).delete(this.callId);
    this.resolveDone();
  }

  // ---------------------------------------------------------------- what the caller does

  private onCallerFrame(frame: Uint8Array): void {
    if (this.ended || this.phase === "connecting") return;
    this.lastTransportAudio = performance.now();
    const { pcm, isSpeech, at } = this.caller.decode(frame);
    this.recording?.writeAt("caller", pcm, at);
    if (this.phase === "screening") {
      const verdict = this.screening!.push(pcm, isSpeech);
      if (verdict) this.onMachineVerdict(verdict);
      return;
    }
    if (this.phase === "waiting_for_beep") {
      if (this.screening!.beep(pcm)) this.leaveVoicemail("beep");
      return;
    }
    this.caller.listen(pcm, isSpeech);
    if ((this.agentSpeaking || this.overlap.open) && this.turns.interruptions.enabled) this.onOverlap(this.overlap.frame(isSpeech, this.agentSpeaking));
  }

  private onSpeechStarted(): void {
    // While the agent talks without barge-in, its own turn is not interrupted: the caller's words still count.
    this.remindedAt = null;
    this.overlap.speechStarted();
    this.dropPreempted();
    // A response still being prepared is dropped: the caller has more to say.
    if (this.responding?.droppable && !this.agentSpeaking) {
      this.responding.cancel({ cause: "dropped" });
      this.responding = null;
      this.playback.clear();
    }
  }

  /** The caller paused with these words: an LLM agent may start its reply now and play it once the turn is confirmed. */
  private onCallerPaused(text: string): void {
    if (!this.turns.preemptive || this.agent.brain.type !== "llm" || this.phase !== "conversing") return;
    if (this.agentSpeaking || this.overlap.open || this.caller.current.backchannel) return;
    const full = joinText(this.pendingCallerText, text);
    if (this.preempted && sameWords(this.preempted.text, full)) return;
    this.dropPreempted();
    if (this.responding) return; // still busy with an earlier reply
    const now = performance.now();
    const timing: TurnTiming = { lastVoiceAt: now, speechEndDetectedAt: now, triggeredAt: now, preemption: "hit" };
    this.preempted = { response: this.respondTo({ text: full }, timing, true), text: full, timing };
  }

  /** The caller went on (or said otherwise): the reply prepared at the pause is dropped unheard; its model request was spent. */
  private dropPreempted(): void {
    const preempted = this.preempted;
    if (!preempted) return;
    this.preempted = null;
    preempted.response.cancel({ cause: "dropped" });
    if (this.responding === preempted.response) this.responding = null;
    // Its first piece waits in the playback queue (held, never played): it must not play now.
    if (!this.agentSpeaking) this.playback.clear();
    this.preemptionsWasted++;
    countPreemption(this.ctx, "wasted");
  }

  private onCallerText(text: string, timing: TurnTiming, utterance: Utterance): void {
    if (this.ended) return;
    this.onOverlap(this.overlap.words(text, utterance, this.agentSpeaking));
    // A backchannel is in the transcript (the recogniser wrote it) and noted when judged; never answered.
    if (utterance.backchannel) return;
    if (text) this.leg.caption?.("caller", text);
    // Already talking again (a pause mid-sentence, or the recogniser was slow): answer both parts together.
    if (this.caller.speaking) {
      if (text) this.pendingCallerText = joinText(this.pendingCallerText, text);
      return;
    }
    const preempted = this.preempted;
    if (preempted && text && !preempted.response.cancelled && sameWords(preempted.text, joinText(this.pendingCallerText, text))) {
      // The turn ended as the reply assumed: it plays now.
      this.preempted = null;
      const { triggeredAt } = preempted.timing;
      Object.assign(preempted.timing, timing, { triggeredAt, preemption: "hit", preemptionsWasted: this.preemptionsWasted });
      this.preemptionsWasted = 0;
      countPreemption(this.ctx, "hit");
      preempted.response.confirm();
      return;
    }
    this.dropPreempted();
    if (text || this.pendingCallerText) {
      timing.preemption = this.preemptionsWasted ? "wasted" : "none";
      timing.preemptionsWasted = this.preemptionsWasted;
      this.preemptionsWasted = 0;
      this.respondTo({ text }, timing);
    }
  }

  private onDigit(digit: string, how: "in-band" | "out-of-band"): void {
    if (this.phase !== "conversing") return;
    this.journal.note("dtmf", { digit, how });
    this.remindedAt = null;
    this.lastActivityMs = this.elapsedMs;
    const entry = this.digits.press(digit, this.elapsedMs);
    if (entry) this.onKeyed(entry);
  }

  private onKeyed({ digits, startMs }: KeyedEntry): void {
    this.transcript.add({ role: "caller", text: `[keyed ${digits}]`, start_ms: startMs, end_ms: this.elapsedMs, interrupted: false });
    const now = performance.now();
    this.respondTo({ digits }, { speechEndDetectedAt: now, lastVoiceAt: now, confirmedAt: now });
  }

  // ---------------------------------------------------------------- speech over the agent

  private onOverlap(action: OverlapAction | null): void {
    if (!action) return;
    if (action.type === "interrupt") this.interrupt(action.reason);
    // The caller does not hear the agent over themselves while the speech is judged.
    else if (action.type === "pause") this.leg.clearAudio();
    else this.journal.note("backchannel", { reason: action.reason, resumed: action.resumed });
  }

  // ---------------------------------------------------------------- answering machines

  /** The carrier's own detection: it decides a call still being screened; later it is only noted. */
  private onCarrierVerdict(verdict: "human" | "machine"): void {
    if (this.phase === "screening") this.onMachineVerdict(verdict, CARRIER_AMD);
    // Before the answer (the carrier decided while connecting the audio): it decides the screening to come.
    else if (this.phase === "connecting") this.carrierVerdict = verdict;
    else if (!this.ended) this.journal.note("amd", { verdict, reason: `${CARRIER_AMD} (after the call's own)` });
  }

  private onMachineVerdict(verdict: "human" | "machine", reason = this.screening?.reason): void {
    this.journal.note("amd", { verdict, reason });
    if (verdict === "human") {
      this.screening = null;
      this.beginConversation();
      return;
    }
    if (this.agent.voicemail.action === "hang_up") {
      this.finish({ status: "completed", endReason: "voicemail" });
      return;
    }
    this.phase = "waiting_for_beep";
    // No beep within the greeting's usual length: speak anyway rather than hang on forever.
    setTimeout(() => this.phase === "waiting_for_beep" && this.leaveVoicemail("timeout"), BEEP_WAIT_MS).unref?.();
  }

  private leaveVoicemail(trigger: "beep" | "timeout"): void {
    if (this.phase !== "waiting_for_beep") return;
    this.phase = "conversing";
    this.journal.note("voicemail", { trigger });
    const message = this.agent.voicemail.message ?? this.agent.first_message ?? "Hello, please call us back. Goodbye.";
    this.enqueueResponse(
      new AgentResponse("voicemail", true, false),
      async (response) => {
        await this.speakText(message, response);
        return { type: "end" } as FlowAction;
      },
      "voicemail",
    );
  }

  // ---------------------------------------------------------------- the agent's turns

  /**
   * Answers the caller's turn. A preemptive reply (started at a pause, on words the caller may yet add
   * to) is held: it prepares its first piece of speech, runs no tool and plays nothing until `confirm()`.
   */
  private respondTo(input: { text?: string; digits?: string }, timing: TurnTiming, preemptive = false): AgentResponse {
    const response = new AgentResponse("brain", true, true, timing);
    if (this.phase !== "conversing") return response;
    if (preemptive) response.hold();
    timing.triggeredAt ??= performance.now();
    const text = input.text === undefined || preemptive ? input.text : joinText(this.pendingCallerText, input.text);
    if (text !== undefined && !preemptive) this.pendingCallerText = text;
    this.enqueueResponse(response, async (response) => {
      const { signal } = response;
      timing.brainStartedAt = performance.now();
      // A dropped response must leave no trace (a flow's attempts, the model's history): it is retried with more words.
      const before = structuredClone(this.state);
      const stream = this.conversation.replyStream(this.state, { text, digits: input.digits }, signal, preemptive ? () => response.whenReleased() : undefined);
      const splitter = new SentenceSplitter({ firstClause: true });
      let action: FlowAction | null = null;
      let complete = false;
      for (;;) {
        const next = await stream.next();
        if (next.done) {
          for (const sentence of splitter.flush()) await this.speakText(sentence, response);
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
          for (const sentence of sentences) await this.speakText(sentence, response);
        } else if (event.type === "tool") {
          this.journal.note("tool_call", { ...event.call });
          if (event.call.name === "send_dtmf" && typeof event.call.result === "string") this.leg.sendDtmf(event.call.result);
        } else if (event.type === "error") this.journal.error("brain_failed", event.message, false);
      }
      // A held reply finishes only once its turn is confirmed (or it is dropped): its audio must not play before.
      await response.whenReleased();
      if (!response.cancelled) {
        this.pendingCallerText = "";
        return action;
      }
      const cancel = response.cancelCause;
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
    });
    return response;
  }

  /**
   * Runs responses one after another. Interruptible ones are cancelled by caller speech; the
   * action a response returns (end, transfer) is carried out once its audio has played.
   */
  private enqueueResponse(response: AgentResponse, run: (response: AgentResponse) => Promise<FlowAction | null>, endReason = "agent_hangup"): void {
    this.responseChain = this.responseChain.then(async () => {
      if (this.ended) return;
      this.lastResponse = response;
      if (response.interruptible) this.responding = response;
      let action: FlowAction | null = null;
      try {
        action = await run(response);
      } catch (error) {
        if (!response.cancelled) this.journal.error("response_failed", (error as Error).message, false);
      }
      if (this.responding === response) this.responding = null;
      if (!action || this.ended) return;
      const act = action;
      this.whenPlaybackDone(response, () => {
        if (act.type === "transfer") void this.doTransfer(act.number ?? this.agent.transfer_number ?? "", "the agent transferred the call");
        else this.finish({ status: "completed", endReason });
      });
    });
  }

  /** Synthesises one sentence and queues its frames as they arrive (playback starts with the first). */
  private async speakText(text: string, response: AgentResponse): Promise<void> {
    // A held reply prepares one piece only: the rest would be synthesised (and paid for) in vain if the caller goes on.
    if (response.held && response.pieces > 0) await response.whenReleased();
    const { signal } = response;
    if (!text.trim() || signal.aborted || this.ended) return;
    response.pieces++;
    const segment = this.playback.startSegment(text);
    const framer = new PcmFramer(this.caller.frameSamples);
    const timing = response.timing;
    const measured = !!timing && timing.ttsRequestedAt === undefined;
    if (measured) {
      timing.firstPieceAt ??= performance.now();
      timing.ttsRequestedAt = performance.now();
    }
    // The caption goes with the sentence's first audio: one never played (the caller hung up or cut in first) is never shown.
    segment.onFirstFrame = () => {
      this.leg.caption?.("agent", text);
      if (measured) this.recordLatency(response);
    };
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
  private interrupt(reason: string): void {
    if (!this.agentSpeaking) return;
    this.leg.clearAudio();
    const heard = this.playback.clear();
    const decided = this.takeDecided();
    this.agentSpeaking = false;
    // A reply still being written trims the history itself, once its stream is closed.
    if (this.responding) this.responding.cancel({ cause: "barge_in", heard });
    else if (this.lastResponse?.kind === "brain") this.conversation.noteInterruption(this.state, heard);
    this.responding = null;
    this.closeAgentTurn(heard, true);
    this.journal.note("barge_in", { heard, reason });
    // Talking over a goodbye (or "I'll transfer you") does not undo it.
    decided?.();
  }

  private closeAgentTurn(text: string, interrupted: boolean): void {
    const start = this.agentTurnStartMs;
    const place = this.agentTurnPlace;
    this.agentTurnStartMs = null;
    this.agentTurnPlace = null;
    this.playback.endTurn();
    if (start === null || !place) return;
    if (text.trim()) this.lastAgentText = text.trim();
    this.transcript.settle(place, text.trim() ? { role: "agent", text: text.trim(), start_ms: start, end_ms: this.elapsedMs, interrupted } : null);
  }

  private whenPlaybackDone(response: AgentResponse, action: () => void): void {
    if (this.playback.idle && !this.agentSpeaking) {
      action();
      return;
    }
    response.afterPlayback = action;
    this.finishing = response;
  }

  /** The action a response decided, taken off it so that it runs once. */
  private takeDecided(): (() => void) | null {
    const action = this.finishing?.afterPlayback ?? null;
    if (this.finishing) this.finishing.afterPlayback = null;
    this.finishing = null;
    return action;
  }

  private async doTransfer(to: string, reason: string | null): Promise<void> {
    if (this.ended) return;
    if (!to) {
      this.journal.error("transfer_failed", "no number to transfer to", false);
      return;
    }
    this.journal.transfer(to, reason);
    this.transferringTo = to;
    try {
      await this.leg.transfer(to);
    } catch (error) {
      this.transferringTo = null;
      this.journal.error("transfer_failed", (error as Error).message, false);
      return;
    }
    this.finish({ status: "transferred", endReason: "transferred", transferredTo: to }, false);
  }

  // ---------------------------------------------------------------- the 20 ms tick

  private onTick(): void {
    if (this.ended) return;
    this.elapsedMs += FRAME_MS;
    // A line that sends nothing while the callee is silent (silence suppression, a phone with no
    // microphone) is a silent pickup, not a screening that never ends: time passes for it too.
    if (this.phase === "screening" && performance.now() - this.lastTransportAudio > SCREENING_GAP_MS) {
      const verdict = this.screening!.push(this.silentFrame ??= new Int16Array(this.caller.frameSamples), false);
      if (verdict) this.onMachineVerdict(verdict);
      if (this.ended) return;
    }
    // Held: a reply waiting for its turn to be confirmed, or the agent paused while speech over it is judged.
    const holding = !!this.responding?.held || this.overlap.paused;
    const frame = holding ? null : this.playback.next();
    if (frame) {
      if (!this.agentSpeaking) this.agentSpeaking = true;
      // A turn starts where its first audio is, in the recording and for the caller: not when it was
      // asked for (a speech engine's first audio can take hundreds of ms).
      if (this.agentTurnStartMs === null) {
        this.agentTurnStartMs = this.elapsedMs;
        this.agentTurnPlace = this.transcript.open(this.elapsedMs);
      }
      this.leg.sendAudio(frame.payload);
      this.recording?.writeAt("agent", frame.pcm, Math.round((this.elapsedMs / FRAME_MS) * this.caller.frameSamples));
    } else if (holding) {
      // Nothing plays, nothing ends.
    } else if (this.agentSpeaking && !this.responding) {
      // The turn's audio is all played (and nothing more is coming); speech over it is now the caller's own turn.
      this.agentSpeaking = false;
      this.overlap.close();
      if (this.lastResponse?.kind !== "reminder") this.lastActivityMs = this.elapsedMs;
      this.closeAgentTurn(this.playback.heardText(), false);
      this.takeDecided()?.();
    } else if (!this.agentSpeaking && this.finishing && this.playback.idle && !this.responding) {
      this.takeDecided()?.();
    }
    if (this.ended) return;
    this.checkTimers();
  }

  private checkTimers(): void {
    if (this.answeredAt !== null && this.elapsedMs >= this.maxDurationMs) {
      this.finish({ status: "completed", endReason: "max_duration" });
      return;
    }
    const keyed = this.digits.due(this.elapsedMs);
    if (keyed) this.onKeyed(keyed);
    if (this.phase !== "conversing" || this.agentSpeaking || this.responding || this.caller.speaking || this.caller.recognising) return;
    const silence = this.elapsedMs - this.lastActivityMs;
    const { reminder_after_s, reminder_message, timeout_s } = this.agent.turn_taking.silence;
    if (silence >= timeout_s * 1000) {
      this.finish({ status: "completed", endReason: "silence_timeout" });
      return;
    }
    if (this.remindedAt === null && silence >= reminder_after_s * 1000 && reminder_after_s < timeout_s) {
      this.remindedAt = this.elapsedMs;
      this.enqueueResponse(new AgentResponse("reminder", true, true), async (response) => {
        await this.speakText(reminder_message, response);
        return null;
      });
    }
  }

  /** Once per response that answers a turn, when its first frame goes out. */
  private recordLatency(response: AgentResponse): void {
    const timing = response.timing;
    if (!timing) return;
    response.timing = null;
    timing.firstFrameAt = performance.now();
    const note = latencyNote(timing, this.turns.endpointing.neutralMs);
    this.journal.note("latency", note);
    observeTurnLatency(this.ctx, note);
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
