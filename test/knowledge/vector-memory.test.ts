import { describe, expect, test } from "bun:test";
import { binaryCode } from "../../src/knowledge/coarse-index.ts";
import { vectorBytes } from "../../src/knowledge/store.ts";
import { cosineDistance, VectorMatrix, VersionedCache } from "../../src/knowledge/vector-memory.ts";
import { createTestContext } from "../helpers/server.ts";
import { seeded, trueNearest, unitVector } from "./evaluation.ts";

describe("vectors in Parley's memory (PostgreSQL mode's vector stage)", () => {
  test("the exact scan of a matrix is brute force's order, with sqlite-vec's cosine distance", () => {
    const random = seeded(3);
    const vectors = Array.from({ length: 400 }, () => unitVector(random, 32).map((x) => x * (1 + random()))); // not unit length: the matrix normalises
    const matrix = VectorMatrix.fromRows(vectors.map((v, i) => [i + 1, vectorBytes(v)]), 32);
    const query = unitVector(random, 32);
    const found = matrix.nearest(query, 10);
    expect(found.map((n) => n.rowid - 1)).toEqual(trueNearest(vectors.map((v) => v.map((x) => x / Math.hypot(...v))), query, 10));
    expect(found[0].distance).toBeCloseTo(cosineDistance(query, vectors[found[0].rowid - 1]), 5);
    expect(found.map((n) => n.distance)).toEqual([...found.map((n) => n.distance)].sort((a, b) => a - b));
  });

  test("1-bit codes are sqlite-vec's vec_quantize_binary", () => {
    const env = createTestContext({ databaseUrl: "" });
    try {
      const random = seeded(9);
      for (const dimension of [8, 64, 384]) {
        const vector = unitVector(random, dimension);
        vector[0] = 0; // zero is not positive
        const quantized = env.ctx.sqlite.prepare("SELECT vec_quantize_binary(?) AS code").get(vectorBytes(vector)) as { code: Uint8Array };
        expect([...binaryCode(vector)]).toEqual([...quantized.code]);
      }
    } finally {
      env.close();
    }
  });

  test("the cache reloads a key at a new version and stays within its budget, least recently used first", () => {
    const cache = new VersionedCache(100);
    const loads: string[] = [];
    const get = (key: string, version: number, bytes: number) => cache.get(key, version, () => (loads.push(`${key}@${version}`), { key, bytes }), (v) => v.bytes);
    get("a", 1, 40);
    get("b", 1, 40);
    get("a", 1, 40); // a hit: a is now the most recent
    get("a", 2, 40); // a new version reloads
    expect(loads).toEqual(["a@1", "b@1", "a@2"]);
    get("c", 1, 40); // 120 > 100: b, the least recently used, goes
    expect(cache.usedBytes).toBe(80);
    get("b", 1, 40);
    expect(loads.at(-1)).toBe("b@1");
    get("huge", 1, 500); // larger than the budget: kept alone, the others go
    expect(cache.usedBytes).toBe(500);
    get("a", 2, 40);
    expect(cache.usedBytes).toBe(40);
  });
});
