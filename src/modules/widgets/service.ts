import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { widgets, widgetSessions } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound, type FieldError } from "../../http/errors.ts";
import { deriveKey, hmacSha256 } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { WIDGET_LIMITS } from "./limits.ts";
import { DEFAULT_LOOK, type LookInputValue, type WidgetCreateInput, type WidgetLook, type WidgetUpdateInput } from "./models.ts";
import { normalizeAllowedOrigin } from "./origins.ts";
import * as repo from "./repo.ts";
import type { WidgetRow } from "./repo.ts";

/** The agent a request names, checked by the agents feature (422 on agent_id when it is not this workspace's). */
export type AgentLookup = (workspaceId: string, agentId: string) => AgentConfig;

/** What the public routes reach across features (injected at composition time). */
export interface WidgetServices {
  agentConfig: AgentLookup;
  /** A website chat: the agent's call greeting (first_message) is not said; the widget shows its own (look.greeting). */
  agentChat: (workspaceId: string, agentId: string, input: { message?: string; session_id?: string; channel: "website_chat" }) => Promise<{ session_id: string; reply: string; ended: boolean }>;
  realtimeToken: (workspaceId: string, request: { agentId: string; widgetId?: string; metadata?: Record<string, unknown> }) => { token: string; expires_in: number; url: string };
}

function failIf(errors: FieldError[]): void {
  if (errors.length) throw new ApiError("validation_failed", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });
}

function checkOrigins(list: string[], errors: FieldError[]): string[] {
  const out: string[] = [];
  list.forEach((raw, i) => {
    const result = normalizeAllowedOrigin(raw);
    if ("error" in result) errors.push({ field: `allowed_origins[${i}]`, message: result.error });
    else if (!out.includes(result.origin)) out.push(result.origin);
  });
  return out;
}

function checkName(name: string, errors: FieldError[]): string {
  const trimmed = name.trim();
  if (!trimmed) errors.push({ field: "name", message: "must not be blank" });
  return trimmed;
}

/** The look after `changes` (field by field), normalized: lower-case colours, blank greeting → null, https avatar. */
function mergeLook(current: WidgetLook, changes: LookInputValue, errors: FieldError[]): WidgetLook {
  const look: WidgetLook = { ...current };
  for (const [key, value] of Object.entries(changes) as [keyof WidgetLook, unknown][]) if (value !== undefined) (look as Record<string, unknown>)[key] = value;
  if (changes.title !== undefined) {
    look.title = changes.title.trim();
    if (!look.title) errors.push({ field: "look.title", message: "must not be blank" });
  }
  if (changes.greeting !== undefined) look.greeting = changes.greeting?.trim() ? changes.greeting.trim() : null;
  for (const key of ["primary_color", "background_color", "text_color"] as const) look[key] = look[key].toLowerCase();
  if (changes.avatar_url) {
    const problem = avatarProblem(changes.avatar_url);
    if (problem) errors.push({ field: "look.avatar_url", message: problem });
  }
  return look;
}

function avatarProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute https URL";
  }
  if (url.protocol !== "https:") return "must be an https URL (pages embedding the widget are usually https, and mixed content is blocked)";
  if (url.username || url.password) return "must not contain a user name or password";
  return null;
}

export function createWidget(ctx: AppContext, workspaceId: string, input: WidgetCreateInput, agentConfig: AgentLookup): WidgetRow {
  agentConfig(workspaceId, input.agent_id);
  const errors: FieldError[] = [];
  const name = checkName(input.name, errors);
  const allowedOrigins = checkOrigins(input.allowed_origins ?? [], errors);
  const look = mergeLook({ title: name.slice(0, 60).trim() || "Chat", ...DEFAULT_LOOK }, input.look ?? {}, errors);
  failIf(errors);
  const now = ctx.clock.now();
  const row: WidgetRow = { id: newId("wgt"), workspaceId, agentId: input.agent_id, name, allowedOrigins, mode: input.mode ?? "both", look, createdAt: now, updatedAt: now };
  ctx.db.insert(widgets).values(row).run();
  return row;
}

export function getWidget(ctx: AppContext, workspaceId: string, id: string): WidgetRow {
  const row = repo.findWidget(ctx.db, workspaceId, id);
  if (!row) throw notFound("widget");
  return row;
}

