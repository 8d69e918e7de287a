import { t } from "elysia";
import { OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { type ProviderRow } from "../../providers/store.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export const PROVIDER_KINDS = ["openai-compatible", "deepgram", "elevenlabs"] as const;

const Settings = t.Record(t.String(), t.Unknown(), { description: "Defaults for this connection, e.g. `{ \"chat_model\": \"llama3.1\" }`" });

export const Provider = t.Object({
  id: t.String({ description: "`prv_…`, or `builtin` for the offline engines inside Parley" }),
  object: t.Literal("provider"),
  name: t.String(),
  kind: OneOf(["builtin", ...PROVIDER_KINDS]),
  base_url: t.Union([t.String(), t.Null()]),
  api_key: t.Union([t.String(), t.Null()], { description: "Masked: only the last four characters" }),
  settings: Settings,
  capabilities: t.Array(OneOf(["llm", "stt", "tts", "embeddings"])),
  created_at: t.Union([Timestamp, t.Null()]),
  updated_at: t.Union([Timestamp, t.Null()]),
});

export const ProviderCreate = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    kind: OneOf(PROVIDER_KINDS, { description: "openai-compatible covers OpenAI, vLLM, Ollama, llama.cpp, LM Studio, speaches, Kokoro-FastAPI" }),
    base_url: t.Optional(t.String({ maxLength: 2048, description: "Required for openai-compatible (e.g. http://ollama:11434/v1); optional override for the others" })),
    api_key: t.Optional(t.String({ minLength: 1, maxLength: 4096 })),
    settings: t.Optional(Settings),
  },
  { additionalProperties: false },
);

export const ProviderUpdate = t.Partial(
  t.Object({
    name: t.String({ minLength: 1, maxLength: 100 }),
    base_url: t.Union([t.String({ maxLength: 2048 }), t.Null()]),
    api_key: t.Union([t.String({ minLength: 1, maxLength: 4096 }), t.Null()]),
    settings: Settings,
  }),
  { additionalProperties: false },
);

export const CheckResult = t.Object({
  ok: t.Boolean(),
  latency_ms: t.Integer(),
  detail: t.String(),
  error: t.Union([t.String(), t.Null()]),
});

const CAPABILITIES: Record<string, ("llm" | "stt" | "tts" | "embeddings")[]> = {
  "openai-compatible": ["llm", "stt", "tts", "embeddings"],
  deepgram: ["stt"],
  elevenlabs: ["tts"],
  builtin: ["tts", "stt", "embeddings"],
};

export function providerJson(row: ProviderRow, apiKeyLastFour: string | null) {
  return {
    id: row.id,
    object: "provider" as const,
    name: row.name,
    kind: row.kind,
    base_url: row.baseUrl,
    api_key: apiKeyLastFour ? `••••${apiKeyLastFour}` : null,
    settings: row.settings,
    capabilities: CAPABILITIES[row.kind],
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

/** The offline engines inside Parley: always present, never stored, never deleted. */
export function builtinProviderJson() {
  return {
    id: "builtin",
    object: "provider" as const,
    name: "Built-in offline engines",
    kind: "builtin" as const,
    base_url: null,
    api_key: null,
    settings: {},
    capabilities: CAPABILITIES.builtin,
    created_at: null,
    updated_at: null,
  };
}

nameSchemas({ Provider, ProviderCreate, ProviderUpdate, ProviderCheck: CheckResult });
