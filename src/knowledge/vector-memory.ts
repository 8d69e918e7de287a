// Vectors held in Parley's memory where the database cannot compare them (PostgreSQL without pgvector):
// a base's float matrix for exact scans, and a budgeted cache that keeps each base's structures until
// its index_version moves or the budget needs the room.

import type { Neighbour } from "./search-store.ts";

/** A float32 vector stored as bytes, read in place when aligned. */
export function vectorOf(bytes: Uint8Array, dimension: number): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, dimension);
  return new Float32Array(bytes.slice(0, dimension * 4).buffer);
}

/** As sqlite-vec's vec_distance_cosine: 1 − cos(a, b). */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa === 0 || bb === 0 ? 1 : 1 - dot / Math.sqrt(aa * bb);
}

/** The `count` smallest distances, in order, kept in a small sorted buffer while scanning. */
class NearestList {
  readonly rowids: number[] = [];
  readonly distances: number[] = [];
  constructor(private count: number) {}

  offer(rowid: number, distance: number): void {
    const n = this.distances.length;
    if (n === this.count && distance >= this.distances[n - 1]) return;
    let at = n;
    while (at > 0 && this.distances[at - 1] > distance) at--;
    this.distances.splice(at, 0, distance);
    this.rowids.splice(at, 0, rowid);
    if (this.distances.length > this.count) {
      this.distances.pop();
      this.rowids.pop();
    }
  }

  list(): Neighbour[] {
    return this.rowids.map((rowid, i) => ({ rowid, distance: this.distances[i] }));
  }
}

/** Exact cosine nearest neighbours over [rowid, vector bytes] pairs (the re-scoring of candidates). */
export function nearestOf(rows: [number, Uint8Array][], query: Float32Array, count: number): Neighbour[] {
  const best = new NearestList(count);
  for (const [rowid, bytes] of rows) best.offer(rowid, cosineDistance(query, vectorOf(bytes, query.length)));
  return best.list();
}

/** One base's float vectors, unit length, in one array: an exact scan is a dot product per chunk. */
export class VectorMatrix {
  private constructor(
    private dimension: number,
    private rowids: Float64Array,
    private units: Float32Array,
  ) {}

  static fromRows(rows: [number, Uint8Array][], dimension: number): VectorMatrix {
    const rowids = new Float64Array(rows.length);
    const units = new Float32Array(rows.length * dimension);
    rows.forEach(([rowid, bytes], r) => {
      const vector = vectorOf(bytes, dimension);
      let norm = 0;
      for (let i = 0; i < dimension; i++) norm += vector[i] * vector[i];
      const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
      for (let i = 0; i < dimension; i++) units[r * dimension + i] = vector[i] * scale;
      rowids[r] = rowid;
    });
    return new VectorMatrix(dimension, rowids, units);
  }

  get bytes(): number {
    return this.rowids.byteLength + this.units.byteLength;
  }

  nearest(query: Float32Array, count: number): Neighbour[] {
    const d = this.dimension;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += query[i] * query[i];
    const best = new NearestList(count);
    const units = this.units;
    for (let r = 0; r < this.rowids.length; r++) {
      let dot = 0;
      const offset = r * d;
      for (let i = 0; i < d; i++) dot += query[i] * units[offset + i];
      // A zero vector (stored, so all zeros here, or asked) is as far as can be.
      best.offer(this.rowids[r], norm === 0 ? 1 : 1 - dot / Math.sqrt(norm));
    }
    return best.list();
  }
}

/**
 * Structures per key and version within a byte budget: a lookup at another version reloads; loading
 * past the budget drops the least recently used others (the one just loaded always stays, so memory
 * is bounded by the budget or the single largest structure).
 */
export class VersionedCache {
  private entries = new Map<string, { version: number; bytes: number; value: unknown }>();
  private total = 0;
  constructor(readonly budget: number) {}

  get<T>(key: string, version: number, load: () => T, size: (value: T) => number): T {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      if (hit.version === version) {
        this.entries.set(key, hit); // now the most recently used
        return hit.value as T;
      }
      this.total -= hit.bytes;
    }
    const value = load();
    const bytes = size(value);
    this.entries.set(key, { version, bytes, value });
    this.total += bytes;
    for (const [other, entry] of this.entries) {
      if (this.total <= this.budget || other === key) break;
      this.entries.delete(other);
      this.total -= entry.bytes;
    }
    return value;
  }

  get usedBytes(): number {
    return this.total;
  }
}
