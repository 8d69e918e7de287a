import { t } from "elysia";
import { Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import type { WorkspaceRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export const Workspace = t.Object({
  id: t.String({ description: "`ws_…`" }),
  object: t.Literal("workspace"),
  name: t.String(),
  timezone: t.String({ description: "IANA time zone, e.g. Europe/Berlin" }),
  default_language: t.String({ description: "BCP 47 language tag new agents start with" }),
  default_country: t.Union([t.String(), t.Null()], { description: "ISO 3166-1 alpha-2 country used to read national phone numbers" }),
  is_operator: t.Boolean({ description: "True for the instance operator's own workspace" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WorkspaceWithRole = t.Composite([Workspace, t.Object({ role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("viewer")]) })]);

const settings = {
  timezone: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "IANA time zone" })),
  default_language: t.Optional(t.String({ pattern: "^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$", description: "BCP 47 tag" })),
  default_country: t.Optional(t.Union([t.String({ pattern: "^[A-Z]{2}$" }), t.Null()], { description: "ISO 3166-1 alpha-2" })),
};

export const WorkspaceCreate = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }), ...settings }, { additionalProperties: false });
export const WorkspaceUpdate = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 100 })), ...settings }, { additionalProperties: false });

export type { WorkspaceRow };

export function workspaceJson(row: WorkspaceRow) {
  return {
    id: row.id,
    object: "workspace" as const,
    name: row.name,
    timezone: row.timezone,
    default_language: row.defaultLanguage,
    default_country: row.defaultCountry,
    is_operator: row.isOperator,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

nameSchemas({ Workspace, WorkspaceWithRole, WorkspaceCreate, WorkspaceUpdate });
