import { generateDtmf } from "../../voice/media/dtmf.ts";
import { PcmFramer } from "../../voice/media/framer.ts";
import { decodeMulaw, encodeMulaw } from "../../voice/media/g711.ts";
import { concatPcm, rmsDbfs } from "../../voice/media/frames.ts";
import { generateTone } from "../../voice/media/tones.ts";
import type { TextToSpeech } from "../../voice/speech/types.ts";

export const SIM_RATE = 8000;
const FRAME = 160;
const SILENCE = encodeMulaw(new Int16Array(FRAME));

export type SimBehaviour = "answer" | "silent" | "busy" | "no_answer" | "voicemail" | "hang_up";

export interface SimScript {
  behaviour: SimBehaviour;
  lines: string[];
  digits: string | null;
  ringMs: number;
  hangUpAfterMs: number | null;
  greeting: string;
  /** Speak over the agent (to test barge-in) instead of waiting for it to finish. */
  bargeIn: boolean;
  voice: string;
}

/**
 * Destinations that behave a certain way without any per-call setting, like a carrier's test
 * numbers: the last two digits of a fictional 555-01XX number pick the behaviour. Anything else
 * answers after one ring and stays silent.
 */
export const SIMULATED_DESTINATIONS: Record<string, SimBehaviour> = { "01": "busy", "02": "no_answer", "03": "voicemail", "04": "hang_up" };

function behaviourOfNumber(to: string | undefined): SimBehaviour | undefined {
  const match = to ? /^\+1[2-9]\d\d55501(\d\d)$/.exec(to) : null;
  return match ? SIMULATED_DESTINATIONS[match[1]] : undefined;
}

/** The callee's script: the call's `simulation` settings over the destination number's behaviour. */
export function simScript(options: Record<string, unknown> | null | undefined, to?: string): SimScript {
  const o = options ?? {};
  const behaviour = (o.behaviour as SimBehaviour | undefined) ?? behaviourOfNumber(to) ?? ((o.lines as string[] | undefined)?.length ? "answer" : "silent");
  return {
    behaviour,
    lines: (o.lines as string[] | undefined) ?? [],
    digits: (o.digits as string | undefined) ?? null,
    ringMs: (o.ring_ms as number | undefined) ?? (behaviour === "no_answer" ? 6000 : 1000),
    hangUpAfterMs: (o.hang_up_after_ms as number | undefined) ?? (behaviour === "hang_up" ? 3000 : null),
    greeting: (o.greeting as string | undefined) ?? "Hi, you have reached Sam. I can't take your call right now. Please leave a message after the tone.",
    bargeIn: (o.barge_in as boolean | undefined) ?? false,
    voice: (o.voice as string | undefined) ?? "kal16",
  };
}

/** Something the callee said, on its own audio timeline (ms since it answered). */
export interface SpokenLine {
  text: string;
  startMs: number;
  endMs: number;
}

/**
 * The person (or machine) at the other end of a simulated call: it speaks its lines as real
 * synthesised audio when the agent pauses, presses keys, plays a voicemail greeting and beep, or
 * hangs up, and it remembers what it heard, for tests to check.
 */
export class SimulatedCallee {
  readonly spoken: SpokenLine[] = [];
  readonly heardDigits: string[] = [];
  agentFramesHeard = 0;
  /** When each stretch of the agent's voice began, on the callee's timeline from the answer. */
  readonly agentAudioStarts: number[] = [];
  private outgoing: Uint8Array[] = [];
  private elapsedMs = 0;
  private nextLine = 0;
  private agentTalking = false;
  private lastAgentAudioMs = -1;
  private preparing = false;
  private digitsSent = false;
  private greeted = false;
  /** When the callee's own last line ends on its timeline (0 before it spoke). */
  private ownLineEndMs = 0;

  constructor(
    private readonly script: SimScript,
    private readonly tts: TextToSpeech,
    private readonly announce: (line: SpokenLine) => void,
    private readonly hangUp: () => void,
    /** The line fails: the callee cannot go on (its speech could not be synthesised). */
    private readonly fail: (detail: string) => void,
  ) {}

