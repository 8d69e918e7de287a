import { expect, test } from "bun:test";
import { Lru } from "../../src/lib/lru.ts";

test("makes a value once, keeps the most recently used, drops the least recently used", () => {
  const made: string[] = [];
  const lru = new Lru<string, string>(2);
  const get = (key: string) => lru.get(key, (k) => (made.push(k), k.toUpperCase()));
  expect(get("a")).toBe("A");
  expect(get("b")).toBe("B");
  expect(get("a")).toBe("A"); // a is now the most recent
  expect(get("c")).toBe("C"); // drops b
  expect(get("a")).toBe("A");
  expect(get("b")).toBe("B"); // made again
  expect(made).toEqual(["a", "b", "c", "b"]);
});
