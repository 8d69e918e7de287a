import { t, type Static } from "elysia";
import { OneOf } from "../http/models.ts";
import { AGENT_EVENT_TYPES } from "../webhooks/event-types.ts";
import { Flow, defaultFlow } from "./brains/flow/schema.ts";
import { nameSchemas } from "../lib/schema-names.ts";

// The agent's configuration, field by field. Every field is documented here because this schema
// IS the API reference (it generates the OpenAPI document).

const ProviderRef = t.String({ description: "`builtin` (the offline engines inside Parley) or a provider connection id `prv_…`" });

export const LlmBrain = t.Object(
  {
    type: t.Literal("llm"),
    provider_id: t.String({ description: "An `openai-compatible` provider connection (OpenAI, vLLM, Ollama, llama.cpp, LM Studio…)" }),
    model: t.String({ minLength: 1, maxLength: 200 }),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2, default: 0.7 })),
    max_tokens: t.Optional(t.Integer({ minimum: 1, maximum: 32000, default: 400 })),
    fallback_message: t.Optional(t.String({ maxLength: 500, description: "Said when the model fails mid-call" })),
  },
  { additionalProperties: false },
);

export const FlowBrain = t.Object({ type: t.Literal("flow"), flow: Flow }, { additionalProperties: false });

export const Brain = t.Union([LlmBrain, FlowBrain], { description: "llm: a language model with tools; flow: a deterministic flow that needs no model" });

export const Voice = t.Object(
  {
    provider_id: ProviderRef,
    voice_id: t.String({ minLength: 1, maxLength: 200, description: "A voice from GET /v1/voices" }),
    speed: t.Optional(t.Number({ minimum: 0.5, maximum: 2, default: 1 })),
  },
  { additionalProperties: false },
);

export const Transcriber = t.Object(
  {
    provider_id: ProviderRef,
    model: t.Optional(t.String({ maxLength: 200 })),
    language: t.Optional(t.String({ pattern: "^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$" })),
  },
  { additionalProperties: false },
);

// The settings issue 37 added are optional: agents stored before them, and clients that send the older
// shape, keep working; src/voice/turns/settings.ts fills them (GET returns them filled).
const Endpointing = t.Object(
  {
    mode: OneOf(["dynamic", "fixed"], { description: "dynamic: wait between min_delay_ms and max_delay_ms by how finished the caller's words are; fixed: always endpointing_ms. Default dynamic" }),
    min_delay_ms: t.Integer({ minimum: 100, maximum: 5000, description: "The wait after a finished sentence or answer. Default 300 (endpointing_ms when that is lower)" }),
    max_delay_ms: t.Integer({ minimum: 200, maximum: 10000, description: "The wait after a trailing \"and\", \"um\", \"my number is\" or an unfinished number. Default 2000 (endpointing_ms when that is higher)" }),
  },
  { additionalProperties: false, description: "When the caller is done: min_delay_ms <= endpointing_ms <= max_delay_ms" },
);

const interruptionFields = {
  enabled: t.Boolean({ description: "Barge-in: caller speech stops the agent's playback" }),
  min_speech_ms: t.Integer({ minimum: 50, maximum: 2000, description: "Speech over the agent before it pauses to listen. Default 200" }),
  sensitivity: OneOf(["low", "medium", "high"], { description: "How readily speech over the agent counts as a real interruption, not a backchannel or noise (low: only clear ones; high: almost any words). Default medium" }),
  backchannels: OneOf(["ignore", "interrupt"], { description: "ignore: \"mm-hmm\", \"okay\", \"right\" over the agent do not stop it; interrupt: they do, like any speech. Default ignore" }),
};

const turnTakingFields = {
  endpointing_ms: t.Integer({ minimum: 100, maximum: 5000, description: "The wait after the caller's speech when their words give no clue whether they are done (in fixed mode, always). Default 600" }),
  preemptive_generation: t.Boolean({ description: "Start the reply at a pause, before the turn is confirmed ended; it plays only once it is. Default true" }),
  silence: t.Object(
    {
      reminder_after_s: t.Number({ minimum: 1, maximum: 600 }),
      reminder_message: t.String({ minLength: 1, maxLength: 500 }),
      timeout_s: t.Number({ minimum: 1, maximum: 3600, description: "End the call after this much silence" }),
    },
    { additionalProperties: false },
  ),
  max_duration_s: t.Integer({ minimum: 10, maximum: 14400 }),
  end_call_phrases: t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, description: "Caller phrases that end the call" }),
};

/** turn_taking as clients write it: the settings added since the first version may be left out. */
export const TurnTaking = t.Object(
  {
    endpointing_ms: turnTakingFields.endpointing_ms,
    endpointing: t.Optional(t.Partial(Endpointing)),
    preemptive_generation: t.Optional(turnTakingFields.preemptive_generation),
    interruptions: t.Object(
      { enabled: interruptionFields.enabled, min_speech_ms: interruptionFields.min_speech_ms, sensitivity: t.Optional(interruptionFields.sensitivity), backchannels: t.Optional(interruptionFields.backchannels) },
      { additionalProperties: false },
    ),
    silence: turnTakingFields.silence,
    max_duration_s: turnTakingFields.max_duration_s,
    end_call_phrases: turnTakingFields.end_call_phrases,
  },
  { additionalProperties: false },
);

/** turn_taking as the API returns it: every setting filled with the value in effect. */
export const TurnTakingSettings = t.Object(
  {
    endpointing_ms: turnTakingFields.endpointing_ms,
    endpointing: Endpointing,
    preemptive_generation: turnTakingFields.preemptive_generation,
    interruptions: t.Object(interruptionFields, { additionalProperties: false }),
    silence: turnTakingFields.silence,
    max_duration_s: turnTakingFields.max_duration_s,
    end_call_phrases: turnTakingFields.end_call_phrases,
  },
  { additionalProperties: false },
);

