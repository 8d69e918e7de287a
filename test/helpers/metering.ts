// A paying tenant for the metering tests (SQLite's and PostgreSQL's): an operator, a tenant with a
// credit, a key, and an agent on a number of the simulated carrier.
import { createKey, registerOperator, registerUser } from "./fixtures.ts";
import type { TestServer } from "./server.ts";

export const USD = 1_000_000;
const lines = (rate: number) => ({ inbound: rate, outbound: rate });

/** Prices with the simulated line at `line` per minute and built-in speech at `speech`; everything else free. */
export function prices(line: number, speech = 0) {
  return {
    per_minute: { telephony: { simulated: lines(line), sip: lines(0), twilio: lines(0), telnyx: lines(0) }, browser_voice: 0, speech: { builtin: speech, provider: 0 }, llm: { builtin: 0, provider: 0 } },
    number_monthly: { simulated: 0, sip: 0, twilio: 0, telnyx: 0 },
  };
}

/** A tenant paying for its calls; `operator` when the instance has its operator already. */
export async function tenantWithAgent(server: TestServer, credit: number, operator?: { token: string }) {
  operator ??= await registerOperator(server);
  const tenant = await registerUser(server.api, "payer");
  const key = (await createKey(server.api, tenant.token, "write")).secret;
  if (credit) await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount: credit, note: "prepaid" }, { token: operator.token });
  const agent = (await server.api.post("/v1/agents", { name: "Metered", first_message: "Hello, how can I help?" }, { token: key })).body;
  const number = (await server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).body;
  await server.api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key });
  return { operator, tenant, key, agent };
}
