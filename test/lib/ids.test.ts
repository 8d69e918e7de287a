import { describe, expect, test } from "bun:test";
import { hasPrefix, newId, newTimeOrderedId } from "../../src/lib/ids.ts";
import { randomBase62 } from "../../src/lib/random.ts";

const BASE62 = /^[0-9A-Za-z]+$/;

describe("ids", () => {
  test("newId: the prefix, an underscore and 20 base62 characters", () => {
    const id = newId("req");
    expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(hasPrefix(id, "req")).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => newId("key"))).size).toBe(1000);
  });

  test("randomBase62: the length asked for, after the prefix, every character in use", () => {
    expect(randomBase62(8)).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(randomBase62(12, "tmp.")).toMatch(/^tmp\.[0-9A-Za-z]{12}$/);
    const seen = new Set(Array.from({ length: 200 }, () => randomBase62(32)).join(""));
    expect(seen.size).toBe(62);
  });

  test("newTimeOrderedId: 8 base62 digits of the epoch ms, most significant first, then 12 random", () => {
    expect(newTimeOrderedId("aud", 0).slice(0, 12)).toBe("aud_00000000");
    expect(newTimeOrderedId("aud", 61).slice(0, 12)).toBe("aud_0000000z");
    expect(newTimeOrderedId("aud", 62).slice(0, 12)).toBe("aud_00000010");
    expect(newTimeOrderedId("aud", 62 ** 2 * 5 + 62 * 3 + 7).slice(0, 12)).toBe("aud_00000537");
    expect(newTimeOrderedId("evt", 62 ** 8 - 1).slice(0, 12)).toBe("evt_zzzzzzzz");
    expect(newTimeOrderedId("evt", -5).slice(0, 12)).toBe("evt_00000000");
    expect(newTimeOrderedId("job", Date.now())).toMatch(/^job_[0-9A-Za-z]{20}$/);
  });

  test("newTimeOrderedId: ids sort as their times do, across digit carries", () => {
    const times = [0, 61, 62, 63, 3843, 3844, 1_700_000_000_000, 1_700_000_000_001, 1_764_000_000_000, 62 ** 7, 62 ** 8 - 1];
    const ids = times.map((time) => newTimeOrderedId("aud", time));
    // Code-unit order, as SQLite compares text and as the list endpoints page.
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    for (const id of ids) expect(id.slice(4)).toMatch(BASE62);
  });
});
