import { t } from "elysia";
import { Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { AgentUpdate, agentFields, TurnTakingSettings, type AgentConfig, type TurnTakingFilled } from "../../voice/agent-config.ts";
import { filledTurnTaking } from "../../voice/turns/settings.ts";
import type { AgentListRow, AgentRow, AgentVersionRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export const Agent = t.Composite([
  t.Object({
    id: t.String({ description: "`agent_…`" }),
    object: t.Literal("agent"),
    version: t.Integer({ description: "Increases with every change; see /versions" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  t.Object({ ...agentFields, turn_taking: TurnTakingSettings }),
]);

export const AgentWithSecret = t.Composite([Agent, t.Object({ webhook_secret: t.String({ description: "Signs the lifecycle events sent to webhook_url; shown this once" }) })]);

export const AgentVersion = t.Object({
  object: t.Literal("agent_version"),
  agent_id: t.String(),
  version: t.Integer(),
  note: t.Union([t.String(), t.Null()]),
  created_by: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  draft: t.Boolean({ description: "Saved with POST /versions and not published since: calls never ran it (agent tests may)" }),
  live: t.Boolean({ description: "The version calls run now" }),
  config: t.Record(t.String(), t.Unknown(), { description: "The full configuration of that version" }),
});

export const DraftVersionCreate = t.Composite([AgentUpdate, t.Object({ note: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "Why this version (shown in the history)" })) })], { additionalProperties: false });

export const PublishRequest = t.Optional(
  t.Object(
    { require_passing_tests: t.Optional(t.Boolean({ description: "Refuse (409 tests_failing) unless the latest completed test run against this version passed" })) },
    { additionalProperties: false },
  ),
);

/** A stored version as the versions list and POST /versions show it. */
export function versionJson(v: AgentVersionRow, liveVersion: number) {
  return { object: "agent_version" as const, agent_id: v.agentId, version: v.version, note: v.note, created_by: v.createdBy, created_at: toIso(v.createdAt), draft: v.draft, live: v.version === liveVersion, config: configOf(v) };
}

export const VersionParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), version: t.Integer({ minimum: 1 }) });

export const ChatRequest = t.Object(
  {
    message: t.Optional(t.String({ minLength: 1, maxLength: 4000, description: "What the user says; omit to just open a session and hear the greeting" })),
    digits: t.Optional(t.String({ pattern: "^[0-9*#]{1,32}$", description: "Keys pressed instead of speaking (DTMF)" })),
    session_id: t.Optional(t.String({ description: "Continue this conversation" })),
    variables: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Values for {{variables}} (used when a session starts)" })),
  },
  { additionalProperties: false },
);

export const ChatResponse = t.Object({
  session_id: t.String(),
  reply: t.String({ description: "Everything the agent said this turn, joined" }),
  messages: t.Array(t.Object({ role: t.Literal("agent"), text: t.String() })),
  ended: t.Boolean(),
  action: t.Union([t.Object({ type: t.Union([t.Literal("end"), t.Literal("transfer")]), number: t.Optional(t.String()) }), t.Null()]),
  tool_calls: t.Array(t.Object({ name: t.String(), arguments: t.Record(t.String(), t.Unknown()), ok: t.Boolean(), result: t.Unknown() })),
  error: t.Union([t.String(), t.Null()], { description: "A provider failure the agent covered with its fallback line" }),
});

export const TestFunctionRequest = t.Object(
  { tool_id: t.String({ description: "One of the agent's tools (`tool_…`)" }), arguments: t.Optional(t.Record(t.String(), t.Unknown())) },
  { additionalProperties: false },
);

export const ToolInvocation = t.Object({
  call_id: t.String(),
  request: t.Object({ url: t.String(), method: t.Literal("POST"), headers: t.Record(t.String(), t.String()), body: t.Unknown() }),
  response: t.Union([t.Object({ status: t.Integer(), body: t.Unknown() }), t.Null()]),
  result: t.Unknown({ description: "What the agent's brain receives" }),
  error: t.Union([t.String(), t.Null()]),
  latency_ms: t.Integer(),
});

export const WebhookSecret = t.Object({ webhook_secret: t.String({ description: "Shown once; the previous secret keeps signing for 24 h" }) });

export type { AgentRow };

/** A configuration as read: turn_taking with every setting in effect, those an older agent lacks included. */
export type AgentSettings = AgentConfig & { turn_taking: TurnTakingFilled };

/** An agent's (or one of its versions') configuration as requests see it; the name lives in its own column. */
export function configOf(row: Pick<AgentRow, "config" | "name">): AgentSettings {
  const config = row.config as Omit<AgentConfig, "name">;
  return { ...config, turn_taking: filledTurnTaking(config.turn_taking), name: row.name };
}

export function agentJson(row: AgentRow) {
  return { id: row.id, object: "agent" as const, version: row.version, created_at: toIso(row.createdAt), updated_at: toIso(row.updatedAt), ...configOf(row) };
}

/**
 * agentJson as JSON text, with the stored configuration text written in as it is: a list of 20 agents
 * spent a third of its time parsing configurations and serialising them again. Same keys, same order
 * (the configuration never holds `name` or the keys before it; the test servers compare both forms).
 * A configuration stored before its turn_taking was stored filled goes the object way, which fills it.
 */
export function agentJsonText(row: AgentListRow): string {
  if (!row.turnTakingFilled) return JSON.stringify(listedAgentJson(row));
  const head = `{"id":${JSON.stringify(row.id)},"object":"agent","version":${row.version},"created_at":"${toIso(row.createdAt)}","updated_at":"${toIso(row.updatedAt)}"`;
  const fields = row.configText.trim().slice(1, -1).trim(); // the stored text is an object
  return `${head}${fields ? `,${fields}` : ""},"name":${JSON.stringify(row.name)}}`;
}

/** The object form of a listed agent (the test servers check it against agentJsonText). */
export function listedAgentJson(row: AgentListRow) {
  const { configText, turnTakingFilled: _filled, ...rest } = row;
  return agentJson({ ...rest, config: JSON.parse(configText) });
}

nameSchemas({ Agent, AgentWithSecret, AgentVersion, AgentDraftVersionRequest: DraftVersionCreate, AgentPublishRequest: PublishRequest, AgentChatRequest: ChatRequest, AgentChatResponse: ChatResponse, TestFunctionRequest, ToolInvocation, AgentWebhookSecret: WebhookSecret });
