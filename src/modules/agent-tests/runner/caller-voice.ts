import { concatPcm } from "../../../voice/media/frames.ts";
import { resampleBuffer } from "../../../voice/media/resampler.ts";
import { decodeWav } from "../../../voice/media/wav-format.ts";
import { announceUtterance, builtinTts, DEFAULT_BUILTIN_VOICE } from "../../../voice/speech/builtin/index.ts";
import { LINE_RATE, type TestCallerLeg } from "./test-caller-leg.ts";

/** Where a caller's words sit on its timeline (ms since the answer). */
export interface SpokenSpan {
  startMs: number;
  endMs: number;
}

/**
 * The caller's mouth: text in the built-in voice (announced to the simulated recogniser when the call
 * uses it, exactly as the simulated carrier's callee does), or an uploaded WAV at the line's rate.
 */
export class CallerVoice {
  constructor(
    private readonly callId: string,
    /** Announce `say` lines to the simulated recogniser (false: the agent's own recogniser hears them). */
    private readonly announce: boolean,
  ) {}

  async say(line: TestCallerLeg, text: string, voice = DEFAULT_BUILTIN_VOICE): Promise<SpokenSpan> {
    const chunks: Int16Array[] = [];
    for await (const chunk of builtinTts().synthesize(text, { voice, speed: 1, sampleRate: LINE_RATE })) chunks.push(chunk);
    const span = line.play(concatPcm(chunks));
    if (this.announce && span.endMs > span.startMs) announceUtterance(this.callId, text, span.startMs, span.endMs);
    return span;
  }

  play(line: TestCallerLeg, base64Wav: string): SpokenSpan {
    return line.play(wavAtLineRate(base64Wav));
  }
}

/** An uploaded WAV (16-bit PCM, any channels, 8–48 kHz) as mono PCM at the line's rate. */
export function wavAtLineRate(base64Wav: string): Int16Array {
  const { info, samples } = decodeWav(Buffer.from(base64Wav, "base64"));
  let mono = samples;
  if (info.channels > 1) {
    // The first channel: mixing could cancel out a recording whose channels are out of phase.
    mono = new Int16Array(Math.floor(samples.length / info.channels));
    for (let i = 0; i < mono.length; i++) mono[i] = samples[i * info.channels];
  }
  return info.sampleRate === LINE_RATE ? mono : resampleBuffer(mono, info.sampleRate, LINE_RATE);
}
