// 1,000 events fan out while the server is SIGKILLed at random moments: after restarts every event
// still reaches the receiver at least once, and the database is intact.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "../../src/db/native.ts";
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

function spawnProducer() {
  return Bun.spawn([process.execPath, join(import.meta.dir, "..", "helpers", "event-producer.ts"), dir, receiver.url, String(TOTAL)], {
    stdout: "pipe",
    stderr: "pipe",
  });
}

test(
  "every event is delivered at least once across SIGKILLs; integrity_check passes",
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
    const unsettled = () => {
      const db = new Database(join(dir, "parley.db"), { readonly: true });
      try {
        return (db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE state != 'delivered'").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const deadline = Date.now() + 60_000;
    while ((received().size < TOTAL || unsettled() > 0) && Date.now() < deadline) await Bun.sleep(100);
    survivor.kill("SIGTERM");
    expect(await survivor.exited).toBe(0);

    const db = new Database(join(dir, "parley.db"), { readonly: true });
    const produced = (db.prepare("SELECT id FROM events").all() as { id: string }[]).map((r) => r.id);
    const integrity = db.pragma("integrity_check", { simple: true });
    const undelivered = (db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE state != 'delivered'").get() as { n: number }).n;
    db.close();
    expect(kills).toBe(6);
    expect(output).toContain(`produced ${TOTAL}`);
    expect(produced).toHaveLength(TOTAL);
    const got = received();
    expect(produced.filter((id) => !got.has(id))).toEqual([]);
    expect(undelivered).toBe(0);
    expect(integrity).toBe("ok");
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
