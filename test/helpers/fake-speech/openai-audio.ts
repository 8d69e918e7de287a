// A local server speaking OpenAI's audio API: `POST /v1/audio/transcriptions` (multipart upload,
// json / text / verbose_json answers) and `POST /v1/audio/speech` (a tone as raw 24 kHz PCM16 or a
// streamed WAV, chunked, with a configurable time to first byte). Errors use OpenAI's error body.

import { newStreamLog, pcmBody, pcmBytes, readWav, tone, type StreamLog, type WavInfo } from "./audio.ts";

export interface TranscriptionUpload {
  fields: Record<string, string>;
  file: { name: string; type: string; size: number };
  /** The parsed upload when it is a WAV file. */
  wav: WavInfo | null;
  durationMs: number;
}

export interface OpenAiAudioRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  at: number;
  /** `/audio/speech`: the JSON body. */
  json?: any;
  /** `/audio/transcriptions`: the multipart upload. */
  upload?: TranscriptionUpload;
  /** `/audio/speech`: how the streamed answer went. */
  stream?: StreamLog;
}

export interface OpenAiAudioConfig {
  /** What transcriptions return; a function sees the upload. */
  transcript: string | ((upload: TranscriptionUpload) => string);
  /** Wait before the response headers, on both endpoints. */
  ttfbMs: number;
  /** Bytes per streamed piece (odd sizes split samples, as real networks do) and the pause between pieces. */
  chunkBytes: number;
  chunkDelayMs: number;
  /** Audio per input character at speed 1. */
  msPerChar: number;
  /** Tone frequency of the synthesised "speech". */
  frequency: number;
  /** Answer every request with this error instead. */
  fail: { status: number; message: string; type?: string; code?: string | null } | null;
}

export interface FakeOpenAiAudio {
  /** Base URL including `/v1`, as an OpenAI-compatible connection stores it. */
  url: string;
  requests: OpenAiAudioRequest[];
  configure(config: Partial<OpenAiAudioConfig>): void;
  stop(): void;
}

/** OpenAI's documented rate for `response_format: "pcm"`. */
export const OPENAI_PCM_RATE = 24_000;
const FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"];
const UPLOAD_EXTENSIONS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"];
const DEFAULTS: OpenAiAudioConfig = { transcript: "hello from the fake transcriber", ttfbMs: 0, chunkBytes: 4800, chunkDelayMs: 5, msPerChar: 50, frequency: 440, fail: null };

export function startFakeOpenAiAudio(options: { apiKey?: string } = {}): FakeOpenAiAudio {
  const requests: OpenAiAudioRequest[] = [];
  let config: OpenAiAudioConfig = { ...DEFAULTS };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const entry: OpenAiAudioRequest = { method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), at: Date.now() };
      requests.push(entry);
      const auth = request.headers.get("authorization");
      if (options.apiKey !== undefined) {
        if (!auth) return openAiError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", "invalid_request_error", null);
        if (auth !== `Bearer ${options.apiKey}`) return openAiError(401, `Incorrect API key provided: ${auth.replace(/^Bearer /, "").slice(0, 8)}****. You can find your API key at https://platform.openai.com/account/api-keys.`, "invalid_request_error", "invalid_api_key");
      }
      if (request.method !== "POST") return openAiError(405, `Method ${request.method} not allowed`, "invalid_request_error", null);
      if (config.ttfbMs) await Bun.sleep(config.ttfbMs);
      if (config.fail) return openAiError(config.fail.status, config.fail.message, config.fail.type ?? "server_error", config.fail.code ?? null);
      if (url.pathname === "/v1/audio/transcriptions") return transcribe(request, entry, config);
      if (url.pathname === "/v1/audio/speech") return speak(request, entry, config);
      return openAiError(404, `Invalid URL (POST ${url.pathname})`, "invalid_request_error", null);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    configure(next) {
      config = { ...config, ...next };
    },
    stop: () => server.stop(true),
  };
}

