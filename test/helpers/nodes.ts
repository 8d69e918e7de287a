// Several Parley processes on one PostgreSQL database, as a cluster runs them: each with a data dir of
// its own (its serve lock, its files) and the same instance key (tokens and sealed secrets read alike).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUser } from "../../src/modules/auth/service.ts";
import { hashPassword } from "../../src/modules/auth/passwords.ts";
import { ApiClient } from "./client.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "./process.ts";
import { createTestContext } from "./server.ts";

export interface Nodes {
  nodes: (ServerProcess & { api: ApiClient })[];
  /** The operator's e-mail and password (made before the nodes started). */
  operator: { email: string; password: string };
  /** Each node's data dir (its instance.key is the cluster's). */
  dataDirs: string[];
  stop(): Promise<void>;
}

/**
 * `args` go to every node; a function gives each node its own (by index), e.g. its --node-name.
 * `options.env` overrides the environment of every node (the rate limits are set out of reach unless it sets them).
 */
export async function startNodes(databaseUrl: string, count: number, args: string[] | ((index: number) => string[]) = [], options: { env?: Record<string, string> } = {}): Promise<Nodes> {
  // The schema and an operator first, from this process; then the nodes.
  const operator = { email: `operator-${Date.now()}@example.test`, password: "operator password long" };
  const setup = createTestContext({ databaseUrl });
  try {
    createUser(setup.ctx, { email: operator.email, passwordHash: await hashPassword(operator.password), name: "operator", operator: true });
  } finally {
    setup.close();
  }
  const dirs = Array.from({ length: count }, () => mkdtempSync(join(tmpdir(), "parley-node-")));
  const argsOf = (dir: string) => (typeof args === "function" ? args(dirs.indexOf(dir)) : args);
  const start = (dir: string) => spawnServer(FROM_SOURCE, ["--data-dir", dir, "--database-url", databaseUrl, ...argsOf(dir)], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "1000000", PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000", ...options.env } });
  const nodes: Nodes["nodes"] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const first = await start(dirs[0]);
    nodes.push({ ...first, api: new ApiClient(first.url) });
    for (const dir of dirs.slice(1)) copyFileSync(join(dirs[0], "instance.key"), join(dir, "instance.key"));
    for (const node of await Promise.all(dirs.slice(1).map(start))) nodes.push({ ...node, api: new ApiClient(node.url) });
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, operator, dataDirs: dirs, stop };
}
