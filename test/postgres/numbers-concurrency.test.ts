// The same phone number imported on three Parley processes at once (one PostgreSQL database): each
// checks that nobody has it, then inserts; the unique index on the number decides (the test holds the
// table's inserts back until all three have checked). One import is 201,
// the others 409 number_unavailable naming the field, never a 500, and the number is one row.
import { afterAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const url = freshDatabase();
const db = new SQL(url);
let cluster: Nodes | undefined;
afterAll(async () => {
  await cluster?.stop();
  await db.close();
});

test("one number imported on three nodes at once: one 201, the others 409 naming the number", async () => {
  cluster = await startNodes(url, 3);
  const nodes = cluster.nodes;
  const keys: string[] = [];
  for (const [i, node] of nodes.entries()) {
    const user = await registerUser(node.api, `importer${i}`);
    keys.push((await createKey(node.api, user.token, "admin")).secret);
  }
  const numbers = Array.from({ length: 3 }, (_, i) => `+44207183${String(8700 + i)}`);
  for (const number of numbers) {
    // Inserts into phone_numbers wait while the test holds the table (reads do not): every node has
    // checked that nobody has the number before any of them inserts it.
    const holder = await db.reserve();
    await holder.unsafe("BEGIN");
    await holder.unsafe("LOCK TABLE phone_numbers IN SHARE ROW EXCLUSIVE MODE");
    const pending = Promise.all(nodes.map((node, i) => node.api.post("/v1/phone-numbers/import", { number }, { token: keys[i] })));
    await Bun.sleep(700);
    await holder.unsafe("COMMIT");
    holder.release();
    const answers = await pending;
    expect(answers.filter((res) => res.status !== 201 && res.status !== 409).map((res) => res.body)).toEqual([]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    for (const refused of answers.filter((res) => res.status === 409)) expect(refused.body).toMatchObject({ code: "number_unavailable", errors: [{ field: "number", message: "is already taken" }] });
  }
  const [{ n }] = await db`SELECT count(*)::int AS n FROM phone_numbers WHERE number IN ${db(numbers)}`;
  expect(n).toBe(numbers.length);
}, 60_000);
