import type { ProviderConnection } from "../../../providers/connection.ts";
import { SpeechProviderError, type SynthesisOptions, type TextToSpeech, type Voice } from "../types.ts";
import { pcmChunks } from "./pcm-stream.ts";
import { openStreamingRequest } from "./provider-errors.ts";

export interface OpenAiSpeechOptions {
  /** `tts-1` unless set (tts-1-hd, gpt-4o-mini-tts, or whatever a compatible server calls its model). */
  model?: string;
  /**
   * `pcm` (raw 16-bit LE mono, no header) by default; `wav` for compatible servers that cannot send
   * raw PCM — the header then gives the rate.
   */
  responseFormat?: "pcm" | "wav";
  /** Rate of `pcm` answers: 24 kHz for OpenAI (and Kokoro-FastAPI); other servers may differ. */
  pcmSampleRate?: number;
  /** Voice ids to list instead of OpenAI's own (compatible servers accept other names). */
  voices?: string[];
  /** Time to the response headers. */
  connectTimeoutMs?: number;
  /** Longest gap between two pieces of audio once the answer has started. */
  idleTimeoutMs?: number;
}

/** The API's limit on `input`. */
const MAX_INPUT_CHARS = 4096;

/** OpenAI's built-in voices; the API has no endpoint that lists them. */
export const OPENAI_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse", "marin", "cedar"] as const;

/**
 * Speech over `POST {base}/audio/speech` (OpenAI and compatible servers: Kokoro-FastAPI, speaches,
 * LocalAI…), read as it streams and resampled to the rate the caller wants.
 */
export class OpenAiSpeech implements TextToSpeech {
  readonly id: string;

  constructor(
    private readonly connection: ProviderConnection,
    private readonly options: OpenAiSpeechOptions = {},
  ) {
    this.id = `openai:${connection.id}`;
  }

  async *synthesize(text: string, options: SynthesisOptions): AsyncGenerator<Int16Array> {
    for (const piece of splitText(text.trim(), MAX_INPUT_CHARS)) {
      if (options.signal?.aborted) return;
      yield* this.synthesizePiece(piece, options);
    }
  }

  private async *synthesizePiece(text: string, options: SynthesisOptions): AsyncGenerator<Int16Array> {
    const format = this.options.responseFormat ?? "pcm";
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.connection.apiKey) headers.authorization = `Bearer ${this.connection.apiKey}`;
    const body = JSON.stringify({
      model: this.options.model ?? "tts-1",
      input: text,
      voice: options.voice,
      speed: clamp(options.speed, 0.25, 4),
      response_format: format,
    });
    const response = await openStreamingRequest(`${this.connection.baseUrl}/audio/speech`, { method: "POST", headers, body }, this.connection.policy, {
      connectTimeoutMs: this.options.connectTimeoutMs ?? 15_000,
      signal: options.signal,
      provider: "OpenAI speech",
    });
    if (!response) return;
    if (!response.body) throw new SpeechProviderError("OpenAI speech: the answer has no body");
    yield* pcmChunks(response.body, {
      fromRate: this.options.pcmSampleRate ?? 24_000,
      toRate: options.sampleRate,
      container: format === "wav" ? "wav" : "raw",
      idleTimeoutMs: this.options.idleTimeoutMs ?? 15_000,
      signal: options.signal,
      provider: "OpenAI speech",
    });
  }

  async voices(): Promise<Voice[]> {
    return (this.options.voices ?? OPENAI_VOICES).map((id) => ({
      id,
      name: id.charAt(0).toUpperCase() + id.slice(1),
      provider_id: this.connection.id,
      language: "en",
      gender: null,
      description: null,
    }));
  }
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : 1;
}

/** Pieces of at most `limit` characters, cut after a sentence or at least a space when one is near. */
export function splitText(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const sentence = Math.max(window.lastIndexOf(". "), window.lastIndexOf("! "), window.lastIndexOf("? "), window.lastIndexOf("\n"));
    const cut = sentence > limit / 2 ? sentence + 1 : window.lastIndexOf(" ") > limit / 2 ? window.lastIndexOf(" ") : limit;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}
