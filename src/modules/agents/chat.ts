import { and, eq, gt, lt } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { agentChatSessions } from "../../db/schema/index.ts";
import { notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { DAY } from "../../lib/time.ts";
import { AgentConversation, type ConversationChannel, type ConversationState } from "../../voice/brains/agent-brain.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { configOf } from "./models.ts";
import { getAgent } from "./service.ts";

const SESSION_LIFETIME_MS = DAY;

interface StoredSession {
  conversation: ConversationState;
  variables: Record<string, unknown>;
  /** Absent in sessions stored before channels: those are the playground's (a call rehearsed). */
  channel?: ConversationChannel;
}

export type AgentChatReply = Awaited<ReturnType<typeof chat>>;

/**
 * The playground (a call rehearsed in text) and a widget's website chat (`channel: "website_chat"`): a text
 * conversation with the agent's real brain (flow or model), kept between requests by session id. The
 * configuration in force is the agent's current one; a session keeps the channel it was opened on.
 */
export async function chat(
  ctx: AppContext,
  brains: BrainServices,
  workspaceId: string,
  agentId: string,
  input: { message?: string; digits?: string; session_id?: string; variables?: Record<string, unknown>; channel?: ConversationChannel },
) {
  const agent = getAgent(ctx, workspaceId, agentId);
  const now = ctx.clock.now();
  let sessionId = input.session_id;
  let stored: StoredSession;
  const said: string[] = [];
  let conversation: AgentConversation;
  const turnLog = { action: null as null | { type: "end" | "transfer"; number?: string }, toolCalls: [] as { name: string; arguments: Record<string, unknown>; ok: boolean; result: unknown }[], error: null as string | null };

  if (sessionId) {
    const row = ctx.db
      .select()
      .from(agentChatSessions)
      .where(and(eq(agentChatSessions.id, sessionId), eq(agentChatSessions.workspaceId, workspaceId), eq(agentChatSessions.agentId, agentId), gt(agentChatSessions.expiresAt, now)))
      .get();
    if (!row) throw notFound("chat session");
    stored = row.state as unknown as StoredSession;
    conversation = new AgentConversation(brains, configOf(agent), { workspaceId, agentId, callId: null, variables: stored.variables, channel: stored.channel });
  } else {
    sessionId = newId("cht");
    const variables = input.variables ?? {};
    const channel = input.channel ?? "call";
    conversation = new AgentConversation(brains, configOf(agent), { workspaceId, agentId, callId: null, variables, channel });
    stored = { conversation: conversation.initialState(), variables, channel };
    const opening = await conversation.open(stored.conversation);
    said.push(...opening.say);
    Object.assign(turnLog, { action: opening.action, error: opening.error });
    turnLog.toolCalls.push(...opening.toolCalls);
  }
  if ((input.message || input.digits) && !stored.conversation.ended) {
    const turn = await conversation.reply(stored.conversation, { text: input.message, digits: input.digits });
    said.push(...turn.say);
    turnLog.toolCalls.push(...turn.toolCalls);
    turnLog.action = turn.action ?? turnLog.action;
    turnLog.error = turn.error ?? turnLog.error;
  }
  const state = stored as unknown as Record<string, unknown>;
  ctx.db
    .insert(agentChatSessions)
    .values({ id: sessionId, workspaceId, agentId, state, createdAt: now, updatedAt: now, expiresAt: now + SESSION_LIFETIME_MS })
    .onConflictDoUpdate({ target: agentChatSessions.id, set: { state, updatedAt: now, expiresAt: now + SESSION_LIFETIME_MS } })
    .run();
  return {
    session_id: sessionId,
    reply: said.join(" "),
    messages: said.map((text) => ({ role: "agent" as const, text })),
    ended: stored.conversation.ended,
    action: turnLog.action,
    tool_calls: turnLog.toolCalls,
    error: turnLog.error,
  };
}

/** Expired conversations out (a periodic sweep, so no message pays for it). */
export function pruneChatSessions(ctx: AppContext): number {
  return ctx.db.delete(agentChatSessions).where(lt(agentChatSessions.expiresAt, ctx.clock.now())).run().changes;
}
