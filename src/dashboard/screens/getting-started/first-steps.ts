// Which of a newcomer's first steps are done, read from what the workspace holds (never from what this
// browser remembers): an agent, a browser call, an outbound call, an API key, a webhook.
import type { Agent } from "../../../sdk/ts/src/index.ts";
import { APIError } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";

/** `unknown`: this member may not read it (API keys are for admins). */
export type StepState = "done" | "todo" | "unknown";

export interface FirstSteps {
  /** The newest agent, which the browser-call step links to. */
  agent: Agent | null;
  agentCreated: StepState;
  talkedInBrowser: StepState;
  placedCall: StepState;
  keyCreated: StepState;
  webhookAdded: StepState;
}

/** done when `found` answers true; unknown when the role may not look. */
async function state(found: () => Promise<boolean>): Promise<StepState> {
  try {
    return (await found()) ? "done" : "todo";
  } catch (error) {
    if (error instanceof APIError && error.status === 403) return "unknown";
    throw error;
  }
}

export async function firstSteps(): Promise<FirstSteps> {
  const client = session.client;
  const agents = (await client.agents.list({ limit: 100 })).data;
  const [talkedInBrowser, placedCall, keyCreated, endpointAdded] = await Promise.all([
    state(async () => (await client.calls.list({ direction: "web", limit: 1 })).data.length > 0),
    state(async () => (await client.calls.list({ direction: "outbound", limit: 1 })).data.length > 0),
    state(async () => (await client.apiKeys.list({ limit: 1 })).data.length > 0),
    state(async () => (await client.webhooks.list({ limit: 1 })).data.length > 0),
  ]);
  return {
    agent: agents[0] ?? null,
    agentCreated: agents.length ? "done" : "todo",
    talkedInBrowser,
    placedCall,
    keyCreated,
    // A workspace endpoint, or an agent's own webhook URL: either way its events reach a server.
    webhookAdded: endpointAdded === "done" || agents.some((agent) => agent.webhook_url) ? "done" : endpointAdded,
  };
}

export const stepsDone = (steps: FirstSteps): number => [steps.agentCreated, steps.talkedInBrowser, steps.placedCall, steps.keyCreated, steps.webhookAdded].filter((step) => step === "done").length;
