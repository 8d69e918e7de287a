// A campaign contact whose call ended node_lost (issue 36): the call rang, so it may have reached the
// person, and a call that may have been placed is never placed again: the contact is final (`failed`),
// even under a retry policy that retries failed calls. Another failed call is still retried.
import { expect, test } from "bun:test";
import { endCallsOfLostNode } from "../../src/modules/calls/node-loss.ts";
import { callingAgent, campaignWithContacts } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startTestServer } from "../helpers/server.ts";

test("a contact whose call ended node_lost is not dialled again, whatever the retry policy", async () => {
  const server = await startTestServer();
  try {
    const { ctx, api } = server;
    const owner = await registerUser(api, "campaign-loss");
    const key = (await createKey(api, owner.token, "admin")).secret;
    const agent = await callingAgent(api, key);
    const id = await campaignWithContacts(
      api,
      server.url,
      key,
      { agent_id: agent.agentId, concurrency: 2, simulation: { behaviour: "silent" }, retry: { on: ["failed"], max_attempts: 3, delay_minutes: 1 } },
      "phone\n+12125550181\n",
    );
    expect((await api.post(`/v1/campaigns/${id}/start`, undefined, { token: key })).status).toBe(200);
    const contact = () => ctx.sqlite.prepare("SELECT status, attempts, last_end_reason FROM campaign_contacts WHERE campaign_id = ?").get(id) as { status: string; attempts: number; last_end_reason: string | null };
    const live = () => ctx.sqlite.prepare("SELECT count(*) AS n FROM calls WHERE campaign_id = ? AND status = 'in_progress'").get(id) as { n: number };
    for (let i = 0; i < 100 && live().n === 0; i++) await Bun.sleep(100);
    expect(contact()).toMatchObject({ status: "dialing", attempts: 1 });
    // This node's calls as a survivor ends them when it finds this node lost.
    expect(endCallsOfLostNode(ctx, ctx.nodeId)).toBe(1);
    expect(contact()).toEqual({ status: "failed", attempts: 1, last_end_reason: "node_lost" });
    server.clock.advance(5 * 60_000); // past the retry delay: nothing is due again
    await Bun.sleep(1_500);
    expect(contact()).toMatchObject({ status: "failed", attempts: 1 });
    expect((ctx.sqlite.prepare("SELECT count(*) AS n FROM calls WHERE campaign_id = ?").get(id) as { n: number }).n).toBe(1);
  } finally {
    await server.stop();
  }
}, 30_000);
