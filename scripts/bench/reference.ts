// Reference servers for api.ts: the least a program must do to answer like Parley, so Parley's figures
// read as ratios. Minimal Elysia + better-sqlite3 (the same libraries), an API key looked up by the
// SHA-256 of the secret on every request, then:
//   GET /me      one row (the key's workspace) as JSON
//   GET /agents  20 agents of ~1.1 KB, each with its JSON configuration column parsed (≈ 22.5 KB)
// Usage: bun scripts/bench/reference.ts <port> <data dir>   (prints the API key on stdout when ready)
import { Elysia } from "elysia";
import { join } from "node:path";
import { Database } from "../../src/db/native.ts";

const port = Number(process.argv[2]);
const db = new Database(join(process.argv[3], "reference.db"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(`
  CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE api_keys (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, secret_hash TEXT NOT NULL UNIQUE, scope TEXT NOT NULL);
  CREATE TABLE agents (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, name TEXT NOT NULL, config TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE INDEX agents_workspace_idx ON agents (workspace_id, created_at, id);
`);

const secret = "sk_reference_0123456789abcdef";
const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
const now = Date.now();
db.prepare("INSERT INTO workspaces VALUES (?, ?, ?)").run("ws_1", "Reference", now);
db.prepare("INSERT INTO api_keys VALUES (?, ?, ?, ?)").run("key_1", "ws_1", sha256(secret), "admin");
// Shaped like Parley's default agent, so both lists serialize the same amount of JSON.
const config = {
  language: "en-US",
  system_prompt: "",
  first_message: null,
  first_message_mode: "agent_first",
  brain: { type: "flow", flow: { start: "answer", nodes: { answer: { type: "answer", fallback: "I'm sorry, I don't have an answer to that. Is there anything else I can help with?", next: "answer" } } } },
  voice: { provider_id: "builtin", voice_id: "kal16", speed: 1 },
  transcriber: { provider_id: "builtin", language: "en-US" },
  turn_taking: { endpointing_ms: 600, interruptions: { enabled: true, min_speech_ms: 250 }, silence: { reminder_after_s: 15, reminder_message: "Are you still there?", timeout_s: 30 }, max_duration_s: 600, end_call_phrases: ["goodbye", "bye bye"] },
  voicemail: { action: "hang_up", message: null },
  tools: [],
  transfer_number: null,
  knowledge_base_ids: [],
  extraction: [],
  webhook_url: null,
  webhook_events: ["call.started", "call.transcript", "call.ended", "call.error", "call.transfer"],
  metadata: {},
};
const insertAgent = db.prepare("INSERT INTO agents VALUES (?, ?, ?, ?, ?)");
for (let i = 0; i < 20; i++) insertAgent.run(`agent_${String(i).padStart(20, "0")}`, "ws_1", `Agent ${i + 1}`, JSON.stringify(config), now + i);

const keyLookup = db.prepare("SELECT id, workspace_id, scope FROM api_keys WHERE secret_hash = ?");
const workspace = db.prepare("SELECT id, name, created_at FROM workspaces WHERE id = ?");
const agents = db.prepare("SELECT id, name, config, created_at FROM agents WHERE workspace_id = ? ORDER BY created_at, id LIMIT ?");

function authenticate(authorization: string | null): { workspace_id: string } | null {
  const secretGiven = authorization?.startsWith("Bearer ") ? authorization.slice(7) : null;
  return secretGiven ? ((keyLookup.get(sha256(secretGiven)) as { workspace_id: string } | undefined) ?? null) : null;
}

new Elysia()
  .get("/me", ({ request, set }) => {
    const key = authenticate(request.headers.get("authorization"));
    if (!key) return ((set.status = 401), { error: "unauthorized" });
    const row = workspace.get(key.workspace_id) as { id: string; name: string; created_at: number };
    return { object: "workspace", id: row.id, name: row.name, created_at: new Date(row.created_at).toISOString() };
  })
  .get("/agents", ({ request, set }) => {
    const key = authenticate(request.headers.get("authorization"));
    if (!key) return ((set.status = 401), { error: "unauthorized" });
    const rows = agents.all(key.workspace_id, 20) as { id: string; name: string; config: string; created_at: number }[];
    const data = rows.map((row) => ({ id: row.id, object: "agent", created_at: new Date(row.created_at).toISOString(), ...JSON.parse(row.config), name: row.name }));
    return { data, has_more: false, next_cursor: null };
  })
  .listen({ hostname: "127.0.0.1", port });

console.log(secret);
