import { sendOutbound } from "../../../net/outbound.ts";
import type { ProviderConnection } from "../../../providers/connection.ts";
import { pcmChunks } from "../openai/pcm-stream.ts";
import { openStreamingRequest, speechErrorFrom, speechErrorFromStatus } from "../openai/provider-errors.ts";
import { SpeechProviderError, type SynthesisOptions, type TextToSpeech, type Voice } from "../types.ts";

export interface ElevenLabsSpeechOptions {
  /** `eleven_flash_v2_5` (lowest latency, 32 languages) unless set. */
  modelId?: string;
  /** Time to the response headers. */
  connectTimeoutMs?: number;
  /** Longest gap between two pieces of audio once the answer has started. */
  idleTimeoutMs?: number;
}

/** Raw PCM (S16LE) rates the stream endpoint produces as `pcm_<rate>`; others are resampled from the nearest. */
export const ELEVENLABS_PCM_RATES = [8000, 16000, 22050, 24000] as const;

/**
 * ElevenLabs speech over `POST {base}/v1/text-to-speech/{voice_id}/stream?output_format=pcm_…`,
 * read as it streams; voices from `GET {base}/v1/voices`.
 */
export class ElevenLabsSpeech implements TextToSpeech {
  readonly id: string;

  constructor(
    private readonly connection: ProviderConnection,
    private readonly options: ElevenLabsSpeechOptions = {},
  ) {
    this.id = `elevenlabs:${connection.id}`;
  }

  async *synthesize(text: string, options: SynthesisOptions): AsyncGenerator<Int16Array> {
    if (!text.trim() || options.signal?.aborted) return;
    const rate = outputRateFor(options.sampleRate);
    const url = `${this.connection.baseUrl}/v1/text-to-speech/${encodeURIComponent(options.voice)}/stream?output_format=pcm_${rate}`;
    const speed = clamp(options.speed, 0.7, 1.2);
    // Sent only when it differs: voice_settings replaces the voice's stored settings for the request.
    const body = JSON.stringify({ text, model_id: this.options.modelId ?? "eleven_flash_v2_5", ...(speed !== 1 ? { voice_settings: { speed } } : {}) });
    const response = await openStreamingRequest(url, { method: "POST", headers: this.headers({ "content-type": "application/json" }), body }, this.connection.policy, {
      connectTimeoutMs: this.options.connectTimeoutMs ?? 15_000,
      signal: options.signal,
      provider: "ElevenLabs speech",
    });
    if (!response) return;
    if (!response.body) throw new SpeechProviderError("ElevenLabs speech: the answer has no body");
    yield* pcmChunks(response.body, {
      fromRate: rate,
      toRate: options.sampleRate,
      container: "raw",
      idleTimeoutMs: this.options.idleTimeoutMs ?? 15_000,
      signal: options.signal,
      provider: "ElevenLabs speech",
    });
  }

  async voices(): Promise<Voice[]> {
    let response;
    try {
      response = await sendOutbound(`${this.connection.baseUrl}/v1/voices`, { method: "GET", headers: this.headers({ accept: "application/json" }), timeoutMs: 15_000, maxResponseBytes: 16 * 1024 * 1024 }, this.connection.policy);
    } catch (error) {
      throw speechErrorFrom(error, "ElevenLabs voices");
    }
    const text = new TextDecoder().decode(response.body);
    if (response.status !== 200) throw speechErrorFromStatus("ElevenLabs voices", response.status, text);
    let parsed: { voices?: ElevenLabsVoice[] };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SpeechProviderError(`ElevenLabs voices: the answer is not JSON: ${text.slice(0, 200)}`);
    }
    if (!Array.isArray(parsed.voices)) throw new SpeechProviderError("ElevenLabs voices: the answer has no voices list");
    return parsed.voices.filter((v) => typeof v?.voice_id === "string").map((v) => voiceFrom(v, this.connection.id));
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return this.connection.apiKey ? { ...extra, "xi-api-key": this.connection.apiKey } : extra;
  }
}

/** The part of a `GET /v1/voices` entry Parley uses. */
interface ElevenLabsVoice {
  voice_id: string;
  name?: string;
  category?: string;
  description?: string | null;
  labels?: Record<string, string> | null;
  fine_tuning?: { language?: string | null } | null;
  verified_languages?: { language?: string; locale?: string | null }[] | null;
}

function voiceFrom(voice: ElevenLabsVoice, providerId: string): Voice {
  const labels = voice.labels ?? {};
  const gender = labels.gender?.toLowerCase();
  const traits = [labels.accent, labels.description ?? labels.descriptive, labels.age, labels.use_case?.replace(/_/g, " ")].filter((t): t is string => Boolean(t));
  return {
    id: voice.voice_id,
    name: voice.name ?? voice.voice_id,
    provider_id: providerId,
    language: voice.verified_languages?.[0]?.locale ?? voice.verified_languages?.[0]?.language ?? labels.language ?? voice.fine_tuning?.language ?? "en",
    gender: gender === "female" || gender === "male" || gender === "neutral" ? gender : null,
    description: voice.description?.trim() || (traits.length ? traits.join(", ") : null),
  };
}

/** The requested rate when the API produces it, else the nearest rate above (or the highest) to resample from. */
export function outputRateFor(sampleRate: number): number {
  return ELEVENLABS_PCM_RATES.find((rate) => rate === sampleRate) ?? ELEVENLABS_PCM_RATES.find((rate) => rate > sampleRate) ?? ELEVENLABS_PCM_RATES[ELEVENLABS_PCM_RATES.length - 1];
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : 1;
}
