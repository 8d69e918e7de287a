import { describe, expect, test } from "bun:test";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { buildPdf } from "../helpers/pdf.ts";
import { ON_POSTGRES, startTestServer, type TestServer, testDatabase } from "../helpers/server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const s = serverWithUser("owner");
const token = () => s.user.token;
const api = () => s.server.api;

async function newKb(body: Record<string, unknown> = {}) {
  const res = await api().post("/v1/knowledge-base", { name: "Help center", ...body }, { token: token() });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Waits (real time) until the source leaves pending/indexing; the runner works in the background. */
async function settled(kbId: string, sourceId: string) {
  for (let i = 0; i < 600; i++) {
    await s.server.ctx.jobs.drain();
    const res = await api().get(`/v1/knowledge-base/${kbId}/sources/${sourceId}`, { token: token() });
    if (res.body.status === "ready" || res.body.status === "failed") return res.body;
    await Bun.sleep(20);
  }
  throw new Error("source never settled");
}

async function upload(kbId: string, name: string, bytes: Uint8Array | string, type: string) {
  const form = new FormData();
  form.append("file", new File([bytes], name, { type }));
  const response = await fetch(`${s.server.url}/v1/knowledge-base/${kbId}/sources`, { method: "POST", headers: { authorization: `Bearer ${token()}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

/** A base's vectors of one dimension left in the search engine's own tables: sqlite-vec's, or PostgreSQL's search rows (codes of dimension/8 bytes). */
function storedVectors(kbId: string, dimension: number): number {
  const sql = ON_POSTGRES
    ? `SELECT count(*) AS n FROM knowledge_pg_search WHERE knowledge_base_id = ? AND octet_length(code) = ${dimension / 8}`
    : `SELECT count(*) AS n FROM knowledge_vectors_${dimension} WHERE knowledge_base_id = ?`;
  return (s.server.ctx.sqlite.prepare(sql).get(kbId) as { n: number }).n;
}

const query = (kbId: string, q: string, extra: Record<string, unknown> = {}) => api().post(`/v1/knowledge-base/${kbId}/query`, { query: q, ...extra }, { token: token() });

describe("knowledge base sources", () => {
  test("a text source goes pending → ready with progress, and answers queries with its source and position", async () => {
    const kb = await newKb();
    const added = await api().post(
      `/v1/knowledge-base/${kb}/sources`,
      { type: "text", name: "Opening hours", text: "# Hours\n\nWe are open Monday to Friday from 9am to 6pm. On Saturdays we open at 10am and close at 2pm. We are closed on Sundays and public holidays." },
      { token: token() },
    );
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({ object: "knowledge_source", status: "pending", type: "text" });
    const ready = await settled(kb, added.body.id);
    expect(ready).toMatchObject({ status: "ready", error: null });
    expect(ready.progress.chunks_done).toBe(ready.progress.chunks_total);
    expect(ready.progress.chunks_total).toBeGreaterThan(0);
    const hits = await query(kb, "When do you close on Saturday?");
    expect(hits.status).toBe(200);
    expect(hits.body.data[0]).toMatchObject({ source_id: added.body.id, source_name: "Opening hours", position: 0, heading: "Hours" });
    expect(hits.body.data[0].matched_by).toEqual(expect.arrayContaining(["vector", "keyword"]));
    expect(hits.body.data[0].score).toBeGreaterThan(0);
    const meta = await api().get(`/v1/knowledge-base/${kb}`, { token: token() });
    expect(meta.body).toMatchObject({ embedder: { provider_id: "builtin", dimension: 384 }, counts: { sources: 1, ready: 1 } });

    // Read-only keys search with GET (they may make no other request) and get the same answer.
    const readOnly = (await api().post("/v1/api-keys", { name: "search only", scope: "read-only" }, { token: token() })).body.key;
    const viaGet = await api().get(`/v1/knowledge-base/${kb}/query?query=${encodeURIComponent("When do you close on Saturday?")}&top_k=2`, { token: readOnly });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.data.length).toBeLessThanOrEqual(2);
    expect(viaGet.body.data[0]).toEqual(hits.body.data[0]);
    const viaPost = await api().post(`/v1/knowledge-base/${kb}/query`, { query: "When do you close?" }, { token: readOnly });
    expect(viaPost.status).toBe(403);
    expect(viaPost.body.code).toBe("insufficient_scope");
    expect((await api().get(`/v1/knowledge-base/${kb}/query?top_k=abc&query=x`, { token: readOnly })).body.errors[0].field).toBe("top_k");
  });

  test("files: txt, md, html, csv and a generated PDF are extracted and searchable", async () => {
    const kb = await newKb();
    const files: [string, Uint8Array | string, string, string][] = [
      ["refunds.txt", "Refunds are issued within 14 days of receiving the returned item.", "text/plain", "How long do refunds take?"],
      ["shipping.md", "# Shipping\n\nStandard delivery takes three to five working days.", "text/markdown", "How long is delivery?"],
      ["warranty.html", "<html><head><title>Warranty</title><script>var x=1</script></head><body><nav>Home | Shop</nav><h1>Warranty</h1><p>Every blender carries a two year warranty.</p></body></html>", "text/html", "warranty blender"],
      ["prices.csv", "plan,price\nBasic,10 euros per month\nPremium,25 euros per month\n", "text/csv", "premium price"],
      ["insurance.pdf", buildPdf({ pages: [["Insurance", "Our policy covers accidental damage to phones."], ["Page two", "Claims must be filed within 30 days."]] }), "application/pdf", "When must claims be filed?"],
    ];
    for (const [name, bytes, type, question] of files) {
      const added = await upload(kb, name, bytes, type);
      expect(`${name} ${added.status}`).toBe(`${name} 202`);
      const ready = await settled(kb, added.body.id);
      expect(`${name} ${ready.status} ${ready.error}`).toBe(`${name} ready null`);
      const hits = await query(kb, question, { top_k: 1 });
      expect(`${name}: ${hits.body.data[0]?.source_name}`).toBe(`${name}: ${name}`);
    }
  });

  test("unsupported types are 415 with the supported list; oversized files 413", async () => {
    const kb = await newKb();
    const zip = await upload(kb, "archive.zip", new Uint8Array([0x50, 0x4b, 3, 4, 0, 0, 0, 0, 255, 254, 0, 1]), "application/zip");
    expect(zip.status).toBe(415);
    expect(zip.body.detail).toContain("application/pdf");
    const big = await upload(kb, "big.txt", "x".repeat(21 * 1024 * 1024), "text/plain");
    expect(big.status).toBe(413);
  });

  test("URL sources are fetched with the same rules; a failing one reports its error", async () => {
    const site = startReceiver((request) =>
      request.path === "/missing" ? new Response("gone", { status: 404 }) : new Response("<html><title>FAQ</title><body><p>Parking is free for all visitors.</p></body></html>", { headers: { "content-type": "text/html" } }),
    );
    const kb = await newKb();
    const base = site.url.replace("/hook", "");
    const ok = await api().post(`/v1/knowledge-base/${kb}/sources`, { type: "url", url: `${base}/faq` }, { token: token() });
    const readyOk = await settled(kb, ok.body.id);
    expect(readyOk).toMatchObject({ status: "ready", name: "FAQ" });
    expect((await query(kb, "is parking free", { top_k: 1 })).body.data[0].text).toContain("Parking is free");
    const bad = await api().post(`/v1/knowledge-base/${kb}/sources`, { type: "url", url: `${base}/missing` }, { token: token() });
    const failed = await settled(kb, bad.body.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toContain("HTTP 404");
    site.stop();
  });

  test("delete and reindex swap a source's chunks atomically: queries never see half an index", async () => {
    const kb = await newKb({ chunking: { size: 60, overlap: 10 } });
    const text = Array.from({ length: 40 }, (_, i) => `Fact number ${i}: the zebra code ${i} opens locker ${i}.`).join(" ");
    const added = await api().post(`/v1/knowledge-base/${kb}/sources`, { type: "text", name: "Lockers", text }, { token: token() });
    const ready = await settled(kb, added.body.id);
    const total = ready.progress.chunks_total;
    expect(total).toBeGreaterThan(5);
    const chunkCount = () => (s.server.ctx.sqlite.prepare("SELECT count(*) AS n FROM knowledge_chunks WHERE source_id = ?").get(added.body.id) as { n: number }).n;
    // Reindex while querying: every observation sees the full set of chunks.
    await api().post(`/v1/knowledge-base/${kb}/sources/${added.body.id}/reindex`, undefined, { token: token() });
    const seen = new Set<number>();
    for (let i = 0; i < 50; i++) {
      seen.add(chunkCount());
      await Bun.sleep(2);
      if (i === 5) await s.server.ctx.jobs.drain();
    }
    await settled(kb, added.body.id);
    expect([...seen]).toEqual([total]);
    expect((await api().delete(`/v1/knowledge-base/${kb}/sources/${added.body.id}`, { token: token() })).status).toBe(204);
    expect(chunkCount()).toBe(0);
    expect(storedVectors(kb, 384)).toBe(0);
    expect((await query(kb, "zebra code")).body.data).toEqual([]);
  });

  test("a remote embedder (OpenAI /embeddings) works, and changing the embedder reindexes everything", async () => {
    const fake = startFakeOpenAI({ dimension: 64 });
    const provider = await api().post("/v1/providers", { name: "embeddings", kind: "openai-compatible", base_url: fake.url }, { token: token() });
    const kb = await newKb({ embedder: { provider_id: provider.body.id, model: "fake-embed" } });
    const added = await api().post(`/v1/knowledge-base/${kb}/sources`, { type: "text", name: "Pets", text: "Dogs are welcome in the garden terrace." }, { token: token() });
    await settled(kb, added.body.id);
    expect((await api().get(`/v1/knowledge-base/${kb}`, { token: token() })).body.embedder).toEqual({ provider_id: provider.body.id, model: "fake-embed", dimension: 64 });
    expect(fake.requests.some((r) => r.path === "/v1/embeddings" && r.body.model === "fake-embed")).toBe(true);
    expect((await query(kb, "are dogs welcome", { top_k: 1 })).body.data[0].source_id).toBe(added.body.id);

    const switched = await api().patch(`/v1/knowledge-base/${kb}`, { embedder: { provider_id: "builtin" } }, { token: token() });
    expect(switched.body.embedder).toEqual({ provider_id: "builtin", model: null, dimension: null });
    const embeddingCalls = fake.requests.filter((r) => r.path === "/v1/embeddings").length;
    await settled(kb, added.body.id);
    // Rebuilt by the new embedder alone: nothing left in the old vector space, no more remote calls.
    expect(storedVectors(kb, 64)).toBe(0);
    expect((await api().get(`/v1/knowledge-base/${kb}`, { token: token() })).body.embedder.dimension).toBe(384);
    expect((await query(kb, "are dogs welcome", { top_k: 1 })).body.data[0].source_id).toBe(added.body.id);
    expect(fake.requests.filter((r) => r.path === "/v1/embeddings").length).toBe(embeddingCalls);
    fake.stop();
  });

  test("validation: chunking bounds, remote embedders need a model, min_score filters, and in-use bases cannot go", async () => {
    const bad = await api().post("/v1/knowledge-base", { name: "x", chunking: { size: 100, overlap: 60 } }, { token: token() });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe("chunking.overlap");
    const noModel = await api().post("/v1/knowledge-base", { name: "x", embedder: { provider_id: "prv_nope" } }, { token: token() });
    expect(noModel.body.errors[0].field).toBe("embedder.provider_id");
    const kb = await newKb();
    const added = await api().post(`/v1/knowledge-base/${kb}/sources`, { type: "text", name: "Pool", text: "The swimming pool opens at seven in the morning." }, { token: token() });
    await settled(kb, added.body.id);
    expect((await query(kb, "pool opening time", { min_score: 0.99 })).body.data).toEqual([]);
    expect((await query(kb, "pool opening time", { min_score: 0.05 })).body.data.length).toBe(1);
    const agent = await api().post("/v1/agents", { name: "Uses KB", knowledge_base_ids: [kb] }, { token: token() });
    const blocked = await api().delete(`/v1/knowledge-base/${kb}`, { token: token() });
    expect(blocked.status).toBe(409);
    expect(blocked.body.detail).toContain(agent.body.id);
  });

  test("a flow agent answers from its knowledge base in chat, offline", async () => {
    const kb = await newKb();
    const added = await api().post(
      `/v1/knowledge-base/${kb}/sources`,
      { type: "text", name: "Clinic", text: "Appointments can be booked online or by phone. A standard consultation costs 60 euros. The clinic is at 12 Harbour Street." },
      { token: token() },
    );
    await settled(kb, added.body.id);
    const agent = await api().post("/v1/agents", { name: "Clinic line", first_message: "Clinic, how can I help?", knowledge_base_ids: [kb] }, { token: token() });
    const opened = await api().post(`/v1/agents/${agent.body.id}/chat`, {}, { token: token() });
    expect(opened.body.reply).toBe("Clinic, how can I help?");
    const answer = await api().post(`/v1/agents/${agent.body.id}/chat`, { session_id: opened.body.session_id, message: "How much is a consultation?" }, { token: token() });
    expect(answer.body.reply).toContain("60 euros");
    const booking = await api().post(`/v1/agents/${agent.body.id}/chat`, { session_id: opened.body.session_id, message: "Can I book an appointment by phone?" }, { token: token() });
    expect(booking.body.reply).toContain("booked online or by phone");
    const unrelated = await api().post(`/v1/agents/${agent.body.id}/chat`, { session_id: opened.body.session_id, message: "Do you sell bicycles?" }, { token: token() });
    expect(unrelated.body.reply).toBe("I'm sorry, I don't have an answer to that. Is there anything else I can help with?");
  });
});

describe("URL sources when private targets are not allowed (the default)", () => {
  const dataDirs = tempDirs("parley-kb-strict-");

  test("a URL the rules refuse outright is 422 on url at creation", async () => {
    const strict = await startTestServer({ settings: { allowPrivateUrls: "false" } });
    try {
      const owner = await registerUser(strict.api);
      const kb = (await strict.api.post("/v1/knowledge-base", { name: "Strict" }, { token: owner.token })).body.id;
      const cases: [string, RegExp][] = [
        ["http://docs.example.com/faq", /must use https/],
        ["https://127.0.0.1/faq", /private, loopback or link-local/],
        ["https://[::1]/faq", /private, loopback or link-local/],
        ["https://localhost/faq", /local host name/],
        ["https://localhost./faq", /local host name/],
      ];
      for (const [url, message] of cases) {
        const res = await strict.api.post(`/v1/knowledge-base/${kb}/sources`, { type: "url", url }, { token: owner.token });
        expect(`${url} ${res.status}`).toBe(`${url} 422`);
        expect(res.body.errors[0].field).toBe("url");
        expect(res.body.errors[0].message).toMatch(message);
      }
    } finally {
      await strict.stop();
    }
  });

  test("a URL the rules refuse when it is fetched fails at once with the reason, without retries", async () => {
    // Stored while private URLs were allowed; the operator then turns them off and the source is reindexed.
    const site = startReceiver(() => new Response("<html><title>FAQ</title><body><p>Parking is free for all visitors.</p></body></html>", { headers: { "content-type": "text/html" } }));
    const dataDir = dataDirs();
    const database = testDatabase(); // the restart below opens the same one
    const open = await startTestServer({ settings: { dataDir, ...database } });
    const owner = await registerUser(open.api);
    const kb = (await open.api.post("/v1/knowledge-base", { name: "Intranet" }, { token: owner.token })).body.id;
    const added = await open.api.post(`/v1/knowledge-base/${kb}/sources`, { type: "url", url: `${site.url.replace("/hook", "")}/faq` }, { token: owner.token });
    expect(added.status).toBe(202);
    const sourcePath = `/v1/knowledge-base/${kb}/sources/${added.body.id}`;
    expect((await settledOn(open, sourcePath, owner.token)).status).toBe("ready");
    await open.stop();

    const strict = await startTestServer({ settings: { dataDir, ...database, allowPrivateUrls: "false" } });
    try {
      const login = await strict.api.post("/v1/auth/login", { email: owner.email, password: owner.password });
      expect((await strict.api.post(`${sourcePath}/reindex`, undefined, { token: login.body.access_token })).status).toBe(202);
      const failed = await settledOn(strict, sourcePath, login.body.access_token);
      expect(failed).toMatchObject({ status: "failed" });
      expect(failed.error).toMatch(/^refused: must use https/);
      const jobs = (strict.ctx.sqlite.prepare("SELECT state, attempt, payload FROM jobs WHERE type = 'knowledge.index' ORDER BY created_at").all() as { state: string; attempt: number; payload: string }[])
        .filter((job) => JSON.parse(job.payload).source_id === added.body.id)
        .map(({ state, attempt }) => ({ state, attempt }));
      expect(jobs.at(-1)).toEqual({ state: "discarded", attempt: 1 });
      expect(site.requests).toHaveLength(1); // only the fetch made while private URLs were allowed
    } finally {
      await strict.stop();
      site.stop();
    }
  });
});

/** Waits (real time) until the source is ready, failed, or carries an error (a retry is pending). */
async function settledOn(server: TestServer, sourcePath: string, bearer: string) {
  for (let i = 0; i < 600; i++) {
    await server.ctx.jobs.drain();
    const res = await server.api.get(sourcePath, { token: bearer });
    if (res.body.status === "ready" || res.body.status === "failed" || res.body.error) return res.body;
    await Bun.sleep(20);
  }
  throw new Error("source never settled");
}
