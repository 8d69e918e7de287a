import { sendOutbound } from "../../../net/outbound.ts";
import type { ProviderConnection } from "../../../providers/connection.ts";
import { SpeechProviderError, type RecognitionOptions, type RecognitionSession, type SpeechToText, type Transcript } from "../types.ts";
import { encodeWav } from "./pcm-stream.ts";
import { isAbort, speechErrorFrom, speechErrorFromStatus } from "./provider-errors.ts";

export interface OpenAiTranscriberOptions {
  /** `whisper-1` unless the agent or this option names another (gpt-4o-transcribe, a local Whisper…). */
  model?: string;
  /** Whole request, upload to answer. */
  timeoutMs?: number;
}

/** OpenAI rejects shorter files ("Minimum audio length is 0.1 seconds"); such an utterance is empty. */
const MIN_AUDIO_MS = 100;
/** The API's upload limit. */
const MAX_FILE_BYTES = 25 * 1024 * 1024;

/**
 * Batch recognition over `POST {base}/audio/transcriptions` (OpenAI and compatible servers: speaches,
 * faster-whisper-server, LocalAI…): the session buffers the utterance and uploads it as one WAV file
 * in finish(). transcribeSoFar() uploads what was written so far (at a pause) and finish() reuses that
 * answer when nothing was written after it.
 */
export class OpenAiTranscriber implements SpeechToText {
  readonly id: string;
  /** Whisper and its kin write punctuated sentences. */
  readonly punctuates = true;

  constructor(
    private readonly connection: ProviderConnection,
    private readonly options: OpenAiTranscriberOptions = {},
  ) {
    this.id = `openai:${connection.id}`;
  }

  start(options: RecognitionOptions): RecognitionSession {
    const chunks: Int16Array[] = [];
    let samples = 0;
    let aborted = false;
    let finishing: Promise<Transcript> | null = null;
    /** The latest speculative transcription and how many samples it covered. */
    let speculation: { samples: number; result: Promise<Transcript> } | null = null;
    const controller = new AbortController();
    const abort = () => {
      aborted = true;
      controller.abort();
    };
    options.signal?.addEventListener("abort", abort, { once: true });
    // Takes the audio written so far synchronously, before its first await, so later writes are not in it.
    const transcribeWritten = async (): Promise<Transcript> => {
      if (aborted) throw new SpeechProviderError("OpenAI transcription: aborted");
      if ((samples / options.sampleRate) * 1000 < MIN_AUDIO_MS) return { text: "", confidence: null };
      const pcm = new Int16Array(samples);
      let at = 0;
      for (const chunk of chunks) pcm.set(chunk, (at += chunk.length) - chunk.length);
      return await this.transcribe(encodeWav(pcm, options.sampleRate), options, controller.signal);
    };

    return {
      write(pcm) {
        if (aborted || finishing || pcm.length === 0) return;
        chunks.push(pcm.slice()); // the caller may reuse its buffer
        samples += pcm.length;
      },
      transcribeSoFar() {
        if (finishing) return Promise.reject(new SpeechProviderError("OpenAI transcription: the session has finished"));
        if (speculation?.samples === samples) return speculation.result; // the same audio: no second upload
        const entry = { samples, result: transcribeWritten() };
        speculation = entry;
        // A failed speculation is forgotten, so asking again (or finish()) uploads anew.
        entry.result.catch(() => speculation === entry && (speculation = null));
        return entry.result;
      },
      finish: () => {
        finishing ??= (async () => {
          try {
            if (speculation?.samples === samples) {
              try {
                return await speculation.result;
              } catch (error) {
                if (aborted) throw error;
              }
            }
            return await transcribeWritten();
          } finally {
            options.signal?.removeEventListener("abort", abort);
          }
        })();
        // A caller that abandons the turn and aborts need not await the rejection.
        finishing.catch(() => {});
        return finishing;
      },
      abort,
    };
  }

  private async transcribe(wav: Uint8Array, options: RecognitionOptions, signal: AbortSignal): Promise<Transcript> {
    if (wav.length > MAX_FILE_BYTES) throw new SpeechProviderError(`OpenAI transcription: the utterance is ${Math.round(wav.length / 1024 / 1024)} MB, over the 25 MB upload limit`);
    const form = new FormData();
    form.append("file", new Blob([wav], { type: "audio/wav" }), "utterance.wav");
    form.append("model", options.model ?? this.options.model ?? "whisper-1");
    const language = primarySubtag(options.language);
    if (language) form.append("language", language);
    form.append("response_format", "json");
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.connection.apiKey) headers.authorization = `Bearer ${this.connection.apiKey}`;
    let response;
    try {
      response = await sendOutbound(
        `${this.connection.baseUrl}/audio/transcriptions`,
        // fetch takes any BodyInit; OutboundRequest types the body as a string only.
        { method: "POST", headers, body: form, timeoutMs: this.options.timeoutMs ?? 30_000, maxResponseBytes: 1024 * 1024, signal },
        this.connection.policy,
      );
    } catch (error) {
      if (isAbort(error, signal)) throw new SpeechProviderError("OpenAI transcription: aborted");
      throw speechErrorFrom(error, "OpenAI transcription");
    }
    const text = new TextDecoder().decode(response.body);
    if (response.status < 200 || response.status >= 300) throw speechErrorFromStatus("OpenAI transcription", response.status, text);
    let parsed: { text?: unknown };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SpeechProviderError(`OpenAI transcription: the answer is not JSON: ${text.slice(0, 200)}`);
    }
    if (typeof parsed.text !== "string") throw new SpeechProviderError("OpenAI transcription: the answer has no text field");
    return { text: parsed.text.trim(), confidence: null };
  }
}

/** `en-US` → `en`: the API takes ISO-639-1; an unknown or undetermined language lets the model detect it. */
export function primarySubtag(language: string): string | null {
  const primary = language.trim().split(/[-_]/)[0].toLowerCase();
  return /^[a-z]{2,3}$/.test(primary) && primary !== "und" && primary !== "mul" ? primary : null;
}