/** Fields given replace the stored ones; `look` merges field by field. */
export function updateWidget(ctx: AppContext, workspaceId: string, id: string, input: WidgetUpdateInput, agentConfig: AgentLookup): WidgetRow {
  const current = getWidget(ctx, workspaceId, id);
  if (input.agent_id !== undefined) agentConfig(workspaceId, input.agent_id);
  const errors: FieldError[] = [];
  const update: Partial<WidgetRow> = { updatedAt: ctx.clock.now() };
  if (input.agent_id !== undefined) update.agentId = input.agent_id;
  if (input.name !== undefined) update.name = checkName(input.name, errors);
  if (input.allowed_origins !== undefined) update.allowedOrigins = checkOrigins(input.allowed_origins, errors);
  if (input.mode !== undefined) update.mode = input.mode;
  if (input.look !== undefined) update.look = mergeLook(current.look as WidgetLook, input.look, errors);
  failIf(errors);
  ctx.db.update(widgets).set(update).where(and(eq(widgets.workspaceId, workspaceId), eq(widgets.id, id))).run();
  return getWidget(ctx, workspaceId, id);
}

/** Its visitors' sessions go with it (foreign key cascade); every public route answers 404 from now on. */
export function deleteWidget(ctx: AppContext, workspaceId: string, id: string): void {
  getWidget(ctx, workspaceId, id);
  ctx.db.delete(widgets).where(and(eq(widgets.workspaceId, workspaceId), eq(widgets.id, id))).run();
}

/** Expired visitor sessions out (a periodic sweep; reads already ignore them). */
export function pruneWidgetSessions(ctx: AppContext): number {
  return repo.deleteExpiredSessions(ctx.db, ctx.clock.now());
}

/** For deleting an agent: the widgets that would lose their agent, one sentence each. */
export function widgetsUsingAgent(ctx: AppContext, workspaceId: string, agentId: string): string[] {
  return repo.widgetsOfAgent(ctx.db, workspaceId, agentId).map((row) => `widget ${row.id} "${row.name}" talks with it`);
}

// ---- What visitors' pages reach (public, origin-checked by the routes) ----

/** The widget's agent, or null when it was deleted from under the widget. */
export function widgetAgent(widget: WidgetRow, agentConfig: AgentLookup): AgentConfig | null {
  try {
    return agentConfig(widget.workspaceId, widget.agentId);
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return null;
    throw error;
  }
}

/** The agent, or 409 saying (without naming ids) that the widget has none. */
function requireAgent(widget: WidgetRow, agentConfig: AgentLookup): AgentConfig {
  const agent = widgetAgent(widget, agentConfig);
  if (!agent) throw new ApiError("agent_not_ready", "this widget's agent no longer exists; its owner must choose another");
  return agent;
}

const visitorKeys = new WeakMap<AppContext, Uint8Array>();

/** A visitor's IP address, keyed-hashed: the limits can count visitors without the database keeping addresses. */
export function visitorOf(ctx: AppContext, ip: string): string {
  let key = visitorKeys.get(ctx);
  if (!key) {
    key = deriveKey(ctx.keys.encryption, "widget-visitors");
    visitorKeys.set(ctx, key);
  }
  return hmacSha256(key, ip).toString("hex");
}

/** New sessions being opened right now (the agent is thinking), so concurrent requests cannot slip past the limit. */
const opening = new WeakMap<AppContext, Map<string, number>>();

function openingCount(ctx: AppContext, key: string, delta: number): number {
  let counts = opening.get(ctx);
  if (!counts) opening.set(ctx, (counts = new Map()));
  const next = Math.max(0, (counts.get(key) ?? 0) + delta);
  if (next) counts.set(key, next);
  else counts.delete(key);
  return next;
}

/** 429 once a visitor has opened the allowed number of sessions on this widget within the window. */
function checkNewSessionAllowed(ctx: AppContext, widget: WidgetRow, visitor: string, now: number): void {
  const { newSessionsPerVisitor: limit, newSessionWindowMs: window } = WIDGET_LIMITS;
  const starts = repo.sessionStartsSince(ctx.db, widget.id, visitor, now - window);
  const pending = openingCount(ctx, `${widget.id}:${visitor}`, 0);
  if (starts.length + pending < limit) return;
  // The oldest session counted leaves the window first.
  const oldest = starts[Math.max(0, starts.length + pending - limit)] ?? now;
  const retryAfter = Math.max(1, Math.ceil((oldest + window - now) / 1000));
  throw new ApiError("rate_limited", `this visitor has started ${limit} chat sessions on this widget within the hour, the most allowed; continue an existing session or retry in ${retryAfter} s`, {
    headers: { "retry-after": String(retryAfter) },
  });
}

