import { LegListeners } from "../leg-listeners.ts";
import type { CallLeg, Carrier, CarrierStatus, DialRequest, LegEndReason, LegEvent, MediaFormat } from "../types.ts";
import { isBuiltinVoice } from "../../voice/speech/builtin/index.ts";
import { simulatedNumbers } from "./inventory.ts";
import type { TextToSpeech } from "../../voice/speech/types.ts";
import type { MediaClock } from "../../voice/media/media-clock.ts";
import { SimulatedCallee, simScript, type SpokenLine } from "./callee.ts";

const FORMAT: MediaFormat = { encoding: "pcmu", sampleRate: 8000 };

/** What tests (and the simulated recogniser) can learn about a simulated call's far end. */
export interface SimulatedCallRecord {
  callee: SimulatedCallee | null;
  transferredTo: string | null;
  sentDigits: string[];
  ended: LegEndReason | null;
  /** Set by tests: the line stays up but no more audio arrives from it (a transport that vanished). */
  audioLost: boolean;
}

export const simulatedCalls = new Map<string, SimulatedCallRecord>();
const SIMULATED_RECORD_TTL_MS = 10 * 60_000;

/** Base of a leg: handler plumbing shared by outbound (callee) and inbound (softphone) legs. */
export abstract class SimulatedLegBase extends LegListeners implements CallLeg {
  readonly format: MediaFormat = FORMAT;
  protected ended = false;

  protected emit(event: LegEvent): void {
    if (this.ended) return;
    if (event.type === "ended") this.ended = true;
    this.deliverEvent(event);
    // The call's record is kept a while for diagnostics; the ended session must not be kept with it.
    if (event.type === "ended") this.releaseAll();
  }
  protected deliver(frame: Uint8Array): void {
    this.deliverAudio(frame);
  }
  abstract sendAudio(frame: Uint8Array): void;
  clearAudio(): void {}
  abstract sendDtmf(digits: string): void;
  abstract transfer(to: string): Promise<void>;
  abstract hangup(): void;
}

/** An outbound call into the simulator: rings, then the scripted callee answers (or not). */
class SimulatedOutboundLeg extends SimulatedLegBase {
  private callee: SimulatedCallee | null = null;
  private unsubscribe: (() => void) | null = null;
  private timers: ReturnType<typeof setTimeout>[] = [];
  private readonly callId: string;

  constructor(request: DialRequest, deps: SimulatedCarrierDeps, private record: SimulatedCallRecord) {
    super();
    this.callId = request.callId;
    const script = simScript(request.options, request.to);
    queueMicrotask(() => this.emit({ type: "ringing" }));
    const after = (ms: number, run: () => void) => this.timers.push(setTimeout(run, ms));
    switch (script.behaviour) {
      case "busy":
        after(Math.min(script.ringMs, 500), () => this.end("busy"));
        return;
      case "no_answer":
        after(script.ringMs, () => this.end("no_answer"));
        return;
    }
    after(script.ringMs, () => {
      if (this.ended) return;
      this.callee = new SimulatedCallee(
        script,
        deps.tts,
        (line) => deps.announce(request.callId, line),
        () => this.end("remote_hangup"),
        (detail) => this.end("failed", detail),
      );
      record.callee = this.callee;
      this.emit({ type: "answered" });
      this.unsubscribe = deps.clock.subscribe(() => {
        if (!this.ended && this.callee && !record.audioLost) this.deliver(this.callee.nextFrame());
      });
    });
  }

  sendAudio(frame: Uint8Array): void {
    this.callee?.hear(frame);
  }
  sendDtmf(digits: string): void {
    this.record.sentDigits.push(digits);
  }
  async transfer(to: string): Promise<void> {
    this.record.transferredTo = to;
    this.stop("transferred");
  }
  hangup(): void {
    this.stop("local_hangup");
    this.releaseAll();
  }
  private end(reason: LegEndReason, detail?: string): void {
    this.stop(reason);
    this.emit({ type: "ended", reason, ...(detail ? { detail } : {}) });
  }
  private stop(reason: LegEndReason): void {
    if (this.record.ended === null) {
      // Kept a while for tests and diagnostics, then dropped so a long-running server does not grow.
      setTimeout(() => simulatedCalls.delete(this.callId), SIMULATED_RECORD_TTL_MS).unref?.();
    }
    this.record.ended ??= reason;
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const timer of this.timers) clearTimeout(timer);
  }
}

export interface SimulatedCarrierDeps {
  tts: TextToSpeech;
  clock: MediaClock;
  /** Tells the simulated recogniser what the callee said, and when. */
  announce: (callId: string, line: SpokenLine) => void;
}

/** The built-in carrier: a fictional number range and scripted callees, no network at all. */
export class SimulatedCarrier implements Carrier {
  readonly kind = "simulated";
  readonly numbers = simulatedNumbers;
  constructor(
    readonly connectionId: string,
    private deps: SimulatedCarrierDeps,
  ) {}

  dial(request: DialRequest): CallLeg {
    const record: SimulatedCallRecord = { callee: null, transferredTo: null, sentDigits: [], ended: null, audioLost: false };
    simulatedCalls.set(request.callId, record);
    return new SimulatedOutboundLeg(request, this.deps, record);
  }

  checkDialOptions(options: Record<string, unknown>): { field: string; message: string } | null {
    const voice = options.voice;
    if (typeof voice === "string" && !isBuiltinVoice(voice)) return { field: "simulation.voice", message: `the built-in engine has no voice ${voice}` };
    return null;
  }

  /**
   * Scripted callees say what they speak, so their text may stand in for recognition unless the call
   * asks for the agent's own recogniser; a softphone caller is a real voice unless it says otherwise.
   */
  scriptedRecognition(direction: "inbound" | "outbound", options: Record<string, unknown> | null): boolean {
    return direction === "outbound" ? options?.recognition !== "agent" : options?.recognition === "simulated";
  }

  status(): CarrierStatus {
    return { state: "ready", detail: null };
  }

  close(): void {}
}
