// parley db copy (issue 35, item 5): a SQLite instance with a row in every table, filled through the
// API, is copied by the real command into an empty PostgreSQL database; the same data dir then served
// on PostgreSQL answers every GET list and object as it did on SQLite, and opens its sealed secrets
// with the same instance key. Bad input is one line and leaves the target as it was.
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { foreignKeyOrder, parentsFirst } from "../../src/db/copy-to-postgres.ts";
import { sqliteModel, type TableModel } from "../../src/db/introspect.ts";
import { Database } from "../../src/db/native.ts";
import { LIVE, waitForCall } from "../helpers/call-api.ts";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";
import { addMember, createKey, registerOperator, registerUser } from "../helpers/fixtures.ts";
import { freePort, freshDatabase, sharedPostgres } from "../helpers/postgres.ts";
import { FROM_SOURCE, runParley, spawnServer, type RunResult } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { FakeStripe } from "../helpers/stripe-server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const tempDir = tempDirs("parley-dbcopy-");
const pg = sharedPostgres();
const databaseOf = (url: string) => new URL(url).pathname.slice(1);
const publicTables = (url: string) => Number(pg.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", databaseOf(url)));
const copy = (args: string[]) => runParley(FROM_SOURCE, ["db", "copy", ...args]);

function refused(result: RunResult, pattern: RegExp): void {
  expect(result.exitCode).not.toBe(0);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(pattern)]); // one line, no stack
}

/** A data dir with an empty, migrated SQLite database. */
async function emptyInstance(): Promise<string> {
  const dir = tempDir();
  expect((await runParley(FROM_SOURCE, ["migrate", "--init", "--data-dir", dir])).exitCode).toBe(0);
  return dir;
}

