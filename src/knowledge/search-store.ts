import type { AppContext } from "../core/context.ts";

// Where chunks, their words and their vectors are kept and searched: the one place the two databases
// differ in substance (SQLite's FTS5 and sqlite-vec, PostgreSQL's full-text search and an in-process
// vector scan). store.ts picks the implementation by ctx.dialect; search.ts fuses what they find.

export interface KnowledgeBaseInfo {
  id: string;
  embedder_provider: string;
  embedder_model: string | null;
  dimension: number | null;
  chunk_count: number;
  index_version: number;
}

export interface ChunkTarget {
  workspaceId: string;
  knowledgeBaseId: string;
  sourceId: string;
  dimension: number;
}

export interface NewChunk {
  position: number;
  heading: string | null;
  text: string;
  vector: Float32Array;
}

export interface Neighbour {
  rowid: number;
  /** Cosine distance (0 = same direction). */
  distance: number;
}

export interface ChunkRow {
  rowid: number;
  id: string;
  source_id: string;
  position: number;
  heading: string | null;
  text: string;
  source_name: string;
  distance: number;
}

export interface SearchStore {
  /** Writes chunk rows with their vectors and words (inside the caller's transaction). */
  insert(ctx: AppContext, target: ChunkTarget, chunks: NewChunk[]): void;
  /** Removes the chunks of a source or a whole base with their vectors and words (inside the caller's transaction). */
  remove(ctx: AppContext, column: "source_id" | "knowledge_base_id", id: string): { count: number; knowledgeBaseId: string } | null;
  /** Bases with more chunks than this are searched in two stages even below the exact-search limit. */
  exactLimit(dimension: number): number;
  /** The `count` nearest chunks of one base: an exact scan, or 1-bit codes first and the best `candidates` re-scored. */
  nearest(ctx: AppContext, kb: KnowledgeBaseInfo, query: Float32Array, count: number, twoStage: { candidates: number } | null): Neighbour[];
  /** Rowids of one base's chunks holding any of the terms, best BM25 first. */
  keyword(ctx: AppContext, kb: KnowledgeBaseInfo, terms: string[], count: number): number[];
  /** The chunks' rows (of this workspace only) with their distance to the query. */
  rows(ctx: AppContext, workspaceId: string, rowids: number[], query: Float32Array): ChunkRow[];
}

export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A chunk's text as its words are indexed: the heading first. */
export function indexedText(chunk: { heading: string | null; text: string }): string {
  return chunk.heading ? `${chunk.heading}\n${chunk.text}` : chunk.text;
}

/** The question's words to match (lowercased, deduplicated, without the commonest question words). */
export function queryTerms(query: string): string[] {
  return [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w)))];
}

const STOPWORDS = new Set("the a an is are was were be do does did i you we they it of in on at to for from by with and or but what which who how when where why can could would should will my your our me us".split(" "));
