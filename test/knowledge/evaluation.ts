// The knowledge-base evaluation, run against any context (SQLite or PostgreSQL): recall@10 of the whole
// hybrid search on the retrieval set (its passages hidden among distractor chunks of the same words),
// and recall@10 of the vector stage against a brute-force scan. test/knowledge/modes.test.ts runs it
// on both databases at once; scripts/bench/kb-modes.ts times the same search at 100k chunks.
import type { AppContext } from "../../src/core/context.ts";
import { embedTexts } from "../../src/knowledge/embedding/builtin/index.ts";
import type { KnowledgeBaseInfo } from "../../src/knowledge/search-store.ts";
import { nearest, searchKnowledge } from "../../src/knowledge/search.ts";
import { replaceSourceChunks, vectorBytes } from "../../src/knowledge/store.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { addSource, createKnowledgeBase } from "../../src/modules/knowledge-base/service.ts";
import { PASSAGES, QUESTIONS } from "./retrieval-set.ts";

/** A seeded generator, so both databases get the same data and runs are comparable. */
export function seeded(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

export function unitVector(random: () => number, dimension: number): Float32Array {
  const v = Float32Array.from({ length: dimension }, () => random() * 2 - 1);
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

export interface EvaluationBase {
  workspaceId: string;
  knowledgeBaseId: string;
  info(): KnowledgeBaseInfo;
}

/** A workspace with an empty base whose chunks the caller writes (its dimension set, no indexing jobs). */
export async function emptyBase(ctx: AppContext, dimension: number): Promise<EvaluationBase & { addChunks(name: string, chunks: { text: string; vector: Float32Array }[]): Promise<void> }> {
  const { workspace } = createUser(ctx, { email: `eval-${Math.random().toString(36).slice(2)}@example.test`, passwordHash: "unused", name: null });
  const kb = createKnowledgeBase(ctx, workspace.id, { name: "Evaluation" });
  ctx.sqlite.prepare("UPDATE knowledge_bases SET dimension = ? WHERE id = ?").run(dimension, kb.id);
  return {
    workspaceId: workspace.id,
    knowledgeBaseId: kb.id,
    info: () => ctx.sqlite.prepare("SELECT id, embedder_provider, embedder_model, dimension, chunk_count, index_version FROM knowledge_bases WHERE id = ?").get(kb.id) as KnowledgeBaseInfo,
    async addChunks(name, chunks) {
      const source = await addSource(ctx, workspace.id, kb.id, { type: "text", name, text: "written by the evaluation" });
      ctx.sqlite.prepare("DELETE FROM jobs WHERE workspace_id = ?").run(workspace.id); // the chunks are written here, not indexed
      replaceSourceChunks(ctx, { workspaceId: workspace.id, knowledgeBaseId: kb.id, sourceId: source.id, dimension }, chunks.map((c, i) => ({ position: i, heading: null, text: c.text, vector: c.vector })));
    },
  };
}

const FILLER = (
  "report season garden river market window engine summer letter number morning family village picture " +
  "history science musician kitchen bottle forest island mountain teacher student meeting project weather " +
  "evening station bridge harbor captain signal museum painting library council factory machine valley " +
  "ocean planet farmer basket jacket candle mirror pencil ticket rocket saddle tunnel violin wagon"
).split(" ");

/** Filler sentences, a third of their words the passages' own: they compete with the passages for terms and neighbours. */
export function distractorTexts(count: number, random = seeded(11)): string[] {
  const words = PASSAGES.flatMap((p) => p.text.toLowerCase().match(/[a-z0-9$'-]+/g) ?? []);
  const pick = () => (random() < 1 / 3 ? words[Math.floor(random() * words.length)] : FILLER[Math.floor(random() * FILLER.length)]);
  return Array.from({ length: count }, () => {
    const text = Array.from({ length: 12 + Math.floor(random() * 20) }, pick).join(" ");
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  });
}

/** The retrieval set's passages among `distractors` other chunks, embedded by the built-in embedder. */
export async function retrievalBase(ctx: AppContext, distractors: number): Promise<EvaluationBase> {
  const base = await emptyBase(ctx, 384);
  const passages = PASSAGES.map((p) => p.text);
  const passageVectors = embedTexts(passages);
  await base.addChunks("passages", passages.map((text, i) => ({ text, vector: passageVectors[i] })));
  const others = distractorTexts(distractors);
  for (let i = 0; i < others.length; i += 500) {
    const batch = others.slice(i, i + 500);
    const vectors = embedTexts(batch);
    await base.addChunks(`distractors ${i}`, batch.map((text, j) => ({ text, vector: vectors[j] })));
  }
  return base;
}

/**
 * Fraction of the retrieval set's questions whose passage is among the first k results of a search
 * mode, with each question's results (chunk texts) to compare runs by.
 */
export async function retrievalRecall(ctx: AppContext, base: EvaluationBase, mode: "hybrid" | "vector" | "keyword" = "hybrid", k = 10): Promise<{ recall: number; missed: string[]; results: string[][] }> {
  const missed: string[] = [];
  const results: string[][] = [];
  for (const question of QUESTIONS) {
    const target = PASSAGES.find((p) => p.id === question.target)!.text;
    const hits = await searchKnowledge(ctx, base.workspaceId, [base.knowledgeBaseId], question.question, { topK: k, mode });
    results.push(hits.map((hit) => hit.text));
    if (!hits.some((hit) => hit.text === target)) missed.push(question.question);
  }
  return { recall: 1 - missed.length / QUESTIONS.length, missed, results };
}

/** How much two runs' results agree: the mean share of one's top k found in the other's. */
export function agreement(a: string[][], b: string[][]): number {
  let shared = 0;
  let total = 0;
  a.forEach((list, i) => {
    const other = new Set(b[i]);
    shared += list.filter((text) => other.has(text)).length;
    total += Math.max(list.length, b[i].length);
  });
  return total === 0 ? 1 : shared / total;
}

/** The true k nearest by cosine (the vectors are unit length), by brute force. */
export function trueNearest(vectors: Float32Array[], query: Float32Array, k: number): number[] {
  const scored = vectors.map((v, i) => {
    let dot = 0;
    for (let j = 0; j < v.length; j++) dot += v[j] * query[j];
    return { i, dot };
  });
  return scored.sort((a, b) => b.dot - a.dot).slice(0, k).map((s) => s.i);
}

/**
 * recall@10 of the vector stage against brute force: `vectors` were stored in order, so a chunk's
 * position among the base's rowids (ascending) is its index.
 */
export function vectorRecall(ctx: AppContext, base: EvaluationBase, vectors: Float32Array[], queries: Float32Array[], strategy: "exact" | "two-stage"): number {
  const rowids = (ctx.sqlite.prepare("SELECT rowid FROM knowledge_chunks WHERE knowledge_base_id = ? ORDER BY rowid").raw().all(base.knowledgeBaseId) as [number][]).map(([r]) => r);
  let found = 0;
  for (const query of queries) {
    const truth = new Set(trueNearest(vectors, query, 10).map((i) => rowids[i]));
    found += nearest(ctx, base.info(), vectorBytes(query), strategy).slice(0, 10).filter((n) => truth.has(n.rowid)).length;
  }
  return found / (queries.length * 10);
}
