// The TypeScript library's journey against a real Parley, as a user's program would run it: under Bun
// from the library's source, and under Node from its compiled package. Usage:
//   PARLEY_URL=http://… PARLEY_SDK=/path/to/index.{ts,js} <bun|node> test/sdk/ts-journey.mjs
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { Parley, NotFoundError, UnprocessableEntityError } = await import(pathToFileURL(process.env.PARLEY_SDK).href);
const baseUrl = process.env.PARLEY_URL;
const started = Date.now();
const step = (text) => console.log(`ok (${((Date.now() - started) / 1000).toFixed(1)} s): ${text}`);

async function until(what, read, done, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

// 1. Register, then sign in with e-mail and password and make an API key.
const email = `sdk-ts-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const password = "a long enough password";
const registered = await new Parley({ baseUrl }).auth.register({ email, password });
assert.match(registered.access_token, /\./);
const person = new Parley({ baseUrl, email, password });
const key = await person.apiKeys.create({ name: "sdk journey", scope: "admin" });
assert.match(key.key, /^sk_/);
step("registered, signed in, made a key");

// 2. An agent, and its knowledge.
const client = new Parley({ baseUrl, apiKey: key.key });
const agent = await client.agents.create({ name: "Front desk", first_message: "Hello, you have reached Acme. How can I help?" });
const kb = await client.knowledgeBases.create({ name: "Opening hours" });
const source = await client.knowledgeBases.addSource(kb.id, { type: "text", name: "hours.txt", text: "Acme is open Monday to Friday from nine in the morning to five in the afternoon." });
await until("indexing", () => client.knowledgeBases.getSource(kb.id, source.id), (s) => s.status === "ready" || s.status === "failed");
const found = await client.knowledgeBases.query(kb.id, { query: "When are you open?", top_k: 3 });
assert.ok(found.data.length > 0 && found.data[0].text.includes("Monday") && found.data[0].score > 0, JSON.stringify(found));
step(`knowledge base answered with score ${found.data[0].score.toFixed(3)}`);

// 3. A number for the agent, and a call to a simulated person.
const number = await client.phoneNumbers.buy({ area_code: "415" });
await client.phoneNumbers.assign(number.id, { agent_id: agent.id });
const call = await client.calls.outbound({ agent_id: agent.id, to: "+12125550150", simulation: { lines: ["What are your opening hours?", "Thanks, goodbye"], recognition: "simulated" } });
// maxWaitMs is the wait in all, across polls: a call that lasts seconds outlives 300 ms of it.
const early = Date.now();
await assert.rejects(client.calls.wait(call.id, { maxWaitMs: 300, intervalMs: 100 }), /still (queued|ringing|in_progress) after waiting 300 ms in all/);
assert.ok(Date.now() - early < 5_000, `gave up after ${Date.now() - early} ms`);
const ended = await client.calls.wait(call.id, { maxWaitMs: 90_000 });
assert.equal(ended.status, "completed", JSON.stringify(ended));
const transcript = await client.calls.transcript(call.id);
const roles = new Set(transcript.turns.map((turn) => turn.role));
assert.ok(roles.has("agent") && roles.has("caller"), JSON.stringify(transcript));
// The text form is a string (what its overload says), one line per turn.
const text = await client.calls.transcript(call.id, { format: "text" });
assert.equal(typeof text, "string");
assert.match(text, /^Agent: Hello, you have reached Acme\. How can I help\?$/m);
// The old name still means the total wait (deprecated).
assert.equal((await client.calls.wait(call.id, { timeoutMs: 5_000 })).status, "completed");
const wav = await client.calls.recording(call.id);
assert.equal(new TextDecoder().decode(wav.slice(0, 4)), "RIFF");
const mp3 = await client.calls.recordingMp3(call.id);
assert.ok(mp3.length > 1000 && (mp3[0] === 0xff || new TextDecoder().decode(mp3.slice(0, 3)) === "ID3"));
step(`call ${call.id} completed; transcript has both sides; recording ${wav.length} B wav, ${mp3.length} B mp3`);

// 4. A campaign from a CSV file: three busy numbers, no retries, so it finishes at once.
const dir = mkdtempSync(join(tmpdir(), "parley-sdk-ts-"));
const csv = join(dir, "contacts.csv");
writeFileSync(csv, "phone,first_name\n+12125550101,Ada\n+13125550101,Grace\n+14155550101,Linus\n");
const campaign = await client.campaigns.create({ name: "Renewals", agent_id: agent.id, window: null, calls_per_minute: 600, retry: { on: [], max_attempts: 1, delay_minutes: 1 } });
const upload = await client.campaigns.upload(campaign.id, new Blob([readFileSync(csv)], { type: "text/csv" }));
assert.equal(upload.accepted, 3, JSON.stringify(upload));
await client.campaigns.start(campaign.id);
await until("campaign", () => client.campaigns.get(campaign.id), (c) => c.status === "completed");
const results = await client.campaigns.results(campaign.id);
const rows = results.trim().split(/\r?\n/);
assert.equal(rows.length, 4, results);
assert.match(rows[0], /phone/);
step("campaign uploaded from a file, ran, results CSV has a row per contact");

// 5. Lists iterate across pages; errors carry the problem's fields.
await client.agents.create({ name: "Second" });
await client.agents.create({ name: "Third" });
const first = await client.agents.list({ limit: 1 });
assert.equal(first.data.length, 1);
assert.equal(first.has_more, true);
const every = [];
for await (const item of client.agents.list({ limit: 1 })) every.push(item.id);
assert.equal(every.length, 3);
assert.equal(new Set(every).size, 3);
await assert.rejects(client.agents.get("agent_missing"), (error) => error instanceof NotFoundError && error.status === 404 && error.code === "not_found" && typeof error.requestId === "string");
await assert.rejects(client.agents.create({ name: "" }), (error) => error instanceof UnprocessableEntityError && error.errors[0].field === "name");
step("pagination and typed errors");
console.log("journey complete");
