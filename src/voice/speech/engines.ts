// Which engine speaks and which listens for an agent: the built-in offline ones or a provider
// connection of the workspace. Provider connections carry their model choices in `settings`
// (tts_model, stt_model, tts_format, tts_sample_rate, voices), so agents only name a connection.
import type { AppContext } from "../../core/context.ts";
import { findProvider, type ProviderRow } from "../../providers/store.ts";
import { connectionOf } from "../../providers/connection.ts";
import { builtinStt, builtinTts, builtinVoices, pocketsphinxAvailability, POCKETSPHINX_INSTALL } from "./builtin/index.ts";
import { DeepgramTranscriber } from "./deepgram/index.ts";
import { ElevenLabsSpeech } from "./elevenlabs/index.ts";
import { OpenAiSpeech, OpenAiTranscriber } from "./openai/index.ts";
import type { SpeechToText, TextToSpeech, Voice } from "./types.ts";

const str = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

function textToSpeechOf(ctx: AppContext, row: ProviderRow): TextToSpeech | null {
  const settings = row.settings as Record<string, unknown>;
  const connection = connectionOf(ctx, row);
  if (row.kind === "elevenlabs") return new ElevenLabsSpeech(connection, { modelId: str(settings.tts_model) });
  if (row.kind === "openai-compatible") {
    return new OpenAiSpeech(connection, {
      model: str(settings.tts_model),
      responseFormat: settings.tts_format === "wav" ? "wav" : "pcm",
      pcmSampleRate: num(settings.tts_sample_rate),
      voices: Array.isArray(settings.voices) ? settings.voices.filter((v): v is string => typeof v === "string") : undefined,
    });
  }
  return null;
}

function speechToTextOf(ctx: AppContext, row: ProviderRow, model: string | undefined): SpeechToText | null {
  const settings = row.settings as Record<string, unknown>;
  const connection = connectionOf(ctx, row);
  if (row.kind === "deepgram") return new DeepgramTranscriber(connection, { model: model ?? str(settings.stt_model) });
  if (row.kind === "openai-compatible") return new OpenAiTranscriber(connection, { model: model ?? str(settings.stt_model) });
  return null;
}

export class EngineUnavailable extends Error {}

export function ttsFor(ctx: AppContext, workspaceId: string, providerId: string): TextToSpeech {
  if (providerId === "builtin") return builtinTts();
  const row = findProvider(ctx.db, workspaceId, providerId);
  const engine = row ? textToSpeechOf(ctx, row) : null;
  if (!engine) throw new EngineUnavailable(row ? `a ${row.kind} connection cannot speak` : `no provider connection ${providerId}`);
  return engine;
}

/** Which recogniser an agent asked for (its `transcriber`). */
export interface TranscriberChoice {
  provider_id: string;
  model?: string;
}

export function sttFor(ctx: AppContext, workspaceId: string, transcriber: TranscriberChoice): SpeechToText {
  if (transcriber.provider_id === "builtin") return builtinStt("builtin:pocketsphinx");
  const row = findProvider(ctx.db, workspaceId, transcriber.provider_id);
  const engine = row ? speechToTextOf(ctx, row, transcriber.model) : null;
  if (!engine) throw new EngineUnavailable(row ? `a ${row.kind} connection cannot transcribe` : `no provider connection ${transcriber.provider_id}`);
  return engine;
}

/** Whether this machine can recognise speech offline, worded for the operator. */
export function offlineRecognition(): { available: boolean; detail: string } {
  const { available, reason, carried } = pocketsphinxAvailability();
  return available
    ? { available, detail: carried ? "PocketSphinx (US English), carried by this executable" : "PocketSphinx (US English) is installed" }
    : { available, detail: `no offline recogniser is available. ${reason ?? `Install it with: ${POCKETSPHINX_INSTALL}`}. Or use a speech provider (openai-compatible or deepgram)` };
}

export interface VoiceListing {
  voices: Voice[];
  /** Connections whose voices could not be listed (unreachable, bad key), so the UI can say so. */
  errors: { provider_id: string; message: string }[];
}

/** The built-in voices and those of every connection that can speak, fetched concurrently. */
export async function listVoices(ctx: AppContext, workspaceId: string, rows: ProviderRow[]): Promise<VoiceListing> {
  const listing: VoiceListing = { voices: builtinVoices(), errors: [] };
  const results = await Promise.allSettled(
    rows.map(async (row) => {
      const engine = textToSpeechOf(ctx, row);
      return engine ? engine.voices() : [];
    }),
  );
  results.forEach((result, i) => {
    if (result.status === "fulfilled") listing.voices.push(...result.value.map((voice) => ({ ...voice, provider_id: rows[i].id })));
    else listing.errors.push({ provider_id: rows[i].id, message: (result.reason as Error).message });
  });
  return listing;
}
