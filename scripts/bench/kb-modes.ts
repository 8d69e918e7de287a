// Knowledge search on both databases side by side: the same 100,000 chunks (384-d vectors, 40 words
// each) in one base on SQLite (FTS5, sqlite-vec) and on PostgreSQL (full-text search, vectors compared
// in the Parley process), then query latency for hybrid, vector and keyword search, the first query
// after a change (loading the in-memory structures) and recall@10 of the two-stage search against the
// exact scan. A real PostgreSQL server on loopback (fsync off), started here.
// Usage: bun scripts/bench/kb-modes.ts [--chunks 100000] [--queries 200]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { nearest, searchWithVector } from "../../src/knowledge/search.ts";
import { vectorBytes } from "../../src/knowledge/store.ts";
import { closeParley, createParley } from "../../src/server.ts";
import { emptyBase, seeded, unitVector } from "../../test/knowledge/evaluation.ts";
import { startPostgres } from "../../test/helpers/postgres.ts";
import { percentile } from "./stats.ts";

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) || fallback;
const CHUNKS = arg("chunks", 100_000);
const QUERIES = arg("queries", 200);
const PER_SOURCE = 1000;
const D = 384;

interface Figures {
  ingestPerSecond: number;
  firstQueryMs: number;
  timings: Record<string, { p50: number; p95: number }>;
  recall: number;
}

async function run(databaseUrl: string): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-kb-modes-"));
  const ctx = createParley({ config: buildConfig({ dataDir, databaseUrl, logLevel: "error" }), logger: createLogger("error") });
  try {
    const base = await emptyBase(ctx, D);
    // The same seeds on both databases: the same chunks and the same questions.
    const random = seeded(42);
    const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)]; // skewed, like real text
    let ingestMs = 0;
    for (let done = 0; done < CHUNKS; done += PER_SOURCE) {
      const chunks = Array.from({ length: Math.min(PER_SOURCE, CHUNKS - done) }, () => ({ text: Array.from({ length: 40 }, word).join(" "), vector: unitVector(random, D) }));
      const started = performance.now();
      await base.addChunks(`source ${done / PER_SOURCE}`, chunks);
      ingestMs += performance.now() - started;
      if ((done / PER_SOURCE) % 10 === 0) process.stdout.write(`  ${databaseUrl ? "PostgreSQL" : "SQLite"}: ${done + chunks.length}/${CHUNKS}\r`);
    }
    const info = base.info();
    // Questions name specific things: their words come from the vocabulary's middle, not its commonest words.
    const asked = () => vocabulary[200 + Math.floor(random() * (vocabulary.length - 200))];
    const queries = Array.from({ length: QUERIES }, () => ({ vector: unitVector(random, D), text: `${asked()} ${asked()} ${asked()}` }));
    // The worst case for a keyword stage: words in a large share of the chunks (the 20 commonest hold ~6% each).
    const common = queries.map((q) => ({ ...q, text: `${vocabulary[Math.floor(random() * 20)]} ${vocabulary[Math.floor(random() * 20)]}` }));
    const time = (search: (q: (typeof queries)[number]) => unknown, asking = queries) => {
      search(asking[0]); // warm
      const samples: number[] = [];
      for (const q of asking) {
        const started = performance.now();
        search(q);
        samples.push(performance.now() - started);
      }
      return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
    };
    const firstStarted = performance.now();
    searchWithVector(ctx, base.workspaceId, info, queries[0].text, queries[0].vector, { topK: 10 }); // loads the code index (and word statistics)
    const firstQueryMs = performance.now() - firstStarted;
    const timings = {
      "hybrid (BM25 + vectors as sized, RRF)": time((q) => searchWithVector(ctx, base.workspaceId, info, q.text, q.vector, { topK: 10 })),
      "vector, two-stage (1-bit + rescore 500)": time((q) => nearest(ctx, info, vectorBytes(q.vector), "two-stage")),
      "keyword only (BM25)": time((q) => searchWithVector(ctx, base.workspaceId, info, q.text, q.vector, { topK: 10, mode: "keyword" })),
      "keyword only, two common words": time((q) => searchWithVector(ctx, base.workspaceId, info, q.text, q.vector, { topK: 10, mode: "keyword" }), common),
      "vector, exact scan": time((q) => nearest(ctx, info, vectorBytes(q.vector), "exact")),
    };
    let overlap = 0;
    const sample = queries.slice(0, 100);
    for (const q of sample) {
      const truth = new Set(nearest(ctx, info, vectorBytes(q.vector), "exact").slice(0, 10).map((r) => r.rowid));
      overlap += nearest(ctx, info, vectorBytes(q.vector), "two-stage").slice(0, 10).filter((r) => truth.has(r.rowid)).length;
    }
    return { ingestPerSecond: CHUNKS / (ingestMs / 1000), firstQueryMs, timings, recall: overlap / (sample.length * 10) };
  } finally {
    closeParley(ctx);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const server = startPostgres();
server.sql("CREATE DATABASE bench");
let figures: { sqlite: Figures; postgres: Figures };
try {
  figures = { sqlite: await run(""), postgres: await run(server.url("bench")) };
} finally {
  server.stop();
}

const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);
console.log(`\n== knowledge search, SQLite vs PostgreSQL: ${CHUNKS} chunks × ${D}-d in one base, ${QUERIES} queries, ${navigator.hardwareConcurrency} cores, bun ${Bun.version}`);
console.log(`${"".padEnd(42)} ${"SQLite p50 / p95 ms".padStart(22)} ${"PostgreSQL p50 / p95 ms".padStart(26)}`);
for (const label of Object.keys(figures.sqlite.timings)) {
  const [lite, pg] = [figures.sqlite.timings[label], figures.postgres.timings[label]];
  console.log(`${label.padEnd(42)} ${`${f(lite.p50)} / ${f(lite.p95)}`.padStart(22)} ${`${f(pg.p50)} / ${f(pg.p95)}`.padStart(26)}`);
}
console.log(`${"first query after a change (loads codes)".padEnd(42)} ${f(figures.sqlite.firstQueryMs).padStart(22)} ${f(figures.postgres.firstQueryMs).padStart(26)}`);
console.log(`${"ingest, chunks/s (embedder excluded)".padEnd(42)} ${String(Math.round(figures.sqlite.ingestPerSecond)).padStart(22)} ${String(Math.round(figures.postgres.ingestPerSecond)).padStart(26)}`);
console.log(`${"recall@10, two-stage vs exact".padEnd(42)} ${figures.sqlite.recall.toFixed(3).padStart(22)} ${figures.postgres.recall.toFixed(3).padStart(26)}`);
