// What one statement costs through PostgreSQL mode's synchronous bridge (db/postgres/sync-client.ts),
// beside the same statement on Bun's async driver directly and on SQLite: the price of keeping the
// code synchronous. A real PostgreSQL server on loopback (fsync off), started here.
//   bun scripts/bench/postgres-bridge.ts [--statements 5000]
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/connection.ts";
import { openPostgres } from "../../src/db/postgres/connect.ts";
import { startPostgres } from "../../test/helpers/postgres.ts";
import { percentile } from "./stats.ts";

const count = Number(process.argv[process.argv.indexOf("--statements") + 1]) || 5000;
const server = startPostgres();
server.sql("CREATE DATABASE bench");
const url = server.url("bench");
const dir = mkdtempSync(join(tmpdir(), "parley-bridge-"));

const SETUP = "CREATE TABLE t (id bigint PRIMARY KEY, v text NOT NULL)";
const INSERT = "INSERT INTO t (id, v) VALUES (?, ?)";
const SELECT = "SELECT id, v FROM t WHERE id = ?";

function timeEach(run: (i: number) => void): number[] {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    run(i);
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

async function timeEachAsync(run: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await run(i);
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

const rows: [string, number[], number[]][] = [];

const { sqlite } = openDatabase(join(dir, "bench.db"), dir);
sqlite.exec(SETUP);
const [liteInsert, liteSelect] = [sqlite.prepare(INSERT), sqlite.prepare(SELECT)];
rows.push(["SQLite (WAL, synchronous=NORMAL)", timeEach((i) => liteInsert.run(i, `v${i}`)), timeEach((i) => liteSelect.get(i))]);
sqlite.close();

const { db } = openPostgres(url);
db.exec(SETUP);
const [pgInsert, pgSelect] = [db.prepare(INSERT), db.prepare(SELECT)];
rows.push(["PostgreSQL through the bridge", timeEach((i) => pgInsert.run(i, `v${i}`)), timeEach((i) => pgSelect.get(i))]);
db.close();

const direct = new SQL({ url, max: 1 });
await direct.unsafe("DROP TABLE t; " + SETUP);
rows.push([
  "PostgreSQL, Bun.SQL awaited directly",
  await timeEachAsync((i) => direct.unsafe("INSERT INTO t (id, v) VALUES ($1, $2)", [i, `v${i}`])),
  await timeEachAsync((i) => direct.unsafe("SELECT id, v FROM t WHERE id = $1", [i])),
]);
await direct.close();

const fmt = (us: number[]) => `p50 ${percentile(us, 50).toFixed(0).padStart(4)} µs  p99 ${percentile(us, 99).toFixed(0).padStart(5)} µs`;
console.log(`${count} statements each, one at a time`);
for (const [name, insert, select] of rows) console.log(`${name.padEnd(36)} insert ${fmt(insert)}   select ${fmt(select)}`);
const [bridge, plain] = [rows[1], rows[2]];
console.log(`bridge / direct (p50): insert ${(percentile(bridge[1], 50) / percentile(plain[1], 50)).toFixed(2)}×, select ${(percentile(bridge[2], 50) / percentile(plain[2], 50)).toFixed(2)}×`);
rmSync(dir, { recursive: true, force: true });
server.stop();
process.exit(0);
