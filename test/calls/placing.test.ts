// Placing a queued call survives the worker dying before it dials: the `calls.place` job comes back
// after its lease and the call is placed once, not left queued for ever.
import { expect, test } from "bun:test";
import { claimJobs, rescueExpiredLeases } from "../../src/jobs/leases.ts";
import { createOutboundCall, PLACE_JOB } from "../../src/modules/calls/service.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { callingAgent } from "../helpers/campaigns.ts";
import { serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("placing");

test("a placing job whose worker died before dialling runs again and places the call once", async () => {
  const { ctx, clock } = s.server;
  const { agentId } = await callingAgent(s.server.api, s.user.token);
  // Queued, and its job claimed at once by a worker that then dies (before the server's own runner gets a look).
  const call = createOutboundCall(ctx, ctx.carriers, s.user.workspaceId, { agent_id: agentId, to: "+14155550104", simulation: { behaviour: "hang_up", hang_up_after_ms: 300, ring_ms: 50 } });
  const [claimed] = claimJobs(ctx.db, PLACE_JOB, 1, "crashed-worker", clock.now(), 1000);
  expect(claimed.payload).toEqual({ call_id: call.id });
  clock.advance(1001);
  expect(rescueExpiredLeases(ctx.db, clock.now())).toBe(1);
  const ended = await waitForCall(s.server.api, s.user.token, call.id, (c) => !["queued", "ringing", "in_progress"].includes(c.status), 20_000);
  expect(ended.status).toBe("completed");
  const statuses = (await s.server.api.get(`/v1/calls/${call.id}/events`, { token: s.user.token })).body.data.filter((e: any) => e.type === "status").map((e: any) => e.data.status);
  expect(statuses).toEqual(["queued", "ringing", "in_progress", "completed"]);
});
