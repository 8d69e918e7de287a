/** What each tag of the OpenAPI document covers (the document lists them with these descriptions). */
export const TAGS = {
  Health: "Liveness and the state of the instance's engines; public.",
  Auth: "Sign-up, sign-in, access and refresh tokens, passwords and sessions of a person.",
  Workspaces: "The workspaces a person belongs to, and the current one's settings.",
  Members: "The people of the current workspace, their roles and invitations.",
  "API keys": "Keys for servers: scoped `read-only`, `write` or `admin`; the secret is shown once.",
  "Audit log": "Who did what with which credential, for every request that changed something or used a key.",
  Agents: "Voice agents: prompt, brain (LLM or flow), voice, recogniser, turn-taking, tools, knowledge and extraction; versions, a text playground and lifecycle webhooks.",
  "Agent tests": "An agent's test suites: scripted or model-played callers with expected outcomes, run as real simulated calls (free, kept apart from real calls), with results, diffs and suite files.",
  Tools: "HTTP functions agents may call during a conversation.",
  "Knowledge bases": "Documents agents search while they talk: sources by upload, URL or text, indexed into vectors; search by meaning or keywords.",
  Providers: "Connections to speech and language model services (OpenAI-compatible, Deepgram, ElevenLabs, …).",
  "Phone numbers": "Numbers on a carrier connection, and the agent that answers each.",
  Telephony: "Carrier connections (simulated, SIP trunks, Twilio, Telnyx) and the callbacks carriers make.",
  Calls: "Outbound and inbound calls: state, live control, transcript, recording and timeline.",
  Voices: "The voices agents can speak with, and a preview of each.",
  Campaigns: "Outbound dialing over a contact list, within calling windows, with retries, stats and results.",
  Schedules: "Single calls placed at a set time.",
  Realtime: "Browser voice: a short-lived session token and the WebSocket that carries the call.",
  Widgets: "Chat and voice bubbles for web sites: configuration, embed script and their public routes.",
  "Front door": "The public site's forms and beacons (contact, newsletter with double opt-in, client events, the demo call), and the operator's lists and CSV exports of what they received.",
  Webhooks: "Workspace endpoints for outcome events, deliveries, dead letters with replay, and the events log.",
  Wallet: "The workspace's balance in micro-units of the instance currency, its append-only ledger and what it was spent on.",
  Payments: "Top-ups of the wallet by card (Stripe Checkout) or offline (settled by the operator), automatic recharges, and the provider's signed callback.",
  Pricing: "The operator's per-minute rates and number fees, with the dates they apply from.",
  Analytics: "How calls went over time: volume, talk time, outcomes and response latency, per agent.",
  Operator: "The instance operator's console: tenant workspaces and their wallets.",
  "White-label": "A reseller's brand (name, logo, colours, support e-mail, custom CSS) and the custom domains it answers on, verified by DNS; public branding per domain.",
  "Webhook events": "What Parley sends to webhook receivers: the call lifecycle to an agent's `webhook_url`, outcomes to subscribed endpoints.",
} as const;

export type Tag = keyof typeof TAGS;

/** OpenAPI `detail` for a route: operationId doubles as the audit log's action name. */
export function docsFor(tag: Tag) {
  return (operationId: string, summary: string, description?: string) => ({
    operationId,
    summary,
    tags: [tag],
    ...(description ? { description } : {}),
  });
}
