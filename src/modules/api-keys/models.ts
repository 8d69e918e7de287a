import { t } from "elysia";
import { NullableTimestamp, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import type { ApiKeyRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export const KeyScope = t.Union([t.Literal("read-only"), t.Literal("write"), t.Literal("admin")], {
  description: "read-only: GET only; write: everything except billing, members, API keys and white-label; admin: everything",
});

export const ApiKey = t.Object({
  id: t.String({ description: "`key_…`" }),
  object: t.Literal("api_key"),
  name: t.String(),
  scope: KeyScope,
  mode: t.Union([t.Literal("live"), t.Literal("test")], { description: "test keys only reach the simulated carrier and never spend money" }),
  prefix: t.String({ description: "e.g. `sk_parley_live_`" }),
  last_four: t.String(),
  redacted_key: t.String({ description: "prefix…last four: how the key is shown after creation" }),
  created_by: t.Union([t.String(), t.Null()], { description: "user who created it (null for the CLI)" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_used_at: NullableTimestamp,
});

export const ApiKeyWithSecret = t.Composite([ApiKey, t.Object({ key: t.String({ description: "The full secret. Shown this once; store it now." }) })]);

export const ApiKeyCreate = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    scope: KeyScope,
    mode: t.Optional(t.Union([t.Literal("live"), t.Literal("test")], { default: "live" })),
  },
  { additionalProperties: false },
);

export const ApiKeyUpdate = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export type { ApiKeyRow };

export function apiKeyJson(row: ApiKeyRow) {
  return {
    id: row.id,
    object: "api_key" as const,
    name: row.name,
    scope: row.scope,
    mode: row.mode,
    prefix: row.prefix,
    last_four: row.lastFour,
    redacted_key: `${row.prefix}…${row.lastFour}`,
    created_by: row.createdBy,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    last_used_at: toIso(row.lastUsedAt),
  };
}

nameSchemas({ KeyScope, ApiKey, ApiKeyWithSecret, ApiKeyCreate, ApiKeyUpdate });
