// Knowledge-base search benchmark: 100,000 chunks of 384-d vectors in one base. Ingest rate (the
// embedder excluded), query latency for vector-only (exact scan and two-stage) and hybrid search,
// recall@10 of the two-stage search against the exact one, and hit@k of the offline embedder.
// Usage: bun scripts/bench/kb.ts [--chunks 100000] [--queries 200]
import { mkdtempSync, rmSync } from "node:fs";
import { closeParley, createParley } from "../../src/server.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { embedTexts } from "../../src/knowledge/embedding/builtin/index.ts";
import { nearest, searchWithVector } from "../../src/knowledge/search.ts";
import { replaceSourceChunks, vectorBytes } from "../../src/knowledge/store.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { addSource, createKnowledgeBase } from "../../src/modules/knowledge-base/service.ts";
import { hitAtK } from "../../test/knowledge/retrieval-set.ts";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const CHUNKS = Number(args.chunks ?? 100_000);
const QUERIES = Number(args.queries ?? 200);
const PER_SOURCE = 1000;
const D = 384;

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-kb-"));
const ctx = createParley({ config: buildConfig({ dataDir, logLevel: "error" }), logger: createLogger("error") });
const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });
const kb = createKnowledgeBase(ctx, workspace.id, { name: "Bench" });
ctx.sqlite.prepare("UPDATE knowledge_bases SET dimension = ? WHERE id = ?").run(D, kb.id);

// A seeded generator, so runs are comparable.
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)]; // skewed, like real text
const vector = () => {
  const v = new Float32Array(D);
  let norm = 0;
  for (let i = 0; i < D; i++) norm += (v[i] = random() * 2 - 1) ** 2;
  norm = Math.sqrt(norm);
  for (let i = 0; i < D; i++) v[i] /= norm;
  return v;
};

console.log(`ingest: ${CHUNKS} chunks in sources of ${PER_SOURCE}…`);
let ingestMs = 0;
for (let done = 0; done < CHUNKS; done += PER_SOURCE) {
  const source = await addSource(ctx, workspace.id, kb.id, { type: "text", name: `source ${done / PER_SOURCE}`, text: "bench" });
  const chunks = Array.from({ length: Math.min(PER_SOURCE, CHUNKS - done) }, (_, i) => ({
    position: i,
    heading: null,
    text: Array.from({ length: 40 }, word).join(" "),
    vector: vector(),
  }));
  const started = performance.now();
  replaceSourceChunks(ctx, { workspaceId: workspace.id, knowledgeBaseId: kb.id, sourceId: source.id, dimension: D }, chunks);
  ingestMs += performance.now() - started;
  if ((done / PER_SOURCE) % 20 === 0) process.stdout.write(`  ${done + chunks.length}/${CHUNKS}\r`);
}
const info = ctx.sqlite.prepare("SELECT id, embedder_provider, embedder_model, dimension, chunk_count, index_version FROM knowledge_bases WHERE id = ?").get(kb.id) as Parameters<typeof searchWithVector>[2];

// Questions name specific things: their words come from the vocabulary's middle, not its most common words.
const askedWord = () => vocabulary[200 + Math.floor(random() * (vocabulary.length - 200))];
const queries = Array.from({ length: QUERIES }, () => ({ vector: vector(), text: `${askedWord()} ${askedWord()} ${askedWord()}` }));
const time = (run: (q: (typeof queries)[number]) => unknown) => {
  run(queries[0]);
  const samples = queries.map((q) => {
    const started = performance.now();
    run(q);
    return performance.now() - started;
  });
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))] };
};

console.log("queries…                     ");
const loadStarted = performance.now();
nearest(ctx, info, vectorBytes(queries[0].vector), "two-stage"); // builds the in-memory code index once
const loadMs = performance.now() - loadStarted;
const exact = time((q) => nearest(ctx, info, vectorBytes(q.vector), "exact"));
const twoStage = time((q) => nearest(ctx, info, vectorBytes(q.vector), "two-stage"));
const hybrid = time((q) => searchWithVector(ctx, workspace.id, info, q.text, q.vector, { topK: 10 }));
const keyword = time((q) => searchWithVector(ctx, workspace.id, info, q.text, q.vector, { topK: 10, mode: "keyword" }));

let overlap = 0;
for (const q of queries.slice(0, 100)) {
  const truth = new Set(nearest(ctx, info, vectorBytes(q.vector), "exact").slice(0, 10).map((r) => r.rowid));
  overlap += nearest(ctx, info, vectorBytes(q.vector), "two-stage").slice(0, 10).filter((r) => truth.has(r.rowid)).length;
}
const recall = overlap / (Math.min(100, queries.length) * 10);

const embedStarted = performance.now();
const hits = [1, 5, 10].map((k) => [k, hitAtK(embedTexts, k)] as const);
const embedMs = performance.now() - embedStarted;

closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });

const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);
console.log(`\n== knowledge base: ${CHUNKS} chunks × ${D}-d in one base, ${QUERIES} queries, ${navigator.hardwareConcurrency} cores, bun ${Bun.version}`);
console.log(`ingest (chunk rows + float and binary vectors + FTS5, embedder excluded): ${Math.round(CHUNKS / (ingestMs / 1000))} chunks/s`);
console.log("search                          p50 ms   p99 ms");
for (const [label, t] of [["vector, exact scan", exact], ["vector, two-stage (1-bit ADC + rescore 500)", twoStage], ["hybrid (two-stage + BM25, RRF)", hybrid], ["keyword only (BM25)", keyword]] as const) {
  console.log(`${label.padEnd(36)} ${f(t.p50).padStart(6)}   ${f(t.p99).padStart(6)}`);
}
console.log(`two-stage code index: built in ${f(loadMs)} ms on first query after a change, ${((CHUNKS * (D / 8 + 4)) / 1024 / 1024).toFixed(1)} MiB in memory`);
console.log(`recall@10 of two-stage vs exact: ${recall.toFixed(3)} (random unit vectors: the hardest case for 1-bit codes)`);
console.log("offline embedder on the retrieval set (hit@k: overall / shares a word / paraphrase):");
for (const [k, rate] of hits) console.log(`  hit@${k}: ${rate.overall.toFixed(2)} / ${rate.sharesWord.toFixed(2)} / ${rate.paraphrase.toFixed(2)}`);
console.log(`  (${f(embedMs)} ms for the three passes)`);