async function transcribe(request: Request, entry: OpenAiAudioRequest, config: OpenAiAudioConfig): Promise<Response> {
  if (!(request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
    return openAiError(400, "Invalid Content-Type header (expected multipart/form-data)", "invalid_request_error", null);
  }
  let form: Awaited<ReturnType<Request["formData"]>>;
  try {
    form = await request.formData();
  } catch {
    return openAiError(400, "Could not parse multipart form", "invalid_request_error", null);
  }
  const file = form.get("file");
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) if (typeof value === "string") fields[name] = value;
  if (!(file instanceof Blob)) return openAiError(400, "1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)", "invalid_request_error", null, "file");
  if (!fields.model) return openAiError(400, "you must provide a model parameter", "invalid_request_error", null, "model");
  const name = (file as File).name ?? "";
  const bytes = new Uint8Array(await file.arrayBuffer());
  const wav = readWav(bytes);
  const durationMs = wav ? (wav.samples.length / wav.channels / wav.sampleRate) * 1000 : 0;
  entry.upload = { fields, file: { name, type: file.type, size: bytes.length }, wav, durationMs };
  const extension = name.split(".").pop()?.toLowerCase() ?? "";
  if (!UPLOAD_EXTENSIONS.includes(extension)) return openAiError(400, `Invalid file format. Supported formats: ${JSON.stringify(UPLOAD_EXTENSIONS)}`, "invalid_request_error", null);
  if (extension === "wav" && !wav) return openAiError(400, "Audio file might be corrupted or unsupported", "invalid_request_error", "invalid_value", "file");
  if (wav && durationMs < 100) return openAiError(400, "Audio file is too short. Minimum audio length is 0.1 seconds.", "invalid_request_error", "audio_too_short", "file");
  const text = typeof config.transcript === "function" ? config.transcript(entry.upload) : config.transcript;
  const format = fields.response_format ?? "json";
  if (format === "text") return new Response(text + "\n", { headers: { "content-type": "text/plain; charset=utf-8" } });
  if (format === "verbose_json") return Response.json({ task: "transcribe", language: fields.language ?? "english", duration: durationMs / 1000, text, segments: [] });
  if (format !== "json") return openAiError(400, `response_format '${format}' is not supported by this fake`, "invalid_request_error", null, "response_format");
  return Response.json({ text, usage: { type: "duration", seconds: Math.ceil(durationMs / 1000) } });
}

async function speak(request: Request, entry: OpenAiAudioRequest, config: OpenAiAudioConfig): Promise<Response> {
  let body: any;
  try {
    body = await request.json();
  } catch {
    return openAiError(400, "We could not parse the JSON body of your request.", "invalid_request_error", null);
  }
  entry.json = body;
  for (const field of ["model", "input", "voice"]) {
    if (body?.[field] === undefined || body[field] === "") return openAiError(400, `'${field}' is a required property`, "invalid_request_error", null, field);
  }
  if (typeof body.input !== "string" || body.input.length > 4096) return openAiError(400, "'input' must be a string of at most 4096 characters", "invalid_request_error", "string_above_max_length", "input");
  const format = body.response_format ?? "mp3";
  if (!FORMATS.includes(format)) return openAiError(400, `Invalid value: '${format}'. Supported values are: ${FORMATS.map((f) => `'${f}'`).join(", ")}.`, "invalid_request_error", "invalid_value", "response_format");
  if (format !== "pcm" && format !== "wav") return openAiError(400, `this fake only produces pcm and wav, not ${format}`, "invalid_request_error", null, "response_format");
  const speed = body.speed ?? 1;
  if (typeof speed !== "number" || speed < 0.25 || speed > 4) return openAiError(400, `${speed} is not a valid speed: must be between 0.25 and 4.0`, "invalid_request_error", "invalid_value", "speed");
  const ms = (Math.max(1, body.input.length) * config.msPerChar) / speed;
  const audio = pcmBytes(tone(OPENAI_PCM_RATE, ms, config.frequency));
  entry.stream = newStreamLog();
  const header = format === "wav" ? streamedWavHeader(OPENAI_PCM_RATE) : undefined;
  return new Response(pcmBody(audio, { chunkBytes: config.chunkBytes, delayMs: config.chunkDelayMs, log: entry.stream, header }), {
    headers: { "content-type": format === "wav" ? "audio/wav" : "audio/pcm" },
  });
}

/** A WAV header whose sizes are unknown yet, as streaming servers send it. */
function streamedWavHeader(rate: number): Uint8Array {
  const out = new Uint8Array(44);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => (out[at + i] = c.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 0xffffffff, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, 0xffffffff, true);
  return out;
}

function openAiError(status: number, message: string, type: string, code: string | null, param: string | null = null): Response {
  return Response.json({ error: { message, type, param, code } }, { status });
}
