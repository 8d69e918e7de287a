// Voices (endpoints 91–92): the built-in Flite voices and those of provider connections, and previews
// synthesised by each, checked by decoding the audio that comes back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeMp3 } from "../helpers/mp3.ts";
import { decodeWav } from "../../src/voice/media/wav-format.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { rms, startFakeElevenLabs, startFakeOpenAiAudio, toneFrequency, type FakeElevenLabs, type FakeOpenAiAudio } from "../helpers/fake-speech/index.ts";

const s = serverWithUser("voices");
const opts = () => ({ token: s.user.token });
let eleven: FakeElevenLabs;
let openai: FakeOpenAiAudio;
const providers = {} as { eleven: string; openai: string; kokoro: string; down: string; deepgram: string };

beforeAll(async () => {
  eleven = startFakeElevenLabs({ apiKey: "xi-secret" });
  openai = startFakeOpenAiAudio({ apiKey: "sk-audio" });
  const create = async (body: Record<string, unknown>) => {
    const res = await s.server.api.post("/v1/providers", body, opts());
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  providers.eleven = await create({ name: "ElevenLabs", kind: "elevenlabs", base_url: eleven.url, api_key: "xi-secret" });
  providers.openai = await create({ name: "OpenAI", kind: "openai-compatible", base_url: openai.url, api_key: "sk-audio" });
  providers.kokoro = await create({ name: "Kokoro", kind: "openai-compatible", base_url: openai.url, api_key: "sk-audio", settings: { voices: ["af_bella", "am_adam"] } });
  providers.deepgram = await create({ name: "Deepgram", kind: "deepgram", api_key: "dg" });
});

afterAll(() => {
  eleven?.stop();
  openai?.stop();
});

async function preview(body: Record<string, unknown>) {
  const res = await fetch(`${s.server.url}/v1/voices/preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.user.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(new TextDecoder().decode(bytes)) };
}


describe("GET /v1/voices", () => {
  test("lists the built-in voices and each speaking connection's, with provider_id", async () => {
    const res = await s.server.api.get("/v1/voices", opts());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null, errors: [] });
    const builtin = res.body.data.filter((v: { provider_id: string }) => v.provider_id === "builtin");
    expect(builtin.map((v: { id: string }) => v.id)).toEqual(["kal16", "kal", "slt", "rms", "awb"]);
    expect(builtin[2]).toEqual({ object: "voice", id: "slt", name: "SLT", provider_id: "builtin", language: "en-US", gender: "female", description: expect.any(String) });

    const of = (provider: string) => res.body.data.filter((v: { provider_id: string }) => v.provider_id === provider);
    expect(of(providers.eleven)).toEqual([
      expect.objectContaining({ object: "voice", id: "21m00Tcm4TlvDq8ikWAM", name: "Rachel", gender: "female", language: "en-US" }),
      expect.objectContaining({ object: "voice", id: "pNInz6obpgDQGcFmaJgB", name: "Adam", gender: "male", description: "A deep, steady narrator." }),
    ]);
    expect(of(providers.openai).map((v: { id: string }) => v.id)).toContain("alloy");
    expect(of(providers.kokoro).map((v: { id: string }) => v.id)).toEqual(["af_bella", "am_adam"]);
    expect(of(providers.deepgram)).toEqual([]); // a transcriber has no voices
    // The ElevenLabs list came from its API, with the key.
    expect(eleven.requests.some((r) => r.method === "GET" && r.path === "/v1/voices" && r.headers["xi-api-key"] === "xi-secret")).toBe(true);

    const onlyEleven = await s.server.api.get(`/v1/voices?provider_id=${providers.eleven}`, opts());
    expect(onlyEleven.body.data.map((v: { provider_id: string }) => v.provider_id)).toEqual([providers.eleven, providers.eleven]);
    const onlyBuiltin = await s.server.api.get("/v1/voices?provider_id=builtin", opts());
    expect(onlyBuiltin.body.data).toHaveLength(5);
    const unknown = await s.server.api.get("/v1/voices?provider_id=prv_nope", opts());
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].field).toBe("provider_id");
  });

  test("a connection that cannot be reached is reported in errors; the rest still answers", async () => {
    const down = await s.server.api.post("/v1/providers", { name: "Down", kind: "elevenlabs", base_url: "http://127.0.0.1:9", api_key: "k" }, opts());
    providers.down = down.body.id;
    const res = await s.server.api.get("/v1/voices", opts());
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([{ provider_id: providers.down, message: expect.stringContaining("ElevenLabs voices") }]);
    expect(res.body.data.filter((v: { provider_id: string }) => v.provider_id === "builtin")).toHaveLength(5);
    expect(res.body.data.some((v: { provider_id: string }) => v.provider_id === providers.eleven)).toBe(true);
    await s.server.api.delete(`/v1/providers/${providers.down}`, opts());
  });
});

describe("POST /v1/voices/preview", () => {
  test("the built-in engine speaks: a 16 kHz mono WAV of speech; speed changes its length", async () => {
    const normal = await preview({ voice_id: "slt", text: "Thanks for calling Acme Dental. How can I help?" });
    expect(normal.status).toBe(200);
    expect(normal.headers.get("content-type")).toBe("audio/wav");
    expect(Number(normal.headers.get("content-length"))).toBe(normal.bytes.length);
    const { info, samples } = decodeWav(normal.bytes);
    expect(info).toMatchObject({ sampleRate: 16_000, channels: 1 });
    expect(info.durationMs).toBeGreaterThan(1500);
    expect(info.durationMs).toBeLessThan(6000);
    expect(rms(samples)).toBeGreaterThan(500);

    const fast = await preview({ voice_id: "slt", text: "Thanks for calling Acme Dental. How can I help?", speed: 2 });
    const fastInfo = decodeWav(fast.bytes).info;
    expect(fastInfo.durationMs).toBeLessThan(info.durationMs * 0.75);

    const greeting = await preview({ provider_id: "builtin", voice_id: "kal" });
    expect(greeting.status).toBe(200);
    expect(decodeWav(greeting.bytes).info.durationMs).toBeGreaterThan(1000);
  });

  test("format mp3 answers MP3 that decodes to the same speech", async () => {
    const res = await preview({ voice_id: "kal16", text: "Your appointment is on Tuesday.", format: "mp3" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/mpeg");
    const decoded = await decodeMp3(res.bytes);
    expect(decoded.errors).toEqual([]);
    expect(decoded.sampleRate).toBe(16_000);
    expect(res.bytes[3] >> 6).toBe(3); // the first frame header's channel mode: mono (the decoder always gives two)
    const seconds = decoded.samplesDecoded / decoded.sampleRate;
    const wav = decodeWav((await preview({ voice_id: "kal16", text: "Your appointment is on Tuesday." })).bytes).info;
    expect(Math.abs(seconds * 1000 - wav.durationMs)).toBeLessThan(150);
    const peak = decoded.channelData[0].reduce((max, v) => Math.max(max, Math.abs(v)), 0);
    expect(peak).toBeGreaterThan(0.05);
  });

  test("a provider connection speaks through its API (OpenAI-compatible: 24 kHz PCM resampled)", async () => {
    openai.configure({ fail: null, msPerChar: 40, frequency: 600 });
    const text = "Hello from the provider.";
    const res = await preview({ provider_id: providers.openai, voice_id: "nova", text });
    expect(res.status).toBe(200);
    const { info, samples } = decodeWav(res.bytes);
    expect(info).toMatchObject({ sampleRate: 16_000, channels: 1 });
    expect(Math.abs(info.durationMs - text.length * 40)).toBeLessThan(60);
    expect(Math.abs(toneFrequency(samples, 16_000) - 600)).toBeLessThan(15);
    const request = openai.requests.findLast((r) => r.path === "/v1/audio/speech")!;
    expect(request.headers.authorization).toBe("Bearer sk-audio");
    expect(request.json).toMatchObject({ input: text, voice: "nova", response_format: "pcm" });

    const el = await preview({ provider_id: providers.eleven, voice_id: "21m00Tcm4TlvDq8ikWAM", text: "Hi there." });
    expect(el.status).toBe(200);
    expect(decodeWav(el.bytes).info.durationMs).toBeGreaterThan(300);
    expect(eleven.requests.findLast((r) => r.method === "POST")!.query.output_format).toBe("pcm_16000");
  });

  test("unknown voices and connections are 422 naming the field", async () => {
    const builtin = await preview({ voice_id: "hal9000" });
    expect(builtin.status).toBe(422);
    expect(builtin.json().errors).toEqual([{ field: "voice_id", message: expect.stringContaining("hal9000") }]);
    const el = await preview({ provider_id: providers.eleven, voice_id: "no-such-voice" });
    expect(el.status).toBe(422);
    expect(el.json().errors[0].field).toBe("voice_id");
    const missing = await preview({ provider_id: "prv_nope", voice_id: "alloy" });
    expect(missing.status).toBe(422);
    expect(missing.json().errors[0].field).toBe("provider_id");
    const mute = await preview({ provider_id: providers.deepgram, voice_id: "alloy" });
    expect(mute.status).toBe(422);
    expect(mute.json().errors[0]).toEqual({ field: "provider_id", message: expect.stringContaining("cannot speak") });
    for (const body of [{}, { voice_id: "kal16", format: "ogg" }, { voice_id: "kal16", speed: 3 }, { voice_id: "kal16", text: "" }]) {
      expect((await preview(body)).status).toBe(422);
    }
  });

  test("a failing or unreachable provider is 502 bad_gateway problem+json", async () => {
    openai.configure({ fail: { status: 500, message: "The server had an error while processing your request." } });
    const failed = await preview({ provider_id: providers.openai, voice_id: "alloy" });
    expect(failed.status).toBe(502);
    expect(failed.headers.get("content-type")).toContain("application/problem+json");
    expect(failed.json()).toMatchObject({ code: "bad_gateway", status: 502, detail: expect.stringContaining("The server had an error") });
    openai.configure({ fail: null, msPerChar: 0 });
    const silent = await preview({ provider_id: providers.openai, voice_id: "alloy", text: "x" });
    expect(silent.status).toBe(502);
    openai.configure({ msPerChar: 50 });
    const down = await s.server.api.post("/v1/providers", { name: "Down", kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1" }, opts());
    const unreachable = await preview({ provider_id: down.body.id, voice_id: "alloy" });
    expect(unreachable.status).toBe(502);
    expect(unreachable.json().code).toBe("bad_gateway");
  });
});
