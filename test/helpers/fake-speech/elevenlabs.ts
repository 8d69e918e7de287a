// A local server speaking ElevenLabs' REST API: `POST /v1/text-to-speech/{voice_id}/stream` with
// `xi-api-key`, `output_format=pcm_<rate>` in the query and `{text, model_id, voice_settings}` in the
// body, answered with a tone as raw PCM16 at that rate, chunked, after a configurable time to first
// byte; `GET /v1/voices` with the voices it knows. Errors use ElevenLabs' `{detail:{status,message}}`
// body, and FastAPI's `{detail:[…]}` for body validation (422).

import { newStreamLog, pcmBody, pcmBytes, tone, type StreamLog } from "./audio.ts";

export interface ElevenLabsRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  at: number;
  json?: any;
  stream?: StreamLog;
}

export interface ElevenLabsConfig {
  /** Wait before the response headers. */
  ttfbMs: number;
  /** Bytes per streamed piece and the pause between pieces. */
  chunkBytes: number;
  chunkDelayMs: number;
  /** Audio per text character at speed 1. */
  msPerChar: number;
  frequency: number;
  /** Answer every request with this error instead. */
  fail: { status: number; status_code?: string; message: string } | null;
}

export interface FakeVoice {
  voice_id: string;
  name: string;
  category?: string;
  description?: string | null;
  labels?: Record<string, string>;
  verified_languages?: { language: string; model_id: string; accent?: string | null; locale?: string | null; preview_url?: string | null }[];
}

export interface FakeElevenLabs {
  /** The base a connection stores (`https://api.elevenlabs.io` in production). */
  url: string;
  requests: ElevenLabsRequest[];
  voices: FakeVoice[];
  configure(config: Partial<ElevenLabsConfig>): void;
  stop(): void;
}

export const ELEVENLABS_OUTPUT_FORMATS = ["mp3_22050_32", "mp3_44100_32", "mp3_44100_64", "mp3_44100_96", "mp3_44100_128", "mp3_44100_192", "pcm_8000", "pcm_16000", "pcm_22050", "pcm_24000", "pcm_44100", "ulaw_8000"];

export const DEFAULT_FAKE_VOICES: FakeVoice[] = [
  {
    voice_id: "21m00Tcm4TlvDq8ikWAM",
    name: "Rachel",
    category: "premade",
    description: null,
    labels: { accent: "american", description: "calm", age: "young", gender: "female", use_case: "narration" },
    verified_languages: [{ language: "en", model_id: "eleven_flash_v2_5", accent: "american", locale: "en-US", preview_url: null }],
  },
  {
    voice_id: "pNInz6obpgDQGcFmaJgB",
    name: "Adam",
    category: "premade",
    description: "A deep, steady narrator.",
    labels: { accent: "american", age: "middle aged", gender: "male", use_case: "narration" },
  },
];

const DEFAULTS: ElevenLabsConfig = { ttfbMs: 0, chunkBytes: 3200, chunkDelayMs: 5, msPerChar: 50, frequency: 440, fail: null };

export function startFakeElevenLabs(options: { apiKey?: string; voices?: FakeVoice[] } = {}): FakeElevenLabs {
  const requests: ElevenLabsRequest[] = [];
  const voices = options.voices ?? DEFAULT_FAKE_VOICES.map((v) => ({ ...v }));
  let config: ElevenLabsConfig = { ...DEFAULTS };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const entry: ElevenLabsRequest = { method: request.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: Object.fromEntries(request.headers), at: Date.now() };
      requests.push(entry);
      if (options.apiKey !== undefined && request.headers.get("xi-api-key") !== options.apiKey) {
        return detail(401, request.headers.get("xi-api-key") ? "invalid_api_key" : "needs_authorization", request.headers.get("xi-api-key") ? "Invalid API key" : "Neither authorization header nor xi-api-key received, please provide one.");
      }
      if (config.ttfbMs) await Bun.sleep(config.ttfbMs);
      if (config.fail) return detail(config.fail.status, config.fail.status_code ?? "internal_error", config.fail.message);
      if (request.method === "GET" && url.pathname === "/v1/voices") return Response.json({ voices });
      const speech = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(url.pathname);
      if (request.method === "POST" && speech) return stream(request, entry, decodeURIComponent(speech[1]), voices, config);
      return Response.json({ detail: "Not Found" }, { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    voices,
    configure(next) {
      config = { ...config, ...next };
    },
    stop: () => server.stop(true),
  };
}

async function stream(request: Request, entry: ElevenLabsRequest, voiceId: string, voices: FakeVoice[], config: ElevenLabsConfig): Promise<Response> {
  const format = entry.query.output_format ?? "mp3_44100_128";
  if (!ELEVENLABS_OUTPUT_FORMATS.includes(format)) return validation(["query", "output_format"], `Input should be one of ${ELEVENLABS_OUTPUT_FORMATS.join(", ")}`, "enum");
  let body: any;
  try {
    body = await request.json();
  } catch {
    return validation(["body"], "JSON decode error", "json_invalid");
  }
  entry.json = body;
  if (typeof body?.text !== "string") return validation(["body", "text"], "Field required", "missing");
  const speed = body.voice_settings?.speed ?? 1;
  if (typeof speed !== "number" || speed < 0.7 || speed > 1.2) return validation(["body", "voice_settings", "speed"], "Input should be between 0.7 and 1.2", "value_error");
  if (!voices.some((v) => v.voice_id === voiceId)) return detail(404, "voice_not_found", `A voice with the voice_id ${voiceId} was not found.`);
  if (!format.startsWith("pcm_")) return detail(400, "unsupported_by_fake", `this fake only produces pcm_*, not ${format}`);
  const rate = Number(format.slice(4));
  const ms = (Math.max(1, body.text.length) * config.msPerChar) / speed;
  entry.stream = newStreamLog();
  return new Response(pcmBody(pcmBytes(tone(rate, ms, config.frequency)), { chunkBytes: config.chunkBytes, delayMs: config.chunkDelayMs, log: entry.stream }), {
    headers: { "content-type": "audio/pcm", "request-id": crypto.randomUUID() },
  });
}

function detail(status: number, code: string, message: string): Response {
  return Response.json({ detail: { status: code, message } }, { status });
}

function validation(loc: string[], msg: string, type: string): Response {
  return Response.json({ detail: [{ type, loc, msg, input: null }] }, { status: 422 });
}
