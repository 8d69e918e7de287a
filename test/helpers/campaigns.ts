// Setting up campaigns in tests: an agent that can call, its number, a campaign with contacts.
import { expect } from "bun:test";
import type { ApiClient } from "./client.ts";

/** An agent with a simulated number assigned (the campaign's default caller id). */
export async function callingAgent(api: ApiClient, token: string, areaCode = "415", config: Record<string, unknown> = {}) {
  const agent = await api.post("/v1/agents", { name: "Campaign agent", first_message: "Hello {{first_name}}.", ...config }, { token });
  expect(agent.status).toBe(201);
  const number = await api.post("/v1/phone-numbers/buy", { area_code: areaCode }, { token });
  expect(number.status).toBe(201);
  expect((await api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, { token })).status).toBe(200);
  return { agentId: agent.body.id as string, numberId: number.body.id as string, number: number.body.number as string };
}

/** Uploads CSV text as a raw text/csv body. */
export async function uploadCsv(baseUrl: string, token: string, campaignId: string, csv: string, mode?: "append" | "replace") {
  const res = await fetch(`${baseUrl}/v1/campaigns/${campaignId}/upload${mode ? `?mode=${mode}` : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
    body: csv,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Creates a campaign and uploads its contacts; returns its id. */
export async function campaignWithContacts(api: ApiClient, baseUrl: string, token: string, settings: Record<string, unknown>, csv: string): Promise<string> {
  const created = await api.post("/v1/campaigns", { name: "Test campaign", ...settings }, { token });
  expect(created.status).toBe(201);
  const upload = await uploadCsv(baseUrl, token, created.body.id, csv);
  expect(upload.status).toBe(201);
  expect(upload.body.rejected).toBe(0);
  return created.body.id;
}
