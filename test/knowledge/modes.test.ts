// The knowledge-base evaluation on both databases in one run: PostgreSQL's search (full-text BM25 in
// SQL, vectors compared in this process) must find what SQLite's (FTS5, sqlite-vec) finds, recall@10
// within 0.02, whichever database PARLEY_TEST_DATABASE names for the other files.
import { afterAll, describe, expect, test } from "bun:test";
import { freshDatabase } from "../helpers/postgres.ts";
import { nearest, searchKnowledge } from "../../src/knowledge/search.ts";
import { indexCopiedChunks } from "../../src/knowledge/postgres-store.ts";
import { createTestContext } from "../helpers/server.ts";
import { agreement, emptyBase, retrievalBase, retrievalRecall, seeded, unitVector, vectorRecall } from "./evaluation.ts";

const MODES = ["hybrid", "vector", "keyword"] as const;
const contexts = { sqlite: createTestContext({ databaseUrl: "" }), postgres: createTestContext({ databaseUrl: freshDatabase() }) };
afterAll(() => Object.values(contexts).forEach((c) => c.close()));

describe("the knowledge-base evaluation on SQLite and PostgreSQL", () => {
  test("the retrieval set's passages alone and among 300 and 1,500 distractors: recall@10 within 0.02 in each search mode", async () => {
    const runs: Record<string, Record<string, { recall: number; results: string[][] }[]>> = { sqlite: {}, postgres: {} };
    for (const distractors of [0, 300, 1500]) {
      for (const [database, { ctx }] of Object.entries(contexts)) {
        const base = await retrievalBase(ctx, distractors);
        for (const mode of MODES) (runs[database][mode] ??= []).push(await retrievalRecall(ctx, base, mode));
      }
    }
    const mean = (values: { recall: number }[]) => values.reduce((sum, run) => sum + run.recall, 0) / values.length;
    for (const mode of MODES) {
      const [lite, pg] = [runs.sqlite[mode], runs.postgres[mode]];
      const shared = lite.map((run, i) => agreement(run.results, pg[i].results));
      console.log(`${mode.padEnd(7)} recall@10 at 0/300/1500 distractors: SQLite ${lite.map((r) => r.recall.toFixed(3)).join("/")} (mean ${mean(lite).toFixed(3)}), PostgreSQL ${pg.map((r) => r.recall.toFixed(3)).join("/")} (mean ${mean(pg).toFixed(3)}); top-10 lists agree ${shared.map((a) => a.toFixed(2)).join("/")}`);
      expect(lite[0].recall).toBeGreaterThan(0.3); // the evaluation finds things at all (paraphrases share no word: keywords miss them)
      expect(Math.abs(mean(pg) - mean(lite))).toBeLessThanOrEqual(0.02);
      // Stemmers differ a little (FTS5's Porter, PostgreSQL's Snowball English): the lists need not be the same, but close.
      expect(Math.min(...shared)).toBeGreaterThanOrEqual(0.8);
    }
  }, 120_000);

  test("vector stage: exact and two-stage (1-bit codes, 500 re-scored) against brute force, recall@10 within 0.02", async () => {
    const random = seeded(5);
    const vectors = Array.from({ length: 10_000 }, () => unitVector(random, 64));
    const queries = Array.from({ length: 60 }, () => unitVector(random, 64));
    const recall: Record<string, { exact: number; twoStage: number }> = {};
    for (const [mode, { ctx }] of Object.entries(contexts)) {
      const base = await emptyBase(ctx, 64);
      for (let i = 0; i < vectors.length; i += 1000) await base.addChunks(`part ${i}`, vectors.slice(i, i + 1000).map((vector, j) => ({ text: `chunk ${i + j}`, vector })));
      recall[mode] = { exact: vectorRecall(ctx, base, vectors, queries, "exact"), twoStage: vectorRecall(ctx, base, vectors, queries, "two-stage") };
      console.log(`${mode}: recall@10 exact ${recall[mode].exact.toFixed(3)}, two-stage ${recall[mode].twoStage.toFixed(3)}`);
    }
    expect(recall.sqlite.exact).toBeGreaterThan(0.99);
    expect(recall.postgres.exact).toBeGreaterThan(0.99);
    expect(recall.sqlite.twoStage).toBeGreaterThan(0.5);
    expect(Math.abs(recall.postgres.twoStage - recall.sqlite.twoStage)).toBeLessThanOrEqual(0.02);
  }, 120_000);

  test("any words a caller types reach the keyword stage as words, never as query syntax", async () => {
    for (const { ctx } of Object.values(contexts)) {
      const base = await retrievalBase(ctx, 0);
      for (const question of ["x² ½ Ⅻ", "日本語のテキスト", "ǅemal ﬁle über straße", "a1b2 3d 1e5 0x1f", `don't "stop" OR parking* AND NOT -x | y & !z :*`, "!"]) {
        await searchKnowledge(ctx, base.workspaceId, [base.knowledgeBaseId], question, { topK: 3, mode: "keyword" });
      }
      const [hit] = await searchKnowledge(ctx, base.workspaceId, [base.knowledgeBaseId], "garage | entrance & parking", { topK: 1, mode: "keyword" });
      expect(hit.text).toContain("garage entrance");
    }
  });

  test("chunks copied into PostgreSQL without their search rows (parley db copy) are indexed and found again", async () => {
    const { ctx } = contexts.postgres;
    const base = await retrievalBase(ctx, 600);
    const ask = () => searchKnowledge(ctx, base.workspaceId, [base.knowledgeBaseId], "Where is the garage entrance?", { topK: 1, mode: "keyword" });
    expect((await ask())[0].text).toContain("garage entrance");
    const chunks = base.info().chunk_count;
    ctx.sqlite.prepare("DELETE FROM knowledge_pg_search WHERE knowledge_base_id = ?").run(base.knowledgeBaseId); // as a copy leaves them
    expect(await ask()).toEqual([]);
    expect(indexCopiedChunks(ctx.sqlite)).toBe(chunks);
    expect((await ask())[0].text).toContain("garage entrance");
    // The codes are back too: the two-stage search finds a stored chunk from its own vector.
    const stored = ctx.sqlite.prepare("SELECT rowid, embedding FROM knowledge_chunks WHERE knowledge_base_id = ? AND text LIKE '%garage entrance%'").get(base.knowledgeBaseId) as { rowid: number; embedding: Buffer };
    expect(nearest(ctx, base.info(), stored.embedding, "two-stage")[0]).toMatchObject({ rowid: stored.rowid, distance: expect.closeTo(0, 5) });
    expect(indexCopiedChunks(ctx.sqlite)).toBe(0);
  });
});