  /** The callee's audio for the next 20 ms (silence when it says nothing). */
  nextFrame(): Uint8Array {
    this.elapsedMs += 20;
    if (this.script.hangUpAfterMs !== null && this.elapsedMs >= this.script.hangUpAfterMs) {
      this.hangUp();
      return SILENCE;
    }
    this.decide();
    return this.outgoing.shift() ?? SILENCE;
  }

  /** A frame of the agent's audio arrived. */
  hear(frame: Uint8Array): void {
    this.agentFramesHeard++;
    const loud = rmsDbfs(decodeMulaw(frame)) > -50;
    if (loud) {
      if (!this.agentTalking) this.agentAudioStarts.push(this.elapsedMs);
      this.agentTalking = true;
      this.lastAgentAudioMs = this.elapsedMs;
    }
  }

  private decide(): void {
    if (this.agentTalking && this.elapsedMs - this.lastAgentAudioMs > 100) this.agentTalking = false;
    if (this.preparing || this.outgoing.length) return;
    const { behaviour } = this.script;
    if (behaviour === "voicemail") {
      if (!this.greeted) {
        this.greeted = true;
        this.say(this.script.greeting, () => {
          for (let i = 0; i < 25; i++) this.outgoing.push(SILENCE);
          this.queuePcm(generateTone(1000, 500, { sampleRate: SIM_RATE, amplitudeDbfs: -8 }));
        });
      }
      return;
    }
    if (behaviour !== "answer" && behaviour !== "hang_up") return;
    const agentAnswered = this.lastAgentAudioMs > this.ownLineEndMs;
    const agentDone = agentAnswered && !this.agentTalking && this.elapsedMs - this.lastAgentAudioMs >= 700;
    if (this.nextLine < this.script.lines.length) {
      // Like a person: answer when the agent has finished a sentence and paused, or speak up after
      // a long silence; with barge_in, talk over the agent once it is well into its turn.
      const sinceOwnLine = this.elapsedMs - this.ownLineEndMs;
      const longSilence = !agentAnswered && !this.agentTalking && sinceOwnLine >= 4000;
      const overAgent = this.script.bargeIn && this.agentTalking && this.elapsedMs - this.agentAudioStarts.at(-1)! >= 800;
      if (agentDone || longSilence || overAgent) this.say(this.script.lines[this.nextLine++]);
      return;
    }
    // Keys go in answer to the agent's prompt, not into the silence before it has said anything.
    if (this.script.digits && !this.digitsSent && agentDone) {
      this.digitsSent = true;
      this.queuePcm(generateDtmf(this.script.digits, { sampleRate: SIM_RATE }));
    }
  }

  private say(text: string, then?: () => void): void {
    this.preparing = true;
    void (async () => {
      const chunks: Int16Array[] = [];
      try {
        for await (const chunk of this.tts.synthesize(text, { voice: this.script.voice, speed: 1, sampleRate: SIM_RATE })) chunks.push(chunk);
      } finally {
        this.preparing = false;
      }
      // The next frame out covers [elapsedMs, elapsedMs + 20) of the call's audio, after what is queued.
      const line = { text, startMs: this.elapsedMs + 20 * this.outgoing.length, endMs: 0 };
      const pcm = concatPcm(chunks);
      line.endMs = line.startMs + Math.round((pcm.length / SIM_RATE) * 1000);
      this.queuePcm(pcm);
      this.announce(line);
      this.spoken.push(line);
      this.ownLineEndMs = line.endMs;
      then?.();
    })().catch((error) => this.fail(`the simulated callee could not speak: ${(error as Error).message}`));
  }

  private queuePcm(pcm: Int16Array): void {
    const framer = new PcmFramer(FRAME);
    framer.push(pcm);
    for (let frame = framer.flush(); frame; frame = framer.flush()) this.outgoing.push(encodeMulaw(frame));
  }
}
