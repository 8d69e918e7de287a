import type { AppContext } from "../core/context.ts";
import { embedderFor } from "./embedders.ts";
import { type KnowledgeBaseInfo, type Neighbour, queryTerms } from "./search-store.ts";
import { searchStore } from "./store.ts";

export interface SearchHit {
  chunk_id: string;
  source_id: string;
  source_name: string;
  knowledge_base_id: string;
  position: number;
  heading: string | null;
  text: string;
  /** Cosine similarity of the question and the chunk (0–1): what `min_score` filters on. */
  score: number;
  /** Reciprocal-rank-fusion score that ordered the results. */
  rank_score: number;
  matched_by: ("vector" | "keyword")[];
}

export interface SearchOptions {
  topK: number;
  minScore?: number;
  mode?: "hybrid" | "vector" | "keyword";
  /** Benchmarks compare the two vector strategies; normal callers let the size decide. */
  vectorStrategy?: "exact" | "two-stage";
}

/** RRF's k: dampens the weight of the very first ranks (the usual 60). */
const RRF_K = 60;
/** Candidates taken from each ranking before fusing. */
const CANDIDATES = 50;
/** Up to this many chunks a base is searched exactly; above it, binary codes first, then exact re-scoring. */
export const EXACT_SEARCH_LIMIT = 20_000;
/** Binary-code candidates re-scored exactly (recall@10 0.95 at 100k random vectors). */
const COARSE_CANDIDATES = 500;

/**
 * Hybrid search over knowledge bases: vector nearest neighbours and BM25 keyword hits, fused by
 * reciprocal rank. Each base is searched in its own vector partition with its own embedder.
 */
export async function searchKnowledge(ctx: AppContext, workspaceId: string, knowledgeBaseIds: string[], query: string, options: SearchOptions): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (const kbId of knowledgeBaseIds) {
    const kb = ctx.sqlite.prepare("SELECT id, embedder_provider, embedder_model, dimension, chunk_count, index_version FROM knowledge_bases WHERE id = ? AND workspace_id = ?").get(kbId, workspaceId) as
      | KnowledgeBaseInfo
      | undefined;
    if (!kb || !kb.dimension) continue;
    const [vector] = await embedderFor(ctx, workspaceId, { embedderProvider: kb.embedder_provider, embedderModel: kb.embedder_model }).embed([query]);
    hits.push(...searchWithVector(ctx, workspaceId, kb, query, vector, options));
  }
  return hits
    .sort((a, b) => b.rank_score - a.rank_score || b.score - a.score)
    .filter((hit) => options.minScore === undefined || hit.score >= options.minScore)
    .slice(0, options.topK);
}

/** One base, with the question already embedded (benchmarks call this directly). */
export function searchWithVector(ctx: AppContext, workspaceId: string, kb: KnowledgeBaseInfo, query: string, vector: Float32Array, options: SearchOptions): SearchHit[] {
  const mode = options.mode ?? "hybrid";
  const store = searchStore(ctx);
  const fused = new Map<number, { rank: number; by: ("vector" | "keyword")[]; distance?: number }>();
  const add = (rowid: number, rank: number, by: "vector" | "keyword", distance?: number) => {
    const entry = fused.get(rowid) ?? { rank: 0, by: [] };
    entry.rank += 1 / (RRF_K + rank);
    entry.by.push(by);
    if (distance !== undefined) entry.distance = distance;
    fused.set(rowid, entry);
  };
  if (mode !== "keyword") nearestTo(ctx, kb, vector, options.vectorStrategy).forEach((row, i) => add(row.rowid, i + 1, "vector", row.distance));
  const terms = queryTerms(query);
  if (mode !== "vector" && terms.length) store.keyword(ctx, kb, terms, CANDIDATES).forEach((rowid, i) => add(rowid, i + 1, "keyword"));
  if (fused.size === 0) return [];
  // Text and, for keyword-only hits, the similarity too: min_score means the same for every result.
  const rows = store.rows(ctx, workspaceId, [...fused.keys()], vector);
  return rows.map((row) => {
    const entry = fused.get(row.rowid)!;
    return {
      chunk_id: row.id,
      source_id: row.source_id,
      source_name: row.source_name,
      knowledge_base_id: kb.id,
      position: row.position,
      heading: row.heading,
      text: row.text,
      score: Math.max(0, Math.min(1, 1 - row.distance)),
      rank_score: entry.rank,
      matched_by: entry.by,
    };
  });
}

/**
 * The nearest chunks by cosine distance: an exact scan for small bases; for large ones, a pass over
 * 1-bit codes in memory for candidates, then exact distances for those only.
 */
export function nearest(ctx: AppContext, kb: KnowledgeBaseInfo, queryBytes: Buffer, strategy?: "exact" | "two-stage"): Neighbour[] {
  return nearestTo(ctx, kb, new Float32Array(queryBytes.buffer, queryBytes.byteOffset, kb.dimension!), strategy);
}

function nearestTo(ctx: AppContext, kb: KnowledgeBaseInfo, query: Float32Array, strategy?: "exact" | "two-stage"): Neighbour[] {
  const store = searchStore(ctx);
  const useExact = strategy ? strategy === "exact" : kb.chunk_count <= Math.min(EXACT_SEARCH_LIMIT, store.exactLimit(kb.dimension!));
  return store.nearest(ctx, kb, query, CANDIDATES, useExact ? null : { candidates: COARSE_CANDIDATES });
}
