import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ApiError, invalid } from "../../http/errors.ts";
import { OneOf } from "../../http/models.ts";
import { wavFileToMp3 } from "../../voice/media/mp3.ts";
import { encodeWav } from "../../voice/media/wav-format.ts";
import { concatPcm } from "../../voice/media/frames.ts";
import { EngineUnavailable, listVoices, ttsFor } from "../../voice/speech/engines.ts";
import { isBuiltinVoice } from "../../voice/speech/builtin/index.ts";
import { SpeechProviderError } from "../../voice/speech/types.ts";
import { findProvider } from "../../providers/store.ts";
import { allProviders } from "../../providers/store.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const doc = docsFor("Voices");

const Voice = t.Object({
  object: t.Literal("voice"),
  id: t.String({ description: "The value of an agent's `voice.voice_id`" }),
  name: t.String(),
  provider_id: t.String({ description: "`builtin` or the connection `prv_…` that serves it" }),
  language: t.String(),
  gender: t.Union([OneOf(["female", "male", "neutral"]), t.Null()]),
  description: t.Union([t.String(), t.Null()]),
});

const PreviewBody = t.Object(
  {
    provider_id: t.Optional(t.String({ description: "`builtin` (default) or a provider connection that can speak" })),
    voice_id: t.String({ minLength: 1, maxLength: 200 }),
    text: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "What to say (default: a short greeting)" })),
    speed: t.Optional(t.Number({ minimum: 0.5, maximum: 2 })),
    format: t.Optional(OneOf(["wav", "mp3"], { description: "wav (default) or mp3" })),
  },
  { additionalProperties: false },
);

/** A preview is a sample, not a call: wideband, mono. */
const PREVIEW_RATE = 16_000;

export function voiceRoutes(ctx: HttpContext) {
  return new Elysia({ prefix: "/v1/voices" })
    .use(authPlugin(ctx))
    .get(
      "/",
      async ({ principal, query }) => {
        if (query.provider_id && query.provider_id !== "builtin" && !findProvider(ctx.db, principal.workspaceId, query.provider_id)) {
          throw invalid("provider_id", `no provider connection ${query.provider_id} in this workspace`);
        }
        const rows = allProviders(ctx.db, principal.workspaceId).filter((row) => !query.provider_id || row.id === query.provider_id);
        const listing = await listVoices(ctx, principal.workspaceId, rows);
        const voices = listing.voices.filter((voice) => !query.provider_id || voice.provider_id === query.provider_id);
        return { data: voices.map((voice) => ({ object: "voice" as const, ...voice })), has_more: false, next_cursor: null, errors: listing.errors };
      },
      {
        auth: "read",
        query: t.Object({ provider_id: t.Optional(t.String({ description: "Only this connection's voices (`builtin` for the offline engine)" })) }),
        response: {
          200: t.Object({
            data: t.Array(Voice),
            has_more: t.Boolean(),
            next_cursor: t.Union([t.String(), t.Null()]),
            errors: t.Array(t.Object({ provider_id: t.String(), message: t.String() }), { description: "Connections whose voices could not be listed, and why" }),
          }),
        },
        detail: doc("listVoices", "Voices available to agents"),
      },
    )
    .post(
      "/preview",
      async ({ principal, body }) => {
        const providerId = body.provider_id ?? "builtin";
        if (providerId === "builtin" && !isBuiltinVoice(body.voice_id)) throw invalid("voice_id", `the built-in engine has no voice ${body.voice_id}`);
        if (providerId !== "builtin" && !findProvider(ctx.db, principal.workspaceId, providerId)) throw invalid("provider_id", `no provider connection ${providerId} in this workspace`);
        let tts;
        try {
          tts = ttsFor(ctx, principal.workspaceId, providerId);
        } catch (error) {
          if (error instanceof EngineUnavailable) throw invalid("provider_id", error.message);
          throw error;
        }
        const chunks: Int16Array[] = [];
        try {
          const text = body.text ?? "Hello! This is how I sound on a call.";
          for await (const chunk of tts.synthesize(text, { voice: body.voice_id, speed: body.speed ?? 1, sampleRate: PREVIEW_RATE })) chunks.push(chunk);
        } catch (error) {
          // A provider answers 404 for a voice it does not have (ElevenLabs: voice_not_found).
          if (error instanceof SpeechProviderError && error.status === 404) throw invalid("voice_id", `the provider has no voice ${body.voice_id}: ${error.message}`);
          if (error instanceof SpeechProviderError) throw new ApiError("bad_gateway", `the voice provider failed: ${error.message}`);
          throw error;
        }
        if (!chunks.some((chunk) => chunk.length > 0)) throw new ApiError("bad_gateway", "the voice provider answered without audio");
        const wav = encodeWav(concatPcm(chunks), { sampleRate: PREVIEW_RATE, channels: 1 });
        if (body.format !== "mp3") return new Response(wav, { headers: { "content-type": "audio/wav", "content-length": String(wav.byteLength) } });
        return new Response(await mp3Of(wav), { headers: { "content-type": "audio/mpeg" } });
      },
      {
        auth: "write",
        body: PreviewBody,
        response: { 200: t.String({ description: "audio/wav (16 kHz mono) or audio/mpeg" }) },
        detail: { ...doc("previewVoice", "Synthesize a sample"), "x-response-types": ["audio/wav", "audio/mpeg"] },
      },
    );
}

/** The encoder works file to file (recordings are long); a preview borrows a temporary directory. */
async function mp3Of(wav: Uint8Array): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), "parley-preview-"));
  try {
    await Bun.write(join(dir, "in.wav"), wav);
    await wavFileToMp3(join(dir, "in.wav"), join(dir, "out.mp3"), { mono: true });
    return new Uint8Array(await Bun.file(join(dir, "out.mp3")).arrayBuffer());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

nameSchemas({ Voice, VoicePreviewRequest: PreviewBody });
