import { t, type Static } from "elysia";
import { OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { WIDGET_LIMITS } from "./limits.ts";
import type { WidgetRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const Colour = (description: string) => t.String({ pattern: "^#[0-9a-fA-F]{6}$", description: `#rrggbb: ${description}` });
const Mode = OneOf(["chat", "voice", "both"], { description: "What the visitor gets: a chat box, a voice call button, or both" });

/** What a widget looks like; every field is public (the embed shows it to any visitor). */
const lookFields = {
  title: t.String({ minLength: 1, maxLength: 60, description: "Panel header (default: the widget's name)" }),
  greeting: t.Union([t.String({ maxLength: 500 }), t.Null()], { description: "First bubble, shown before the visitor says anything" }),
  primary_color: Colour("launcher, header and the visitor's bubbles"),
  background_color: Colour("panel background"),
  text_color: Colour("text"),
  position: OneOf(["bottom-right", "bottom-left"], { description: "Corner of the page" }),
  avatar_url: t.Union([t.String({ minLength: 1, maxLength: 2048 }), t.Null()], { description: "https URL of an image shown in the header" }),
};

export const Look = t.Object(lookFields);
export type WidgetLook = Static<typeof Look>;

export const DEFAULT_LOOK: Omit<WidgetLook, "title"> = {
  greeting: null,
  primary_color: "#2563eb",
  background_color: "#ffffff",
  text_color: "#111827",
  position: "bottom-right",
  avatar_url: null,
};

const LookInput = t.Partial(t.Object(lookFields), { additionalProperties: false, description: "Only the fields given change" });

const ORIGINS_DESCRIPTION =
  "Pages that may use the widget: exact origins (`https://shop.example.com`, `http://localhost:3000`: scheme, host and optional port, no path) " +
  "or every subdomain of a domain (`https://*.example.com`, not the bare domain). `*` alone is refused. Stored in lower case.";

const AllowedOrigins = (description = ORIGINS_DESCRIPTION) =>
  t.Array(t.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: WIDGET_LIMITS.allowedOrigins, description });

const widgetFields = {
  agent_id: t.String({ minLength: 1, maxLength: 64, description: "The agent that answers (`agent_…` of this workspace)" }),
  name: t.String({ minLength: 1, maxLength: 100 }),
  allowed_origins: AllowedOrigins(),
  mode: Mode,
};

export const WidgetCreate = t.Object(
  {
    agent_id: widgetFields.agent_id,
    name: widgetFields.name,
    allowed_origins: t.Optional(AllowedOrigins(`${ORIGINS_DESCRIPTION} Default: none (only the preview page works until you add some).`)),
    mode: t.Optional(widgetFields.mode),
    look: t.Optional(LookInput),
  },
  { additionalProperties: false },
);

export const WidgetUpdate = t.Partial(t.Object({ ...widgetFields, look: LookInput }), { additionalProperties: false });

export type WidgetCreateInput = Static<typeof WidgetCreate>;
export type WidgetUpdateInput = Static<typeof WidgetUpdate>;
export type LookInputValue = Static<typeof LookInput>;

export const Widget = t.Object({
  id: t.String({ description: "`wgt_…`" }),
  object: t.Literal("widget"),
  agent_id: t.String(),
  name: t.String(),
  allowed_origins: t.Array(t.String()),
  mode: Mode,
  look: Look,
  embed: t.Object({
    script_url: t.String({ description: "The runtime script" }),
    snippet: t.String({ description: "Paste before </body> of each page" }),
    preview_url: t.String({ description: "A standalone page showing the widget" }),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** What a visitor's page reads to draw the widget: nothing secret (no workspace, no agent id). */
export const WidgetConfig = t.Object({
  id: t.String(),
  object: t.Literal("widget_config"),
  mode: Mode,
  look: Look,
  agent_name: t.Union([t.String(), t.Null()], { description: "Null when the widget's agent no longer exists" }),
});

export const ChatBody = t.Object(
  {
    message: t.String({ description: `What the visitor typed: 1-${WIDGET_LIMITS.messageChars} characters after trimming` }),
    session_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "The `session_id` of an earlier reply, to continue that conversation" })),
  },
  { additionalProperties: false },
);

export const ChatReply = t.Object({
  reply: t.String({ description: "What the agent answers (empty once the conversation has ended)" }),
  session_id: t.String({ description: "Send it with the next message" }),
  ended: t.Boolean({ description: "The agent ended the conversation; a new message needs a new session" }),
});

export const VoiceToken = t.Object({
  token: t.String({ description: "Single use" }),
  expires_in: t.Integer({ description: "Seconds the token waits for its WebSocket" }),
  url: t.String({ description: "The WebSocket URL of the voice session (token included)" }),
});

function base(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, "");
}

export function embedUrls(publicUrl: string, id: string) {
  const root = `${base(publicUrl)}/v1/widgets/${id}`;
  const scriptUrl = `${root}/embed.js`;
  return { script_url: scriptUrl, snippet: `<script src="${scriptUrl}" async></script>`, preview_url: `${root}/preview` };
}

export function widgetJson(row: WidgetRow, publicUrl: string) {
  return {
    id: row.id,
    object: "widget" as const,
    agent_id: row.agentId,
    name: row.name,
    allowed_origins: row.allowedOrigins,
    mode: row.mode,
    look: row.look as WidgetLook,
    embed: embedUrls(publicUrl, row.id),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export function widgetConfigJson(row: WidgetRow, agentName: string | null) {
  return { id: row.id, object: "widget_config" as const, mode: row.mode, look: row.look as WidgetLook, agent_name: agentName };
}

nameSchemas({ WidgetLook: Look, WidgetCreate, WidgetUpdate, Widget, WidgetConfig, WidgetChatRequest: ChatBody, WidgetChatReply: ChatReply, WidgetVoiceToken: VoiceToken });