export type TurnTakingInput = Static<typeof TurnTaking>;
export type TurnTakingFilled = Static<typeof TurnTakingSettings>;

/** What a new agent gets when the client gives no turn_taking. */
export function defaultTurnTaking(): TurnTakingFilled {
  return {
    endpointing_ms: 600,
    endpointing: { mode: "dynamic", min_delay_ms: 300, max_delay_ms: 2000 },
    preemptive_generation: true,
    interruptions: { enabled: true, min_speech_ms: 200, sensitivity: "medium", backchannels: "ignore" },
    silence: { reminder_after_s: 15, reminder_message: "Are you still there?", timeout_s: 30 },
    max_duration_s: 600,
    end_call_phrases: ["goodbye", "bye bye"],
  };
}

export const Voicemail = t.Object(
  {
    action: OneOf(["hang_up", "leave_message"]),
    message: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 2000 }), t.Null()])),
  },
  { additionalProperties: false, description: "What an outbound call does when a machine answers" },
);

export const BUILTIN_TOOLS = ["end_call", "transfer_call", "knowledge_search", "send_dtmf"] as const;

export const AgentTool = t.Union([
  t.Object({ type: t.Literal("function"), tool_id: t.String({ description: "A tool `tool_…` from /v1/tools" }) }, { additionalProperties: false }),
  t.Object({ type: OneOf(BUILTIN_TOOLS) }, { additionalProperties: false, description: "A built-in tool" }),
]);

export const ExtractionField = t.Object(
  {
    name: t.String({ pattern: "^[a-z][a-z0-9_]{0,63}$" }),
    type: OneOf(["boolean", "string", "number", "enum"]),
    description: t.String({ minLength: 1, maxLength: 500 }),
    options: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 50 })),
  },
  { additionalProperties: false },
);

const Language = t.String({ pattern: "^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$", description: "BCP 47, e.g. en-US" });

/** Everything writable on an agent. Create requires `name`; PATCH takes any subset. */
export const agentFields = {
  name: t.String({ minLength: 1, maxLength: 100 }),
  language: Language,
  system_prompt: t.String({ maxLength: 20000, description: "Instructions for an llm brain; {{variables}} are filled from the call or contact" }),
  first_message: t.Union([t.String({ minLength: 1, maxLength: 2000 }), t.Null()], { description: "The greeting; {{variables}} allowed" }),
  first_message_mode: OneOf(["agent_first", "caller_first"], { description: "agent_first: the agent greets; caller_first: it waits for the caller" }),
  brain: Brain,
  voice: Voice,
  transcriber: Transcriber,
  turn_taking: TurnTaking,
  voicemail: Voicemail,
  tools: t.Array(AgentTool, { maxItems: 64 }),
  transfer_number: t.Union([t.String({ pattern: "^(\\+[1-9]\\d{6,14}|sips?:.+)$", description: "E.164 or SIP URI" }), t.Null()]),
  knowledge_base_ids: t.Array(t.String(), { maxItems: 20, uniqueItems: true }),
  extraction: t.Array(ExtractionField, { maxItems: 50, description: "Fields filled after the call into `extracted` of call.completed" }),
  webhook_url: t.Union([t.String({ maxLength: 2048 }), t.Null()], { description: "Receives the call lifecycle events (https; see webhooks)" }),
  webhook_events: t.Array(OneOf(AGENT_EVENT_TYPES), { maxItems: AGENT_EVENT_TYPES.length, uniqueItems: true, description: "Which lifecycle events to send (default: all)" }),
  metadata: t.Record(t.String(), t.Unknown(), { description: "Your own data, returned as given" }),
};

const { name: nameField, ...optionalFields } = agentFields;

export const AgentCreate = t.Composite([t.Object({ name: nameField }), t.Partial(t.Object(optionalFields))], { additionalProperties: false });

export const AgentUpdate = t.Partial(t.Object(agentFields), { additionalProperties: false });

export type AgentConfig = { [K in keyof typeof agentFields]: Static<(typeof agentFields)[K]> };
export type AgentInput = Partial<AgentConfig>;

/** A complete configuration from whatever the client gave: an agent with just a name and a greeting works. */
export function withDefaults(input: AgentInput & { name: string }, workspaceLanguage: string): AgentConfig {
  const language = input.language ?? workspaceLanguage;
  return {
    name: input.name,
    language,
    system_prompt: input.system_prompt ?? "",
    first_message: input.first_message ?? null,
    first_message_mode: input.first_message_mode ?? "agent_first",
    brain: input.brain ?? { type: "flow", flow: defaultFlow() },
    voice: input.voice ?? { provider_id: "builtin", voice_id: "kal16", speed: 1 },
    transcriber: input.transcriber ?? { provider_id: "builtin", language },
    turn_taking: input.turn_taking ?? defaultTurnTaking(),
    voicemail: input.voicemail ?? { action: "hang_up", message: null },
    tools: input.tools ?? [],
    transfer_number: input.transfer_number ?? null,
    knowledge_base_ids: input.knowledge_base_ids ?? [],
    extraction: input.extraction ?? [],
    webhook_url: input.webhook_url ?? null,
    webhook_events: input.webhook_events ?? [...AGENT_EVENT_TYPES],
    metadata: input.metadata ?? {},
  };
}

nameSchemas({ LlmBrain, FlowBrain, Brain, AgentVoice: Voice, AgentTranscriber: Transcriber, TurnTaking, TurnTakingSettings, Voicemail, AgentTool, ExtractionField, AgentCreate, AgentUpdate });
