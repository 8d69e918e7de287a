// The API scenarios the same-run comparisons share (sqlite-ab.ts: this code against an older commit;
// modes.ts: SQLite against PostgreSQL): a seeded workspace on a running server, then wrk at saturation.
import { runWrk, type WrkResult } from "./wrk.ts";

// High enough that the rate limiter answers every request but never refuses one.
export const NO_RATE_LIMITS = { PARLEY_RATE_LIMIT_PER_MINUTE: "100000000", PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: "100000000" };

export interface Seeded {
  apiKey: string;
  /** The agent the write scenario renames. */
  agentId: string;
}

export interface ApiScenario {
  label: string;
  path: (seeded: Seeded) => string;
  method?: "PATCH";
  body?: string;
}

export const API_SCENARIOS: ApiScenario[] = [
  { label: "GET /v1/auth/me (API key)", path: () => "/v1/auth/me" },
  { label: "GET /v1/agents?limit=20", path: () => "/v1/agents?limit=20" },
  // A write: the agent row, a new version, an audit row.
  { label: "PATCH /v1/agents/{id} (a write)", path: (s) => `/v1/agents/${s.agentId}`, method: "PATCH", body: JSON.stringify({ name: "Renamed under load" }) },
];

async function post(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201) throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** A user, an admin key and 20 agents (the list scenario's page). */
export async function seedWorkspace(baseUrl: string): Promise<Seeded> {
  const registered = await post(`${baseUrl}/v1/auth/register`, { email: "bench@example.com", password: "bench-password-1", name: "Bench" });
  const apiKey = (await post(`${baseUrl}/v1/api-keys`, { name: "bench", scope: "admin" }, registered.access_token as string)).key as string;
  let agentId = "";
  for (let i = 0; i < 20; i++) agentId = (await post(`${baseUrl}/v1/agents`, { name: `Agent ${i + 1}` }, apiKey)).id as string;
  return { apiKey, agentId };
}

/** 1 s of warm-up, then `seconds` of wrk as fast as `connections` keep-alive connections go. */
export async function measureScenario(baseUrl: string, seeded: Seeded, scenario: ApiScenario, seconds: number, connections: number): Promise<WrkResult> {
  const run = {
    url: baseUrl + scenario.path(seeded),
    headers: { authorization: `Bearer ${seeded.apiKey}`, ...(scenario.body ? { "content-type": "application/json" } : {}) },
    connections,
    method: scenario.method,
    body: scenario.body,
  };
  await runWrk({ ...run, seconds: 1 });
  const result = await runWrk({ ...run, seconds });
  if (result.errors) throw new Error(`${result.errors} of ${result.requests} requests failed (non-2xx or socket errors)`);
  return result;
}
