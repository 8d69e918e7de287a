import type { AppContext } from "../core/context.ts";
import { embedderFor } from "./embedders.ts";
import { ensureVectorTable } from "./store.ts";

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
}

/** RRF's k: dampens the weight of the very first ranks (the usual 60). */
const RRF_K = 60;
/** Candidates taken from each ranking before fusing. */
const CANDIDATES = 50;

/**
 * Hybrid search over knowledge bases: vector nearest neighbours and BM25 keyword hits, fused by
 * reciprocal rank. Each base is searched in its own vector partition with its own embedder.
 */
export async function searchKnowledge(ctx: AppContext, workspaceId: string, knowledgeBaseIds: string[], query: string, options: SearchOptions): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (const kbId of knowledgeBaseIds) hits.push(...(await searchOne(ctx, workspaceId, kbId, query, options)));
  return hits
    .sort((a, b) => b.rank_score - a.rank_score || b.score - a.score)
    .filter((hit) => options.minScore === undefined || hit.score >= options.minScore)
    .slice(0, options.topK);
}

async function searchOne(ctx: AppContext, workspaceId: string, kbId: string, query: string, options: SearchOptions): Promise<SearchHit[]> {
  const kb = ctx.sqlite.prepare("SELECT * FROM knowledge_bases WHERE id = ? AND workspace_id = ?").get(kbId, workspaceId) as
    | { embedder_provider: string; embedder_model: string | null; dimension: number | null }
    | undefined;
  if (!kb || !kb.dimension) return [];
  const mode = options.mode ?? "hybrid";
  const [queryVector] = await embedderFor(ctx, workspaceId, { embedderProvider: kb.embedder_provider, embedderModel: kb.embedder_model }).embed([query]);
  const table = ensureVectorTable(ctx, kb.dimension);
  const vectorBytes = Buffer.from(queryVector.buffer, queryVector.byteOffset, queryVector.byteLength);
  const fused = new Map<number, { rank: number; by: ("vector" | "keyword")[]; distance?: number }>();
  const add = (rowid: number, rank: number, by: "vector" | "keyword", distance?: number) => {
    const entry = fused.get(rowid) ?? { rank: 0, by: [] };
    entry.rank += 1 / (RRF_K + rank);
    entry.by.push(by);
    if (distance !== undefined) entry.distance = distance;
    fused.set(rowid, entry);
  };
  if (mode !== "keyword") {
    const nearest = ctx.sqlite
      .prepare(`SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ? AND knowledge_base_id = ? ORDER BY distance`)
      .all(vectorBytes, CANDIDATES, kbId) as { rowid: number; distance: number }[];
    nearest.forEach((row, i) => add(row.rowid, i + 1, "vector", row.distance));
  }
  const match = ftsQuery(query);
  if (mode !== "vector" && match) {
    const keyword = ctx.sqlite
      .prepare("SELECT rowid FROM knowledge_chunks_fts WHERE knowledge_chunks_fts MATCH ? AND knowledge_base_id = ? ORDER BY bm25(knowledge_chunks_fts) LIMIT ?")
      .all(match, kbId, CANDIDATES) as { rowid: number }[];
    keyword.forEach((row, i) => add(row.rowid, i + 1, "keyword"));
  }
  if (fused.size === 0) return [];
  const rowids = [...fused.keys()];
  const marks = rowids.map(() => "?").join(",");
  // Keyword-only hits still get a similarity, so min_score means the same thing for every result.
  const missing = rowids.filter((rowid) => fused.get(rowid)!.distance === undefined);
  if (missing.length) {
    const distances = ctx.sqlite
      .prepare(`SELECT rowid, vec_distance_cosine(embedding, ?) AS distance FROM ${table} WHERE rowid IN (${missing.map(() => "?").join(",")})`)
      .all(vectorBytes, ...missing) as { rowid: number; distance: number }[];
    for (const row of distances) fused.get(row.rowid)!.distance = row.distance;
  }
  const rows = ctx.sqlite
    .prepare(
      `SELECT c.rowid, c.id, c.source_id, c.position, c.heading, c.text, s.name AS source_name
       FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_id WHERE c.rowid IN (${marks}) AND c.workspace_id = ?`,
    )
    .all(...rowids, workspaceId) as { rowid: number; id: string; source_id: string; position: number; heading: string | null; text: string; source_name: string }[];
  return rows.map((row) => {
    const entry = fused.get(row.rowid)!;
    return {
      chunk_id: row.id,
      source_id: row.source_id,
      source_name: row.source_name,
      knowledge_base_id: kbId,
      position: row.position,
      heading: row.heading,
      text: row.text,
      score: Math.max(0, Math.min(1, 1 - (entry.distance ?? 1))),
      rank_score: entry.rank,
      matched_by: entry.by,
    };
  });
}

/** The question's words as an FTS5 OR-query (quoted, so user text cannot inject FTS syntax). */
export function ftsQuery(query: string): string | null {
  const terms = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !FTS_STOPWORDS.has(w)))];
  return terms.length ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}

const FTS_STOPWORDS = new Set("the a an is are was were be do does did i you we they it of in on at to for from by with and or but what which who how when where why can could would should will my your our me us".split(" "));
