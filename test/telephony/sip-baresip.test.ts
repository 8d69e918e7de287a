// SIP against a real peer: Debian's baresip, started by the test, plays the caller's or callee's
// speech from a WAV file and records what it hears; Parley's SIP trunk points at it.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { concatPcm } from "../../src/voice/media/frames.ts";
import { decodeWav, encodeWav } from "../../src/voice/media/wav-format.ts";
import { builtinTts } from "../../src/voice/speech/builtin/index.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { Baresip, baresipAvailable, freePort } from "../helpers/baresip.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const s = serverWithUser("sip");
const tempDir = tempDirs("sip-audio-");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 60_000;
const NUMBER = "+14155550150";
const OTHER = "+14155550151";
const QUESTION = "What are your opening hours?";

let sipPort: number;
let agentId: string;
let connectionId: string;
let questionWav: string;
const peers: Baresip[] = [];

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function speechWav(text: string, path: string): Promise<string> {
  const chunks: Int16Array[] = [];
  for await (const chunk of builtinTts().synthesize(text, { voice: "slt", speed: 1, sampleRate: 8000 })) chunks.push(chunk);
  // A second of silence first: the greeting plays while the caller waits, as people do.
  const pcm = concatPcm([new Int16Array(8000 * 4), concatPcm(chunks), new Int16Array(8000 * 30)]);
  writeFileSync(path, encodeWav(pcm, { sampleRate: 8000, channels: 1 }));
  return path;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

async function peer(options: Parameters<typeof Baresip.start>[0]): Promise<Baresip> {
  const phone = await Baresip.start(options);
  peers.push(phone);
  return phone;
}

afterEach(async () => {
  for (const phone of peers.splice(0)) await phone.stop();
});

beforeAll(async () => {
  if (!baresipAvailable) return;
  const dir = tempDir();
  questionWav = await speechWav(QUESTION, join(dir, "question.wav"));
  sipPort = await freePort("udp");
  const agent = await post("/v1/agents", { name: "Reception", first_message: "Hello, this is Acme. How can I help?" });
  agentId = agent.id;
});

describe.skipIf(!baresipAvailable)("a SIP trunk to baresip", () => {
  test("baresip calls an agent's number: the greeting is heard, the caller is transcribed, BYE from baresip ends it", async () => {
    const phone = await peer({ answer: "manual", audioIn: questionWav });
    const connection = await post("/v1/telephony/carriers", { name: "Lab PBX", kind: "sip", settings: { trunk: `127.0.0.1:${phone.sipPort}`, listen_host: "127.0.0.1", listen_port: sipPort, rtp_port_min: 40000, rtp_port_max: 40999 } });
    connectionId = connection.id;
    const number = await post("/v1/phone-numbers/import", { number: NUMBER, carrier: connectionId });
    await post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agentId });

    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${sipPort}`);
    await phone.waitFor("CALL_ESTABLISHED");
    const live = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data;
    expect(live).toHaveLength(1);
    const callId = live[0].id;
    const heard = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "caller"), 30_000);
    expect(heard.transcript[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme. How can I help?" });
    const caller = heard.transcript.find((t: any) => t.role === "caller");
    expect(caller.text.toLowerCase()).toContain("hours");
    phone.command("hangup");
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "customer_hangup", direction: "inbound", to: NUMBER, carrier: connectionId });
    await phone.waitFor("CALL_CLOSED");
    await Bun.sleep(300);
    const [recording] = phone.recordings().heard;
    const wav = decodeWav(new Uint8Array(await Bun.file(recording).arrayBuffer()));
    const greeting = ended.transcript[0];
    expect(rms(wav.samples.subarray(Math.round((greeting.start_ms / 1000) * 8000), Math.round((greeting.end_ms / 1000) * 8000)))).toBeGreaterThan(300);
  }, CALL_TIMEOUT);
});

afterAll(() => {});
