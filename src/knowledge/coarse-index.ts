import type { AppContext } from "../core/context.ts";

/** A vector's 1-bit code as sqlite-vec's `vec_quantize_binary` makes it: bit i (LSB first) is set when dimension i is positive. */
export function binaryCode(vector: Float32Array): Uint8Array {
  const code = new Uint8Array(Math.ceil(vector.length / 8));
  for (let i = 0; i < vector.length; i++) if (vector[i] > 0) code[i >> 3] |= 1 << (i & 7);
  return code;
}

/**
 * A first pass for large knowledge bases: each chunk's 1-bit code (the sign of every dimension, as
 * sqlite-vec's `vec_quantize_binary` stores them) held in memory, scored asymmetrically against the
 * float query through per-byte lookup tables (48 lookups per 384-d chunk). The best candidates are
 * then ranked by their exact distance. Measured at 100k × 384-d: ~6 ms for the pass, recall@10 0.95
 * with 500 candidates on random vectors (the hardest case).
 */
export class BinaryCodeIndex {
  private constructor(
    readonly version: number,
    private dimension: number,
    private rowids: Int32Array,
    private codes: Uint8Array,
  ) {}

  /** Reads the codes of one base from its binary vec0 partition. */
  static load(ctx: AppContext, table: string, knowledgeBaseId: string, dimension: number, version: number): BinaryCodeIndex {
    const rows = ctx.sqlite.prepare(`SELECT rowid, embedding FROM ${table} WHERE knowledge_base_id = ?`).raw().all(knowledgeBaseId) as [number, Uint8Array][];
    return BinaryCodeIndex.fromRows(rows, dimension, version);
  }

  /** From [rowid, code] rows, wherever they were kept. */
  static fromRows(rows: [number, Uint8Array][], dimension: number, version: number): BinaryCodeIndex {
    const bytes = dimension / 8;
    const rowids = new Int32Array(rows.length);
    const codes = new Uint8Array(rows.length * bytes);
    rows.forEach(([rowid, code], i) => {
      rowids[i] = rowid;
      codes.set(code.subarray(0, bytes), i * bytes);
    });
    return new BinaryCodeIndex(version, dimension, rowids, codes);
  }

  get size(): number {
    return this.rowids.length;
  }

  /** Memory held, for caches with a budget. */
  get bytes(): number {
    return this.rowids.byteLength + this.codes.byteLength;
  }

  /** Rowids of the `count` chunks whose codes score highest against the query. */
  candidates(query: Float32Array, count: number): number[] {
    const bytes = this.dimension / 8;
    const n = this.rowids.length;
    if (n <= count) return Array.from(this.rowids);
    // table[j][v]: contribution of byte j holding bit pattern v (bit set → +q, clear → −q).
    const table = new Float32Array(bytes * 256);
    for (let j = 0; j < bytes; j++) {
      for (let v = 0; v < 256; v++) {
        let sum = 0;
        for (let b = 0; b < 8; b++) sum += (v >> b) & 1 ? query[j * 8 + b] : -query[j * 8 + b];
        table[(j << 8) | v] = sum;
      }
    }
    const scores = new Float32Array(n);
    const codes = this.codes;
    for (let r = 0; r < n; r++) {
      let sum = 0;
      const offset = r * bytes;
      for (let j = 0; j < bytes; j++) sum += table[(j << 8) | codes[offset + j]];
      scores[r] = sum;
    }
    const cut = scores.slice().sort()[n - count];
    const out: number[] = [];
    for (let r = 0; r < n && out.length < count; r++) if (scores[r] > cut) out.push(this.rowids[r]);
    for (let r = 0; r < n && out.length < count; r++) if (scores[r] === cut) out.push(this.rowids[r]);
    return out;
  }
}

const caches = new WeakMap<object, Map<string, BinaryCodeIndex>>();

/** The index of a base at its current version: reloaded only after the stored vectors changed. */
export function binaryCodeIndex(ctx: AppContext, table: string, knowledgeBaseId: string, dimension: number, version: number): BinaryCodeIndex {
  let cache = caches.get(ctx.sqlite);
  if (!cache) caches.set(ctx.sqlite, (cache = new Map()));
  const key = `${table}:${knowledgeBaseId}`;
  let index = cache.get(key);
  if (!index || index.version !== version) {
    index = BinaryCodeIndex.load(ctx, table, knowledgeBaseId, dimension, version);
    cache.set(key, index);
  }
  return index;
}
