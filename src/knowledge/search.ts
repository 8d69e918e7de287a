import type { AppContext } from "../core/context.ts";
import { embedderFor } from "./embedders.ts";
import { binaryCodeIndex } from "./coarse-index.ts";
import { ensureVectorTables, vectorBytes } from "./store.ts";

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

interface KnowledgeBaseInfo {
  id: string;
  embedder_provider: string;
  embedder_model: string | null;
  dimension: number | null;
  chunk_count: number;
  index_version: number;
}

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
  const queryBytes = vectorBytes(vector);
  const fused = new Map<number, { rank: number; by: ("vector" | "keyword")[]; distance?: number }>();
  const add = (rowid: number, rank: number, by: "vector" | "keyword", distance?: number) => {
    const entry = fused.get(rowid) ?? { rank: 0, by: [] };
    entry.rank += 1 / (RRF_K + rank);
    entry.by.push(by);
    if (distance !== undefined) entry.distance = distance;
    fused.set(rowid, entry);
  };
  if (mode !== "keyword") nearest(ctx, kb, queryBytes, options.vectorStrategy).forEach((row, i) => add(row.rowid, i + 1, "vector", row.distance));
  const match = ftsQuery(query);
  if (mode !== "vector" && match) {
    const keyword = ctx.sqlite
      .prepare("SELECT rowid FROM knowledge_chunks_fts WHERE knowledge_chunks_fts MATCH ? AND knowledge_base_id = ? ORDER BY bm25(knowledge_chunks_fts) LIMIT ?")
      .all(match, kb.id, CANDIDATES) as { rowid: number }[];
    keyword.forEach((row, i) => add(row.rowid, i + 1, "keyword"));
  }
  if (fused.size === 0) return [];
  const rowids = [...fused.keys()];
  // Text and, for keyword-only hits, the similarity too: min_score means the same for every result.
  const rows = ctx.sqlite
    .prepare(
      `SELECT c.rowid, c.id, c.source_id, c.position, c.heading, c.text, s.name AS source_name, vec_distance_cosine(c.embedding, ?) AS distance
       FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_id WHERE c.rowid IN (${rowids.map(() => "?").join(",")}) AND c.workspace_id = ?`,
    )
    .all(queryBytes, ...rowids, workspaceId) as { rowid: number; id: string; source_id: string; position: number; heading: string | null; text: string; source_name: string; distance: number }[];
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
 * The nearest chunks by cosine distance. Small bases: sqlite-vec's exact scan of the float vectors.
 * Large ones: the in-memory pass over 1-bit codes for candidates, then exact distances for those
 * only, read from the chunk rows.
 */
export function nearest(ctx: AppContext, kb: KnowledgeBaseInfo, queryBytes: Buffer, strategy?: "exact" | "two-stage"): { rowid: number; distance: number }[] {
  const tables = ensureVectorTables(ctx, kb.dimension!);
  const useExact = strategy ? strategy === "exact" : kb.chunk_count <= EXACT_SEARCH_LIMIT;
  if (useExact) {
    return ctx.sqlite
      .prepare(`SELECT rowid, distance FROM ${tables.exact} WHERE embedding MATCH ? AND k = ? AND knowledge_base_id = ? ORDER BY distance`)
      .all(queryBytes, CANDIDATES, kb.id) as { rowid: number; distance: number }[];
  }
  const query = new Float32Array(queryBytes.buffer, queryBytes.byteOffset, kb.dimension!);
  const coarse = binaryCodeIndex(ctx, tables.bits, kb.id, kb.dimension!, kb.index_version).candidates(query, COARSE_CANDIDATES);
  if (coarse.length === 0) return [];
  return ctx.sqlite
    .prepare(`SELECT rowid, vec_distance_cosine(embedding, ?) AS distance FROM knowledge_chunks WHERE rowid IN (${coarse.join(",")}) ORDER BY distance LIMIT ?`)
    .all(queryBytes, CANDIDATES) as { rowid: number; distance: number }[];
}

/** The question's words as an FTS5 OR-query (quoted, so user text cannot inject FTS syntax). */
export function ftsQuery(query: string): string | null {
  const terms = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !FTS_STOPWORDS.has(w)))];
  return terms.length ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}

const FTS_STOPWORDS = new Set("the a an is are was were be do does did i you we they it of in on at to for from by with and or but what which who how when where why can could would should will my your our me us".split(" "));
