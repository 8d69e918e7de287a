import { afterEach, describe, expect, test } from "bun:test";
import { nearest, searchWithVector } from "../../src/knowledge/search.ts";
import { deleteChunks, replaceSourceChunks, vectorBytes } from "../../src/knowledge/store.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { addSource, createKnowledgeBase } from "../../src/modules/knowledge-base/service.ts";
import { createTestContext } from "../helpers/server.ts";

let env: ReturnType<typeof createTestContext>;
afterEach(() => env?.close());

const D = 64;
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
function unit(): Float32Array {
  const v = Float32Array.from({ length: D }, () => random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function setup(chunks: number) {
  env = createTestContext();
  const { ctx } = env;
  const { workspace } = createUser(ctx, { email: "s@example.test", passwordHash: "x", name: null });
  const kb = createKnowledgeBase(ctx, workspace.id, { name: "kb" });
  ctx.sqlite.prepare("UPDATE knowledge_bases SET dimension = ? WHERE id = ?").run(D, kb.id);
  const source = await addSource(ctx, workspace.id, kb.id, { type: "text", name: "s", text: "x" });
  ctx.sqlite.prepare("DELETE FROM jobs").run(); // the chunks below are written by hand
  const vectors = Array.from({ length: chunks }, unit);
  replaceSourceChunks(ctx, { workspaceId: workspace.id, knowledgeBaseId: kb.id, sourceId: source.id, dimension: D }, vectors.map((vector, i) => ({ position: i, heading: null, text: `chunk ${i} about topic${i % 7}`, vector })));
  const info = () => ctx.sqlite.prepare("SELECT id, embedder_provider, embedder_model, dimension, chunk_count, index_version FROM knowledge_bases WHERE id = ?").get(kb.id) as any;
  return { ctx, workspace, kb, source, vectors, info };
}

describe("vector search strategies", () => {
  test("two-stage search equals the exact scan when every chunk is a candidate", async () => {
    const { ctx, info } = await setup(300);
    for (let i = 0; i < 20; i++) {
      const q = vectorBytes(unit());
      const exact = nearest(ctx, info(), q, "exact").map((r) => r.rowid);
      const twoStage = nearest(ctx, info(), q, "two-stage").map((r) => r.rowid);
      expect(twoStage).toEqual(exact);
    }
  });

  test("two-stage search finds the true neighbours in a base larger than its candidate pool", async () => {
    const { ctx, vectors, info } = await setup(3000);
    let found = 0;
    for (let i = 0; i < 30; i++) {
      const target = vectors[Math.floor(random() * vectors.length)];
      // A query near a stored chunk must find that chunk first.
      const query = target.map((x) => x + (random() - 0.5) * 0.02);
      const [best] = nearest(ctx, info(), vectorBytes(query), "two-stage");
      const [truth] = nearest(ctx, info(), vectorBytes(query), "exact");
      if (best.rowid === truth.rowid) found++;
    }
    expect(found).toBe(30);
  });

  test("the in-memory code index follows every change to the stored vectors", async () => {
    const { ctx, workspace, kb, source, info } = await setup(600);
    const q = unit();
    nearest(ctx, info(), vectorBytes(q), "two-stage"); // builds the index
    const replacement = q.map((x) => x); // a chunk identical to the query
    replaceSourceChunks(ctx, { workspaceId: workspace.id, knowledgeBaseId: kb.id, sourceId: source.id, dimension: D }, [{ position: 0, heading: null, text: "the answer", vector: replacement }]);
    const hits = searchWithVector(ctx, workspace.id, info(), "answer", q, { topK: 5, vectorStrategy: "two-stage" });
    expect(hits.map((h) => h.text)).toEqual(["the answer"]);
    expect(hits[0].score).toBeCloseTo(1, 4);
    deleteChunks(ctx, "source_id", source.id);
    expect(info().chunk_count).toBe(0);
    expect(nearest(ctx, info(), vectorBytes(q), "two-stage")).toEqual([]);
  });
});