/**
 * One visitor message through the widget's agent. A new conversation is opened when no session_id is
 * given (what a flow says before it listens comes first in the reply, but not the agent's call greeting);
 * each session takes a bounded number of messages.
 */
export async function widgetChat(ctx: AppContext, services: WidgetServices, widget: WidgetRow, clientIp: string, input: { message: string; session_id?: string }) {
  if (widget.mode === "voice") throw new ApiError("invalid_state", "this widget is voice only (mode voice): it takes no chat messages");
  const message = input.message.trim();
  if (!message) throw invalid("message", "must not be empty");
  if (message.length > WIDGET_LIMITS.messageChars) throw invalid("message", `is ${message.length} characters long; the most allowed is ${WIDGET_LIMITS.messageChars}`);
  requireAgent(widget, services.agentConfig);
  const now = ctx.clock.now();
  if (input.session_id) return continueSession(ctx, services, widget, input.session_id, message, now);

  const visitor = visitorOf(ctx, clientIp);
  checkNewSessionAllowed(ctx, widget, visitor, now);
  const key = `${widget.id}:${visitor}`;
  openingCount(ctx, key, 1);
  try {
    const answer = await services.agentChat(widget.workspaceId, widget.agentId, { message, channel: "website_chat" });
    try {
      ctx.db
        .insert(widgetSessions)
        .values({ id: answer.session_id, widgetId: widget.id, workspaceId: widget.workspaceId, visitor, messages: 1, createdAt: now, expiresAt: now + WIDGET_LIMITS.sessionLifetimeMs })
        .run();
    } catch (error) {
      // Deleted while the agent was answering: the session has nothing to belong to.
      if (!repo.findPublicWidget(ctx.db, widget.id)) throw notFound("widget");
      throw error;
    }
    return { reply: answer.reply, session_id: answer.session_id, ended: answer.ended };
  } finally {
    openingCount(ctx, key, -1);
  }
}

async function continueSession(ctx: AppContext, services: WidgetServices, widget: WidgetRow, sessionId: string, message: string, now: number) {
  const taken = repo.takeSessionMessage(ctx.db, widget.id, sessionId, now, WIDGET_LIMITS.messagesPerSession);
  if (!taken) {
    const session = repo.findSession(ctx.db, widget.id, sessionId);
    if (!session || session.expiresAt <= now) throw new ApiError("not_found", "chat session not found (or expired): send the message without session_id to start a new one");
    throw new ApiError("invalid_state", `this chat session has reached its limit of ${WIDGET_LIMITS.messagesPerSession} messages; send the message without session_id to start a new one`);
  }
  try {
    const answer = await services.agentChat(widget.workspaceId, widget.agentId, { message, session_id: sessionId, channel: "website_chat" });
    return { reply: answer.reply, session_id: answer.session_id, ended: answer.ended };
  } catch (error) {
    repo.giveBackSessionMessage(ctx.db, sessionId);
    throw error;
  }
}

/** A browser voice token for a visitor of an allowed origin; the call's metadata names the widget and origin. */
export function widgetVoiceToken(services: WidgetServices, widget: WidgetRow, origin: string) {
  if (widget.mode === "chat") throw new ApiError("invalid_state", "this widget is chat only (mode chat): voice calls are off; its owner can set mode to voice or both");
  requireAgent(widget, services.agentConfig);
  try {
    return services.realtimeToken(widget.workspaceId, { agentId: widget.agentId, widgetId: widget.id, metadata: { origin } });
  } catch (error) {
    // The owner's configuration (provider ids, what is missing) is not the visitor's business.
    if (error instanceof ApiError && error.code === "agent_not_ready") {
      throw new ApiError("agent_not_ready", "this widget's agent cannot hold a voice call right now; its owner can see why with GET /v1/realtime/health?agent_id=…");
    }
    throw error;
  }
}
