// 1,000 events fan out while the server is SIGKILLed at random moments: after restarts every event
// still reaches the receiver at least once, each event has its delivery (they commit together or not at
// all), and the database is intact. On SQLite or PostgreSQL, as the run says (PARLEY_TEST_DATABASE).
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "../../src/db/native.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { ON_POSTGRES } from "../helpers/server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const TOTAL = 1000;
const dir = mkdtempSync(join(tmpdir(), "parley-crash-"));
const receiver = startReceiver(async () => {
  await Bun.sleep(Math.random() * 3); // a receiver that takes a moment, so kills land mid-delivery
  return new Response("ok");
});
afterAll(() => {
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

const databaseUrl = ON_POSTGRES ? freshDatabase() : "";

/** Rows of a query on the producers' database (read-only on SQLite). */
async function query<T>(text: string): Promise<T[]> {
  if (ON_POSTGRES) {
    const connection = new SQL(databaseUrl);
    try {
      return (await connection.unsafe(text)) as T[];
    } finally {
      await connection.close();
    }
  }
  const db = new Database(join(dir, "parley.db"), { readonly: true });
  try {
    return db.prepare(text).all() as T[];
  } finally {
    db.close();
  }
}
const count = async (text: string) => Number((await query<{ n: number | bigint }>(text))[0].n);

function spawnProducer() {
  return Bun.spawn([process.execPath, join(import.meta.dir, "..", "helpers", "event-producer.ts"), dir, receiver.url, String(TOTAL), databaseUrl], {
    stdout: "pipe",
    stderr: "pipe",
  });
}

test(
  "every event is delivered at least once across SIGKILLs, and has its delivery; the database is intact",
  async () => {
    let kills = 0;
    for (let round = 0; round < 6; round++) {
      const child = spawnProducer();
      await Bun.sleep(300 + Math.random() * 900);
      child.kill("SIGKILL");
      await child.exited;
      kills++;
    }
    const survivor = spawnProducer();
    // It says so once every event exists (only then is "all delivered" a finished state).
    const output = await readUntil(survivor.stdout, `produced ${TOTAL}`, 60_000);
    const received = () => new Set(receiver.requests.map((r) => JSON.parse(r.body).id as string));
    // A delivery a kill cut off after the receiver had it is sent again once its lease runs out, so
    // "all received" comes before "all recorded as delivered": wait for both.
    const unsettled = () => count("SELECT count(*) AS n FROM webhook_deliveries WHERE state != 'delivered'");
    const deadline = Date.now() + 60_000;
    while ((received().size < TOTAL || (await unsettled()) > 0) && Date.now() < deadline) await Bun.sleep(100);
    survivor.kill("SIGTERM");
    expect(await survivor.exited).toBe(0);

    const produced = (await query<{ id: string }>("SELECT id FROM events")).map((r) => r.id);
    const undelivered = await unsettled();
    const withoutDelivery = await count("SELECT count(*) AS n FROM events e WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)");
    expect(kills).toBe(6);
    expect(output).toContain(`produced ${TOTAL}`);
    expect(produced).toHaveLength(TOTAL);
    const got = received();
    expect(produced.filter((id) => !got.has(id))).toEqual([]);
    expect(undelivered).toBe(0);
    expect(withoutDelivery).toBe(0);
    // SQLite's own check of its file; PostgreSQL's server keeps its files itself.
    if (!ON_POSTGRES) expect((await query<{ integrity_check: string }>("PRAGMA integrity_check"))[0].integrity_check).toBe("ok");
    console.log(`crash test: ${kills} SIGKILLs, ${receiver.requests.length} requests for ${TOTAL} events (${receiver.requests.length - TOTAL} duplicates)`);
  },
  120_000,
);

async function readUntil(stream: ReadableStream<Uint8Array>, marker: string, timeoutMs: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  while (!text.includes(marker) && Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return text;
}
