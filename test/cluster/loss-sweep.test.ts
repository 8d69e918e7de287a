// The loss sweep's claim, in one process (both databases): a node silent past the bound is taken over once,
// by the node whose claim changed its row; a node that beat within the bound, or stopped cleanly, is not;
// and a node whose own beats have not all landed for the bound (the database was away from it too) claims
// nobody yet. Its takeover rolls back with a failure, leaving the node claimable.
import { afterEach, expect, test } from "bun:test";
import { takeOverLostNodes } from "../../src/cluster/loss.ts";
import { NODE_LOST_AFTER_MS } from "../../src/cluster/nodes.ts";
import { createTestContext } from "../helpers/server.ts";

let env: ReturnType<typeof createTestContext> | undefined;
afterEach(() => {
  env?.close();
  env = undefined;
});

test("silent past the bound: claimed once; beating, stopped, or seen by a node not steady for the bound: not", () => {
  env = createTestContext();
  const { ctx } = env;
  const now = ctx.clock.now();
  const node = (id: string, heartbeatAt: number, stoppedAt: number | null = null) =>
    ctx.sqlite.prepare("INSERT INTO nodes (id, name, url, version, started_at, heartbeat_at, stopped_at) VALUES (?, ?, NULL, '0', ?, ?, ?)").run(id, id, now - 60_000, heartbeatAt, stoppedAt);
  node("node_silent", now - NODE_LOST_AFTER_MS - 1);
  node("node_beating", now - 2_000);
  node("node_stopped", now - 60_000, now - 59_000);
  const taken: string[] = [];
  const takeOver = (id: string) => (taken.push(id), { calls_ended: 0 });

  // Just back from an outage itself: every node's heartbeat looks stale to it.
  expect(takeOverLostNodes(ctx, takeOver, now)).toEqual([]);
  expect(takeOverLostNodes(ctx, takeOver, Infinity)).toEqual([]);
  const steady = now - NODE_LOST_AFTER_MS;
  // A takeover that fails rolls its claim back: the node stays claimable.
  expect(takeOverLostNodes(ctx, () => { throw new Error("the takeover failed halfway"); }, steady)).toEqual([]);
  expect(ctx.sqlite.prepare("SELECT lost_at FROM nodes WHERE id = 'node_silent'").get()).toEqual({ lost_at: null });
  expect(takeOverLostNodes(ctx, takeOver, steady)).toEqual(["node_silent"]);
  expect(takeOverLostNodes(ctx, takeOver, steady)).toEqual([]);
  expect(taken).toEqual(["node_silent"]);
  expect(ctx.sqlite.prepare("SELECT id, lost_by FROM nodes WHERE lost_at IS NOT NULL").all()).toEqual([{ id: "node_silent", lost_by: ctx.nodeId }]);
});