describe("db copy refuses bad input in one line and creates nothing in the target", () => {
  test("missing flags, a dir without a database, bad URLs, an unreachable server", async () => {
    const url = freshDatabase();
    const dir = await emptyInstance();
    const empty = tempDir();
    refused(await copy(["--to", url]), /^parley: error: db copy needs --from DIR/);
    refused(await copy(["--from", dir]), /^parley: error: db copy needs --to postgres:\/\//);
    refused(await copy(["--from", empty, "--to", url]), /^parley: error: no Parley database in .*parley-dbcopy-\w+ \(--from: a SQLite instance's data dir holds parley\.db/);
    refused(await copy(["--from", join(empty, "nowhere"), "--to", url]), /no Parley database in/);
    refused(await copy(["--from", dir, "--to", "nonsense"]), /^parley: error: --to is not a URL/);
    refused(await copy(["--from", dir, "--to", "mysql://parley@localhost/parley"]), /^parley: error: --to must start with postgres:\/\//);
    refused(await copy(["--from", dir, "--to", `postgres://parley@127.0.0.1:${freePort()}/x?sslmode=disable`]), /^parley: error: --to: nothing accepts connections at 127\.0\.0\.1:\d+/);
    refused(await copy(["--from", dir, "--to", `postgres://parley@127.0.0.1:${pg.port}/nowhere?sslmode=disable`]), /^parley: error: --to: database "nowhere" does not exist/);
    expect(publicTables(url)).toBe(0);
  }, 60_000);

  test("a target that holds rows", async () => {
    const url = freshDatabase();
    pg.sql("CREATE TABLE notes (body text); INSERT INTO notes VALUES ('keep me')", databaseOf(url));
    refused(await copy(["--from", await emptyInstance(), "--to", url]), /^parley: error: the --to database is not empty \(table notes has rows\): copy into a new, empty database/);
    expect(pg.sql("SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'", databaseOf(url))).toBe("notes");
  }, 30_000);

  test("a data dir a running Parley serves", async () => {
    const dir = await emptyInstance();
    const url = freshDatabase();
    const server = await spawnServer(FROM_SOURCE, ["--data-dir", dir]);
    try {
      refused(await copy(["--from", dir, "--to", url]), new RegExp(`^parley: error: Parley \\(pid ${server.child.pid}\\) is serving ${dir} \\(--from\\); stop it first`));
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(publicTables(url)).toBe(0);
  }, 30_000);

  test("a row PostgreSQL cannot take: the whole copy, migrations included, is rolled back", async () => {
    const dir = await emptyInstance();
    const db = new Database(join(dir, "parley.db"));
    // A NUL character: SQLite's text holds it, PostgreSQL's refuses it. Users come after workspaces, so both are tried.
    db.prepare("INSERT INTO workspaces (id, name, timezone, default_language, created_at, updated_at) VALUES ('ws_fine', 'Fine', 'UTC', 'en', 1, 1)").run();
    db.prepare("INSERT INTO users (id, email, name, password_hash, created_at, updated_at) VALUES ('usr_nul', 'nul@example.test', ?, 'x', 1, 1)").run("A\u0000B");
    db.close();
    const url = freshDatabase();
    const result = await copy(["--from", dir, "--to", url]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/db copy: workspaces: 1 row\n/);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(/^parley: error: copying table users failed: /);
    expect(publicTables(url)).toBe(0);
  }, 30_000);
});

describe("the order rows go in (PostgreSQL checks each foreign key at once)", () => {
  const table = (name: string, references: [string, string, string][]): TableModel => ({
    name,
    columns: [{ name: "id", type: "text", notNull: true, default: null }, ...references.map(([column]) => ({ name: column, type: "text", notNull: false, default: null }))],
    primaryKey: ["id"],
    autoIncrement: false,
    indexes: [],
    foreignKeys: references.map(([column, parent, parentColumn]) => ({ columns: [column], table: parent, foreignColumns: [parentColumn], onDelete: "cascade", onUpdate: "no action" })),
  });

  test("a table after every table it references; a cycle between tables is refused by name", () => {
    const tables = [table("calls", [["agent_id", "agents", "id"], ["workspace_id", "workspaces", "id"]]), table("agents", [["workspace_id", "workspaces", "id"]]), table("workspaces", [])];
    expect(foreignKeyOrder(tables).map((t) => t.name)).toEqual(["workspaces", "agents", "calls"]);
    expect(() => foreignKeyOrder([table("a", [["b_id", "b", "id"]]), table("b", [["a_id", "a", "id"]])])).toThrow("tables a → b → a reference each other in a cycle");
  });

  test("a table that references itself: each row after the row it names; rows naming each other are refused", () => {
    const folders = table("folders", [["parent_id", "folders", "id"]]);
    const rows = [["c", "b"], ["a", null], ["b", "a"], ["d", "gone"]];
    expect(foreignKeyOrder([folders]).map((t) => t.name)).toEqual(["folders"]);
    expect(parentsFirst(folders, ["id", "parent_id"], rows)).toEqual([["a", null], ["b", "a"], ["d", "gone"], ["c", "b"]]);
    expect(() => parentsFirst(folders, ["id", "parent_id"], [["x", "y"], ["y", "x"]])).toThrow("rows of folders reference each other in a cycle");
  });
});

// ——— the round trip ———

// Real time (the fake Stripe checks a checkout's expiry against it), on a whole minute.
const MINUTE = 60_000;
const T0 = Math.floor(Date.now() / MINUTE) * MINUTE;

/** A provider connection's key: SQLite holds it sealed with the instance key. */
const PROVIDER_KEY = "sk-sealed-in-sqlite-9Qx";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

const stripe = new FakeStripe();
const model = startFakeOpenAI({ apiKey: PROVIDER_KEY });
const receiver = startReceiver();
afterAll(() => {
  stripe.stop();
  model.stop();
  receiver.stop();
});

/** Both instances say the same public URL (links in answers carry it) and reach the same Stripe. */
const SETTINGS = { publicUrl: "https://parley.example.test", trustedProxies: "127.0.0.1", ...stripe.settings() };

type Call = Promise<{ status: number; body: any; text: string }>;
async function must(call: Call): Promise<any> {
  const res = await call;
  if (res.status < 200 || res.status > 299) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

/** Fills every table through the API; returns the credentials the walk uses. */
async function populate(server: TestServer): Promise<{ owner: string; operator: string; email: string; password: string }> {
  const { api, ctx, clock } = server;
  const settle = async () => {
    for (let i = 0; i < 50; i++) {
      await ctx.jobs.drain();
      const live = ctx.sqlite.prepare(`SELECT count(*) AS n FROM calls WHERE status IN (${LIVE.map(() => "?").join(", ")})`).get(...LIVE) as { n: number };
      if (live.n === 0) return;
      await Bun.sleep(100);
    }
    throw new Error("calls still live");
  };
  const owner = await registerUser(api, "owner");
  const operator = await registerOperator(server);
  const key = (await createKey(api, owner.token, "admin")).secret;
  const as = { token: key };
  const op = { token: (await createKey(api, operator.token, "admin")).secret };
  await addMember(api, owner, "member", "teammate");
  await must(api.post("/v1/auth/password/forgot", { email: owner.email }));

  // A model provider whose key is sealed with the instance key; a flow agent needs no model to talk.
  const provider = await must(api.post("/v1/providers", { name: "local model", kind: "openai-compatible", base_url: model.url, api_key: PROVIDER_KEY }, as));
  const tool = await must(api.post("/v1/tools", { name: "lookup_order", description: "Finds an order", url: "https://tools.example.com/orders" }, as));
  const flow = {
    start: "name",
    nodes: {
      name: { type: "ask", text: "What is your name?", slot: { name: "name", type: "string" }, next: "bye" },
      bye: { type: "end", text: "Goodbye {{name}}!" },
    },
  };
  const agent = await must(api.post("/v1/agents", { name: "Desk", first_message: "Hello there.", brain: { type: "flow", flow }, transcriber: { provider_id: provider.id }, tools: [{ type: "function", tool_id: tool.id }], webhook_url: `${receiver.url}/agent` }, as));
  await must(api.patch(`/v1/agents/${agent.id}`, { name: "Front desk" }, as));
  await must(api.post("/v1/agents", { name: "Made once" }, { token: key, headers: { "idempotency-key": "create-made-once" } }));
  const number = await must(api.post("/v1/phone-numbers/buy", { area_code: "415", label: "Main line" }, as));
  await must(api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, as));
  await must(api.post("/v1/telephony/carriers", { name: "Lab carrier", kind: "simulated" }, as));
  await must(api.post("/v1/webhooks", { url: `${receiver.url}/events`, events: ["call.completed", "payment.succeeded"] }, as));
  await must(api.post(`/v1/admin/workspaces/${owner.workspaceId}/credit`, { amount: 50_000_000, note: "opening credit" }, op));

  // A call that is answered and hung up on leaves a recording and its events.
  const call = await must(api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { behaviour: "hang_up", hang_up_after_ms: 1500 } }, as));
  await waitForCall(api, key, call.id);

  const kb = await must(api.post("/v1/knowledge-base", { name: "Handbook" }, as));
  await must(api.post(`/v1/knowledge-base/${kb.id}/sources`, { type: "text", name: "Parking", text: "Parking is free for bikes. The office opens at nine and closes at five." }, as));
  const campaign = await must(api.post("/v1/campaigns", { name: "Spring reminders", agent_id: agent.id }, as));
  const upload = await fetch(`${server.url}/v1/campaigns/${campaign.id}/upload`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" }, body: "phone,name\n+12125550160,Ada\n+12125550161,Grace\n" });
  expect(upload.status).toBe(201);
  // A one-off schedule that runs (to the simulated busy line, so its call ends at once), and one still ahead.
  await must(api.post("/v1/schedules", { agent_id: agent.id, to: "+14155550101", at: new Date(clock.now() + MINUTE).toISOString() }, as));
  await must(api.post("/v1/schedules", { agent_id: agent.id, to: "+14155550101", cron: "0 9 * * 1", timezone: "Europe/Paris" }, as));
  clock.advance(2 * MINUTE);
  await settle();

  const widget = await must(api.post("/v1/widgets", { agent_id: agent.id, name: "Shop help", allowed_origins: ["https://shop.example.com"] }, as));
  await must(api.post(`/v1/widgets/${widget.id}/chat`, { message: "hi" }, { headers: { origin: "https://shop.example.com", "x-forwarded-for": "203.0.113.7" } }));
  await must(api.post(`/v1/agents/${agent.id}/chat`, { message: "Ada" }, as));
  // An agent test suite: a case, and a run of it to its end (its test call, result and event).
  const testCase = await must(api.post(`/v1/agents/${agent.id}/tests`, { name: "asks the name", caller: { type: "script", turns: [{ say: "Ada" }] }, expectations: [{ type: "agent_says", contains: "your name" }] }, as));
  const run = await must(api.post(`/v1/agents/${agent.id}/test-runs`, { test_ids: [testCase.id] }, as));
  for (let waited = 0; ["queued", "running"].includes((await must(api.get(`/v1/agents/${agent.id}/test-runs/${run.id}`, as))).status); waited += 100) {
    if (waited > 60_000) throw new Error("the test run did not end within a minute");
    await Bun.sleep(100);
  }
  await must(api.post("/v1/realtime/token", { agent_id: agent.id }, as));

  // Money: a card top-up paid at the fake Stripe (payment, its event, the saved card), an offline one.
  stripe.webhookUrl = `${server.url}/v1/payments/webhook/stripe`;
  const topup = await must(api.post("/v1/payments/topup", { amount: 2500 }, as));
  await stripe.pay([...stripe.sessions.values()].find((s) => s.client_reference_id === topup.id)!.id);
  await must(api.post("/v1/payments/topup", { amount: 1000, provider: "offline" }, as));
  await must(api.patch("/v1/wallet/auto-recharge", { enabled: true, threshold: 5_000_000, amount: 2000 }, as));

  await must(api.put("/v1/white-label", { product_name: "Acme Voice", colors: { primary: "#FF6600", accent: "#222222", background: "#fafafa", text: "#101010" }, support_email: "help@acme.example", logo: { content_type: "image/png", data_base64: PNG.toString("base64") } }, as));
  await must(api.post("/v1/white-label/domains", { domain: "voice.acme.example" }, as));

  // The public front door: a contact message, a newsletter sign-up, client events, a demo call.
  const visitor = { headers: { "x-forwarded-for": "198.51.100.9" } };
  const shown = { form_started_at: clock.now() - 10_000 };
  await must(api.post("/v1/contact", { name: "Ada Lovelace", email: "ada@example.com", company: "Analytical Engines", message: "Can your agents speak French?", ...shown }, visitor));
  await must(api.post("/v1/newsletter/subscribe", { email: "reader@example.com", source: "footer", ...shown }, visitor));
  await must(api.post("/v1/events", { events: [{ name: "page_view", properties: { path: "/pricing" }, anonymous_id: "anon-1", url: "https://www.example.com/pricing" }] }, visitor));
  const demoAgent = await must(api.post("/v1/agents", { name: "Demo", first_message: "Hello from the demo." }, op));
  const demoNumber = await must(api.post("/v1/phone-numbers/buy", { area_code: "415" }, op));
  await must(api.post(`/v1/phone-numbers/${demoNumber.id}/assign`, { agent_id: demoAgent.id }, op));
  ctx.config.demoAgent = demoAgent.id;
  await must(api.post("/v1/demo/call", { to: "+14155550101", ...shown }, visitor));
  await settle();
  // Prices last: from here on numbers and calls cost money.
  const lines = (n: number) => ({ inbound: n, outbound: n });
  await must(api.put("/v1/admin/pricing", { per_minute: { telephony: { simulated: lines(20_000), sip: lines(0), twilio: lines(0), telnyx: lines(0) }, browser_voice: 0, speech: { builtin: 0, provider: 0 }, llm: { builtin: 0, provider: 0 } }, number_monthly: { simulated: 1_000_000, sip: 0, twilio: 0, telnyx: 0 } }, op));
  await receiver.waitFor(1);

  // Fresh sessions for the walk (access tokens last 15 minutes on the clock the walk stands at).
  const login = async (email: string, password: string) => (await must(api.post("/v1/auth/login", { email, password }))).access_token as string;
  return { owner: await login(owner.email, owner.password), operator: await login(operator.email, operator.password), email: owner.email, password: owner.password };
}

/** Rows per table (those db copy copies: SQLite's search indexes aside). */
function sqliteCounts(dataDir: string): Record<string, number> {
  const db = new Database(join(dataDir, "parley.db"), { readonly: true });
  try {
    return Object.fromEntries(sqliteModel(db).map((t) => [t.name, (db.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n]));
  } finally {
    db.close();
  }
}

/** Every row of every table in both databases, as the same plain values (blobs as hex), in key order. */
async function everyRow(dataDir: string, url: string): Promise<{ sqlite: Record<string, unknown[]>; postgres: Record<string, unknown[]> }> {
  const db = new Database(join(dataDir, "parley.db"), { readonly: true });
  const server = new SQL({ url, bigint: true, max: 1 });
  const plain = (value: unknown) => (typeof value === "bigint" ? Number(value) : value instanceof Uint8Array ? Buffer.from(value).toString("hex") : value);
  const rows = (list: Record<string, unknown>[]) => list.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
  const result = { sqlite: {} as Record<string, unknown[]>, postgres: {} as Record<string, unknown[]> };
  try {
    for (const table of sqliteModel(db)) {
      const order = (table.primaryKey.length ? table.primaryKey : table.columns.map((c) => c.name)).map((c) => `"${c}"`).join(", ");
      const select = `SELECT ${table.columns.map((c) => `"${c.name}"`).join(", ")} FROM "${table.name}" ORDER BY ${order}`;
      result.sqlite[table.name] = rows(db.prepare(select).all() as Record<string, unknown>[]);
      result.postgres[table.name] = rows(Array.from(await server.unsafe(select)) as Record<string, unknown>[]);
    }
  } finally {
    db.close();
    await server.close();
  }
  return result;
}

interface Answer {
  status: number;
  type: string | null;
  body: unknown;
}

/**
 * Fields that must differ between two servings of the same data, each with its reason. Everything
 * else in every answer must be equal.
 */
function comparable(path: string, body: unknown): unknown {
  if (!body || typeof body !== "object") return body;
  const { request_id: _id, ...rest } = body as Record<string, any>; // a new id for every request, by design
  // A 500 names its request id in the detail, for the same reason.
  if (typeof rest.detail === "string") rest.detail = rest.detail.replace(/\breq_[A-Za-z0-9]+/g, "req_…");
  // Each dialect keeps its own migration journal (SQLite's many migrations, PostgreSQL's baseline): the count differs by design.
  if (path === "/v1/health" && rest.checks?.migrations) rest.checks = { ...rest.checks, migrations: { ...rest.checks.migrations, detail: undefined } };
  // Cosine scores: sqlite-vec sums in float32, PostgreSQL mode's in-process scan in float64.
  if (path.endsWith("/query") && Array.isArray(rest.data)) rest.data = rest.data.map((hit: any) => ({ ...hit, score: Number(hit.score.toFixed(5)) }));
  return rest;
}

async function answer(url: string, path: string, token: string): Promise<Answer> {
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}`, origin: "https://shop.example.com" } });
  const type = res.headers.get("content-type");
  const bytes = Buffer.from(await res.arrayBuffer());
  const body = type?.includes("json") ? JSON.parse(bytes.toString("utf8")) : type?.startsWith("text/") ? bytes.toString("utf8") : `${bytes.length} bytes, sha256 ${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;
  return { status: res.status, type, body: comparable(path.split("?")[0], body) };
}

/** Values for a path parameter, read from an answer already walked (the list that holds the objects). */
const PARAM_SOURCES: Record<string, { list: string; values: (body: any) => string[] }> = {
  "/v1/payments/{id}": { list: "/v1/payments/history", values: (b) => b.data.map((x: any) => x.id) },
  "/v1/branding/{domain}": { list: "/v1/white-label", values: (b) => b.domains.map((d: any) => d.domain) },
  "/v1/branding/logos/{file}": { list: "/v1/white-label", values: (b) => (b.logo_url ? [b.logo_url.split("/").pop()] : []) },
};
/** Query strings a GET needs. */
const QUERY: Record<string, string> = { "/v1/knowledge-base/{id}/query": "query=parking" };

/** Every GET of the OpenAPI document: lists first (every page), then every object found in them; and how many paths each template reached. */
async function walk(url: string, tokens: string[]): Promise<{ answers: Map<string, Answer>; reached: Map<string, number> }> {
  const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, any> };
  const gets = Object.entries<any>(doc.paths).filter(([, ops]) => ops.get).map(([path, ops]) => ({ path, paged: (ops.get.parameters ?? []).some((p: any) => p.name === "cursor") }));
  const answers = new Map<string, Answer>();
  const reached = new Map(gets.map(({ path }) => [path, 0]));
  for (const [who, token] of tokens.entries()) {
    const seen = new Map<string, Answer>();
    const get = async (path: string, paged: boolean) => {
      const page = (cursor?: string) => `${path}${path.includes("?") ? "&" : "?"}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      let at = paged ? page() : path;
      for (;;) {
        const got = await answer(url, at, token);
        seen.set(at === page() ? path : at, got); // a list's first page stands for the list
        answers.set(`${who} ${at}`, got);
        const next = (got.body as any)?.next_cursor;
        if (!paged || !next) return;
        at = page(next);
      }
    };
    // Templates expand once the answers they draw ids from are in: shorter paths first.
    const ordered = [...gets].sort((a, b) => a.path.split("/").length - b.path.split("/").length);
    for (const { path, paged } of ordered) {
      const query = QUERY[path] ? `?${QUERY[path]}` : "";
      for (const concrete of expand(path, seen)) {
        await get(concrete + query, paged);
        reached.set(path, reached.get(path)! + 1);
      }
    }
  }
  return { answers, reached };
}

/** A template's concrete paths: each `{param}` takes every id of the list its prefix names. */
function expand(template: string, seen: Map<string, Answer>): string[] {
  const at = template.indexOf("{");
  if (at < 0) return [template];
  const source = PARAM_SOURCES[template];
  const prefix = template.slice(0, at - 1);
  const list = seen.get(source ? source.list : prefix);
  if (!list || list.status !== 200) return [];
  const values = source ? source.values(list.body) : ((list.body as any)?.data ?? []).map((item: any) => item.id).filter(Boolean);
  const rest = template.slice(template.indexOf("}", at) + 1);
  return values.flatMap((value: string) => {
    const head = `${prefix}/${encodeURIComponent(value)}`;
    if (!rest.includes("{")) return [head + rest];
    // A nested template (…/{id}/sources/{src}): its own list must have been walked for this id.
    const nested = rest.indexOf("{");
    const nestedList = head + rest.slice(0, nested - 1);
    if (!seen.has(nestedList)) return [];
    return expand(head + rest, seen);
  });
}

/**
 * GETs that fail on PostgreSQL today for reasons other helpers of issue 35 are fixing in parallel (their
 * families' statements). Each is compared like the rest once its fix lands: remove it from here then.
 */
const PENDING_ON_POSTGRES: Record<string, string> = {
  "/v1/health": "503 on PostgreSQL: its vector_search check calls sqlite-vec's vec_version(); item 4 gives it a PostgreSQL counterpart. The other checks are compared below",
};

describe("db copy round trip", () => {
  test("every table filled through the API, copied, then served on PostgreSQL with the same answers to every GET", async () => {
    const dataDir = join(tempDir(), "instance");
    mkdirSync(dataDir);
    const sqlite = { ...SETTINGS, databaseUrl: "" }; // this instance is the SQLite one, whatever the run's database
    const source = await startTestServer({ dataDir, settings: sqlite, startAt: T0 });
    let tokens: Awaited<ReturnType<typeof populate>>;
    let walkAt = 0;
    try {
      tokens = await populate(source);
      walkAt = source.clock.now() + MINUTE;
    } finally {
      await source.stop();
    }
    const counts = sqliteCounts(dataDir);
    expect(Object.keys(counts).length).toBeGreaterThan(40);
    // Every table has rows, but the cluster's shared counters and files, which a single SQLite instance leaves empty (its files stay in the data dir).
    expect(Object.entries(counts).filter(([, n]) => n === 0).map(([table]) => table).sort()).toEqual(["file_chunks", "rate_counters", "stored_files"]);

    const url = freshDatabase();
    const copied = await copy(["--from", dataDir, "--to", url]);
    expect(copied.stderr).not.toContain("parley: error");
    expect(copied.exitCode).toBe(0);
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);
    expect(copied.stdout).toBe(`copied ${Object.keys(counts).length} tables, ${rows} rows into postgres://parley@127.0.0.1:${pg.port}/${databaseOf(url)} (row counts checked); start it with parley serve --data-dir ${dataDir} --database-url <the --to URL>\n`);
    // Progress: each table's rows as it goes, then what stays behind.
    for (const [table, n] of Object.entries(counts)) expect(copied.stderr).toContain(`db copy: ${table}: ${n} row${n === 1 ? "" : "s"}\n`);
    expect(copied.stderr).toContain(`db copy: knowledge search: words and vector codes of ${counts.knowledge_chunks} chunks indexed for PostgreSQL (SQLite's FTS5 and vec0 tables are not copied)`);
    // The recordings (and the MP3 the walk made) into the database's file store, where PostgreSQL mode reads them.
    const copiedFrom = new Database(join(dataDir, "parley.db"), { readonly: true });
    const recordings = copiedFrom.prepare("SELECT recording_path FROM calls WHERE recording_path IS NOT NULL").all() as { recording_path: string }[];
    copiedFrom.close();
    expect(recordings.length).toBeGreaterThan(0);
    const files = recordings.flatMap((r) => [r.recording_path, r.recording_path.replace(/\.wav$/, ".mp3")]).filter((path) => existsSync(join(dataDir, path)));
    const bytes = files.reduce((sum, path) => sum + Bun.file(join(dataDir, path)).size, 0);
    expect(copied.stderr).toContain(`db copy: recordings: ${files.length} files (${(bytes / 1e6).toFixed(1)} MB) copied into the database in chunks (stored_files), where every node reads them\n`);
    expect(copied.stderr).toContain(`db copy: instance.key stays in ${dataDir} and opens the copied credentials`);
    const server = new SQL({ url, max: 1 });
    for (const path of files) {
      const chunks = await server`SELECT bytes FROM file_chunks WHERE path = ${path} ORDER BY seq`;
      expect({ path, same: Buffer.compare(Buffer.concat(chunks.map((c: { bytes: Uint8Array }) => Buffer.from(c.bytes))), readFileSync(join(dataDir, path))) }).toEqual({ path, same: 0 });
    }
    await server.close();
    // Every row of every table as it was, ids, sealed secrets and blobs included.
    const both = await everyRow(dataDir, url);
    // The file store's tables hold the recordings copied in (checked above), which SQLite keeps as files.
    for (const side of [both.postgres, both.sqlite]) for (const table of ["stored_files", "file_chunks"]) delete side[table];
    const { stored_files: _files, file_chunks: _chunks, ...rowCounts } = counts;
    expect(Object.fromEntries(Object.entries(both.postgres).map(([table, list]) => [table, list.length]))).toEqual(rowCounts);
    expect(both.postgres).toEqual(both.sqlite);
    // Serial keys continue after the copied ids.
    for (const [table, column] of [["call_events", "id"], ["campaign_contacts", "id"], ["knowledge_chunks", "rowid"], ["schedule_runs", "id"]]) {
      expect(pg.sql(`SELECT last_value = (SELECT max("${column}") FROM "${table}") FROM ${pg.sql(`SELECT pg_get_serial_sequence('"${table}"', '${column}')`, databaseOf(url))}`, databaseOf(url))).toBe("t");
    }
    // A second copy into the now filled database is refused, and changes nothing.
    refused(await copy(["--from", dataDir, "--to", url]), /the --to database is not empty/);
    expect(Number(pg.sql("SELECT count(*) FROM workspaces", databaseOf(url)))).toBe(counts.workspaces);

    const serve = async (databaseUrl: string) => {
      const server = await startTestServer({ dataDir, settings: { ...SETTINGS, databaseUrl }, startAt: walkAt });
      try {
        const { answers, reached } = await walk(server.url, [tokens.owner, tokens.operator]);
        // The provider's key, sealed in SQLite, opens with the same instance key: the check reaches the model with it.
        const asked = model.requests.length;
        const check = await server.api.post(`/v1/providers/${(await server.api.get("/v1/providers", { token: tokens.owner })).body.data.find((p: any) => p.name === "local model").id}/check`, {}, { token: tokens.owner });
        // latency_ms is the wall time the model took to answer this time, not data.
        const { latency_ms: _latency, ...result } = check.body;
        return { answers, reached, check: { status: check.status, result, key: model.requests.slice(asked).map((r) => r.headers.authorization) } };
      } finally {
        await server.stop();
      }
    };
    const onSqlite = await serve("");
    const onPostgres = await serve(url);

    expect(onSqlite.check).toEqual({ status: 200, result: { ok: true, error: null, detail: "2 model(s): fake-chat, fake-embed" }, key: [`Bearer ${PROVIDER_KEY}`] });
    expect(onPostgres.check).toEqual(onSqlite.check);

    const walked = [...onSqlite.answers.keys()];
    expect(walked.length).toBeGreaterThan(100);
    // Every GET was walked: each template with ids reached at least one object (its list held some).
    expect([...onSqlite.reached].filter(([, n]) => n === 0).map(([template]) => template)).toEqual([]);
    expect(onPostgres.reached).toEqual(onSqlite.reached);
    expect([...onPostgres.answers.keys()]).toEqual(walked);
    const pattern = (template: string) => new RegExp(`^\\d ${template.replace(/\{[a-z]+\}/g, "[^/?]+")}(\\?|$)`);
    const pending = (key: string) => Object.keys(PENDING_ON_POSTGRES).some((template) => pattern(template).test(key));
    for (const key of walked) {
      if (pending(key)) continue;
      expect({ key, ...onPostgres.answers.get(key) }).toEqual({ key, ...onSqlite.answers.get(key)! });
    }
    const healthBeside = (answers: Map<string, Answer>) => {
      const { vector_search: _pending, ...checks } = (answers.get("0 /v1/health")!.body as any).checks;
      return checks;
    };
    expect(healthBeside(onPostgres.answers)).toEqual(healthBeside(onSqlite.answers));

    // As the README says to: parley serve with the same data dir and --database-url; the owner signs in with their password.
    const served = await spawnServer(FROM_SOURCE, ["--data-dir", dataDir, "--database-url", url]);
    try {
      const login = await fetch(`${served.url}/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: tokens.email, password: tokens.password }) });
      expect(login.status).toBe(200);
      const token = ((await login.json()) as { access_token: string }).access_token;
      expect((await answer(served.url, "/v1/agents?limit=100", token)).body).toEqual(onSqlite.answers.get("0 /v1/agents?limit=100")!.body);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 180_000);
});
