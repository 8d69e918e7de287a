// Hostile JSON costs its sender, not everyone: nesting past a fixed depth is refused before it is parsed
// or validated, and no validation answer grows (in size or cost) with the invalid value.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_JSON_DEPTH } from "../../src/http/body-parser.ts";
import { MAX_FIELD_ERRORS } from "../../src/http/validation.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const s = serverWithUser();
const tempDir = tempDirs("parley-flood-");

const arrays = (levels: number, inner = "") => "[".repeat(levels) + inner + "]".repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

async function post(path: string, raw: string, token?: string) {
  const started = performance.now();
  const res = await s.server.api.post(path, undefined, { raw, token });
  return { ...res, ms: performance.now() - started };
}

/** The median of `runs` timings of `request` (one slow turn of a busy CI box is not the server's). */
async function medianMs(runs: number, request: () => Promise<{ ms: number }>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await request()).ms);
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

describe(`JSON nested more than ${MAX_JSON_DEPTH} levels is refused with 400, naming the limit`, () => {
  test.each([
    ["arrays, before any credential", "/v1/auth/login", arrays(MAX_JSON_DEPTH + 1), false],
    ["objects, before any credential", "/v1/auth/login", objects(MAX_JSON_DEPTH + 1), false],
    ["arrays, on an authenticated operation", "/v1/agents", `{"name":"x","variables":${arrays(MAX_JSON_DEPTH)}}`, true],
    ["objects, on an authenticated operation", "/v1/agents", objects(MAX_JSON_DEPTH + 1), true],
  ])("%s", async (_label, path, body, signedIn) => {
    const res = await post(path, body, signedIn ? s.user.token : undefined);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toMatchObject({ code: "nesting_too_deep", max_depth: MAX_JSON_DEPTH });
    expect(res.body.detail).toContain(String(MAX_JSON_DEPTH));
  });

  test(`${MAX_JSON_DEPTH} levels pass to validation; brackets inside strings do not count`, async () => {
    expect((await post("/v1/auth/login", arrays(MAX_JSON_DEPTH))).body.code).toBe("validation_failed");
    expect((await post("/v1/auth/login", objects(MAX_JSON_DEPTH))).body.code).toBe("validation_failed");
    const quoted = await post("/v1/auth/login", JSON.stringify({ email: "a@example.com", password: "[".repeat(MAX_JSON_DEPTH + 36) }));
    expect(quoted.status).toBe(401);
  });

  test("50,000 levels (97 KiB) are refused in under 10 ms, arrays and objects", async () => {
    for (const body of [arrays(50_000), objects(50_000)]) {
      const first = await post("/v1/auth/login", body);
      expect(first.status).toBe(400);
      expect(await medianMs(5, () => post("/v1/auth/login", body))).toBeLessThan(10);
      expect(await medianMs(5, () => post("/v1/agents", body, s.user.token))).toBeLessThan(10);
    }
  });
});

describe("a validation answer is bounded, whatever the size of the invalid value", () => {
  test("a 1 MiB array of wrong types answers 422 within 50 ms, naming at most 20 fields", async () => {
    const events = `[${Array(500_000).fill("1").join(",")}]`;
    const body = `{"url":"https://example.com/hook","events":${events}}`;
    expect(body.length).toBeGreaterThan(999_000);
    const first = await post("/v1/webhooks", body, s.user.token);
    expect(first.status).toBe(422);
    expect(first.body.errors.length).toBe(MAX_FIELD_ERRORS);
    expect(first.body.errors).toContainEqual({ field: "events[0]", message: expect.stringContaining("must be one of") });
    expect(first.text.length).toBeLessThan(8 * 1024);
    expect(await medianMs(3, () => post("/v1/webhooks", body, s.user.token))).toBeLessThan(50);
  });

  test("deep but allowed nesting of wrong types is as cheap (no pretty-printed value)", async () => {
    // 64 levels around 200,000 numbers: Elysia's message would indent each number 64 levels deep.
    const body = `{"url":"https://example.com/hook","events":${arrays(MAX_JSON_DEPTH - 1, Array(200_000).fill("1").join(","))}}`;
    const res = await post("/v1/webhooks", body, s.user.token);
    expect(res.status).toBe(422);
    expect(res.body.errors.length).toBeLessThanOrEqual(MAX_FIELD_ERRORS);
    expect(await medianMs(3, () => post("/v1/webhooks", body, s.user.token))).toBeLessThan(50);
  });

  test("unknown fields with long names are cut, and many of them name at most 20", async () => {
    const fields = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`${i}-${"k".repeat(400)}`, i]));
    const res = await post("/v1/auth/login", JSON.stringify({ email: "a@example.com", password: "long enough", ...fields }));
    expect(res.status).toBe(422);
    expect(res.body.errors.length).toBe(MAX_FIELD_ERRORS);
    for (const error of res.body.errors) expect(error.field.length).toBeLessThanOrEqual(201);
    expect(res.text.length).toBeLessThan(12 * 1024);
  });
});

test("4 clients sending 50,000-level bodies for 5 s: health answers with p99 under 50 ms, and no 5xx", async () => {
  const dir = tempDir();
  const bodies = [
    { file: join(dir, "arrays.json"), path: "/v1/auth/login", token: "" },
    { file: join(dir, "objects.json"), path: "/v1/agents", token: s.user.token },
  ];
  writeFileSync(bodies[0].file, arrays(50_000));
  writeFileSync(bodies[1].file, objects(50_000));
  // The senders run in processes of their own, so that their work is not counted in health's latency.
  const senders = bodies.map(({ file, path, token }) =>
    Bun.spawn([process.execPath, join(import.meta.dir, "..", "helpers", "body-flood.ts"), s.server.url, path, "5", "2", file, token], { stdout: "pipe", stderr: "inherit" }),
  );
  await Bun.sleep(300);
  const latencies: number[] = [];
  const healthStatuses = new Set<number>();
  const until = Date.now() + 4_000;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await fetch(`${s.server.url}/v1/health`);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    healthStatuses.add(res.status);
    await Bun.sleep(5);
  }
  const counts = await Promise.all(senders.map(async (child) => JSON.parse(await new Response(child.stdout).text()) as Record<string, number>));
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.floor(latencies.length * 0.99)];
  expect([...healthStatuses]).toEqual([200]);
  expect(latencies.length).toBeGreaterThan(100);
  expect(p99).toBeLessThan(50);
  for (const count of counts) {
    expect(Object.keys(count)).toEqual(["400"]);
    expect(count["400"]).toBeGreaterThan(100);
  }
}, 20_000);
