import { BeepDetector } from "../media/tones.ts";
import { FRAME_MS } from "../media/media-clock.ts";
import { AnsweringMachineDetector, type AmdVerdict } from "./amd.ts";

/** Greetings longer than this without a beep get the message anyway rather than waiting forever. */
export const BEEP_WAIT_MS = 20_000;

/**
 * The start of an outbound call: is a person or a machine answering, and, for a machine, when its
 * beep says the message may start. Fed every caller frame with the VAD's decision.
 */
export class CallScreening {
  private readonly amd = new AnsweringMachineDetector();
  private readonly beeps: BeepDetector;

  constructor(sampleRate: number) {
    this.beeps = new BeepDetector({ sampleRate });
  }

  /** While deciding: the verdict once there is one. */
  push(pcm: Int16Array, isSpeech: boolean): AmdVerdict | null {
    return this.amd.push(FRAME_MS, isSpeech, this.beep(pcm));
  }

  /** After a machine verdict: whether this frame carried the beep. */
  beep(pcm: Int16Array): boolean {
    return this.beeps.push(pcm).length > 0;
  }

  get reason(): string | undefined {
    return this.amd.reasons.at(-1);
  }
}
