import { storedRecordingPath } from "./recording.ts";
import { and, eq, inArray, isNull, type SQL } from "drizzle-orm";
import { declareOthersLost, liveNodes } from "../../cluster/nodes.ts";
import type { AppContext } from "../../core/context.ts";
import { hookPoint } from "../../core/hooks.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { callEvents, calls, LIVE_STATUSES, type CallStatus } from "../../db/schema/index.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { publishAgentEvent } from "../../webhooks/outbox.ts";
import type { AgentEventType } from "../../webhooks/event-types.ts";
import type { CallEnding, TurnRecord } from "../../voice/runtime/journal.ts";
import { liveCalls } from "../../voice/runtime/registry.ts";
import { callUrls } from "./models.ts";
import { countCallEnd } from "./metrics.ts";

export type { CallEnding, TurnRecord };

// Every change of a call's state happens here, with its timeline entry and its webhook events in the
// same transaction (the outbox): a call never moves without the events that say so. The transactions
// are IMMEDIATE: they read, then write, and a deferred one that meets another writer in between
// (a `parley backup` or CLI beside the server) fails at once with "database is locked" instead of
// waiting its turn, which in a call's event handler would take the server down.

export type CallRow = typeof calls.$inferSelect;
export const FINALIZE_JOB = "calls.finalize";

/** Work that must commit with a call's end (a campaign contact moving on), installed by the composition root. */
export type CallEndHook = (ctx: AppContext, call: CallRow) => void;
const callEndHooks = hookPoint<CallEndHook>();

export function onCallEnd(ctx: AppContext, hook: CallEndHook): void {
  callEndHooks.add(ctx, hook);
}

/** A call about to be created; a start hook throws an ApiError to refuse it (the wallet's 402). */
export interface CallStart {
  workspaceId: string;
  /** `simulated`, `sip`, `twilio`, `telnyx` or `browser`. */
  carrierKind: string;
  direction: CallRow["direction"];
  agent: AgentConfig;
}
export type CallStartHook = (ctx: AppContext, start: CallStart) => void;
const callStartHooks = hookPoint<CallStartHook>();

export function onCallStart(ctx: AppContext, hook: CallStartHook): void {
  callStartHooks.add(ctx, hook);
}

export function checkCallStart(ctx: AppContext, start: CallStart): void {
  for (const hook of callStartHooks.of(ctx)) hook(ctx, start);
}

/** How far a call a previous run lost was known to talk (as far as it was charged), installed by the composition root. */
export type LostCallReach = (ctx: AppContext, call: CallRow) => number | null;
const lostCallReach = hookPoint<LostCallReach>();

export function onLostCall(ctx: AppContext, hook: LostCallReach): void {
  lostCallReach.add(ctx, hook);
}

/** A call's Set A event, in the caller's transaction; an agent test's call sends none (a business's receivers must not see test calls). */
function publishCallEvent(ctx: AppContext, call: Pick<CallRow, "id" | "workspaceId" | "agentId" | "testRunId">, type: AgentEventType, data: Record<string, unknown>): void {
  if (call.testRunId) return;
  publishAgentEvent(ctx, { workspaceId: call.workspaceId, agentId: call.agentId, callId: call.id, type, data });
}

export function findCall(ctx: AppContext, callId: string): CallRow | undefined {
  return ctx.db.select().from(calls).where(eq(calls.id, callId)).get();
}

export function addTimelineEvent(ctx: AppContext, call: Pick<CallRow, "id" | "workspaceId" | "createdAt">, type: string, data: Record<string, unknown>): void {
  const now = ctx.clock.now();
  ctx.db.insert(callEvents).values({ callId: call.id, workspaceId: call.workspaceId, type, offsetMs: Math.max(0, now - call.createdAt), data, createdAt: now }).run();
}

/**
 * Moves a call on from the status it was read in (`from`, by default exactly that one), or answers null
 * when it was no longer there: on PostgreSQL another node may change the row between this transaction's
 * read and its write (READ COMMITTED), and the UPDATE, waiting on the row's lock, re-reads it then.
 */
function setStatus(ctx: AppContext, call: CallRow, status: CallStatus, changes: Partial<CallRow>, data: Record<string, unknown> = {}, from: readonly CallStatus[] = [call.status]): CallRow | null {
  const now = ctx.clock.now();
  if (ctx.db.update(calls).set({ ...changes, status, updatedAt: now }).where(and(eq(calls.id, call.id), inArray(calls.status, from))).run().changes === 0) return null;
  addTimelineEvent(ctx, call, "status", { status, ...data });
  return { ...call, ...changes, status, updatedAt: now };
}

/** Answers whether this moved the call from queued (false: it was no longer queued, another node dialled or ended it). */
export function markRinging(ctx: AppContext, callId: string): boolean {
  return ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    // The dialling node holds the leg from here: a survivor ends the call if this node is lost.
    return call?.status === "queued" && setStatus(ctx, call, "ringing", { ringingAt: ctx.clock.now(), nodeId: ctx.nodeId }) !== null;
  }).immediate();
}

/** The audio session opens: `call.started` fires. */
export function markAnswered(ctx: AppContext, callId: string): CallRow | undefined {
  return ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    if (!call || !LIVE_STATUSES.includes(call.status) || call.status === "in_progress") return call;
    const now = ctx.clock.now();
    const updated = setStatus(ctx, call, "in_progress", { answeredAt: now });
    if (!updated) return findCall(ctx, callId);
    publishCallEvent(ctx, call, "call.started", { call_id: call.id, agent_id: call.agentId, direction: call.direction, from: call.fromNumber, to: call.toNumber, started_at: new Date(now).toISOString() });
    return updated;
  }).immediate();
}

/** A completed utterance joins the transcript and goes out as `call.transcript`. */
export function recordTurn(ctx: AppContext, callId: string, turn: TurnRecord): void {
  ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    if (!call) return;
    const transcript = [...((call.transcript as TurnRecord[] | null) ?? []), turn];
    ctx.db.update(calls).set({ transcript, updatedAt: ctx.clock.now() }).where(eq(calls.id, callId)).run();
    addTimelineEvent(ctx, call, "turn", { ...turn, index: transcript.length - 1 });
    publishCallEvent(ctx, call, "call.transcript", { turn: transcript.length - 1, ...turn });
  }).immediate();
}

/** The agent's current turn was cut short: the transcript keeps only what the caller heard. */
export function truncateLastAgentTurn(ctx: AppContext, callId: string, playedText: string, endMs: number): void {
  ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    const transcript = (call?.transcript as TurnRecord[] | null) ?? [];
    const last = transcript.at(-1);
    if (!call || !last || last.role !== "agent") return;
    transcript[transcript.length - 1] = { ...last, text: playedText, end_ms: endMs, interrupted: true };
    ctx.db.update(calls).set({ transcript, updatedAt: ctx.clock.now() }).where(eq(calls.id, callId)).run();
    addTimelineEvent(ctx, call, "interrupted", { played_text: playedText, at_ms: endMs });
  }).immediate();
}

export function reportCallError(ctx: AppContext, callId: string, code: string, message: string, fatal: boolean): void {
  ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    if (!call) return;
    addTimelineEvent(ctx, call, "error", { code, message, fatal });
    publishCallEvent(ctx, call, "call.error", { code, message, fatal });
  }).immediate();
}

export function reportTransfer(ctx: AppContext, callId: string, to: string, reason: string | null): void {
  ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    if (!call) return;
    addTimelineEvent(ctx, call, "transfer", { to, reason });
    publishCallEvent(ctx, call, "call.transfer", { to, reason });
  }).immediate();
}

/**
 * The terminal transition, exactly once: `call.ended` goes out now; extraction, the summary and the
 * outcome event (`call.completed`/`call.transferred`/`call.failed`) follow from a durable job.
 */
export function endCall(ctx: AppContext, callId: string, ending: CallEnding): boolean {
  const ended = ctx.sqlite.transaction(() => {
    const call = findCall(ctx, callId);
    if (!call || !LIVE_STATUSES.includes(call.status)) return false;
    const now = ctx.clock.now();
    const durationMs = ending.durationMs ?? (call.answeredAt ? now - call.answeredAt : 0);
    const updated = setStatus(
      ctx,
      call,
      ending.status,
      { endReason: ending.endReason, endedAt: now, durationMs, transferredTo: ending.transferredTo ?? null, recordingPath: ending.recordingPath ? storedRecordingPath(ctx.dataDir.root, ending.recordingPath) : call.recordingPath },
      { end_reason: ending.endReason },
      LIVE_STATUSES,
    );
    // Another node ended it first (its lost owner's late end, or two survivors): its events went out once, there.
    if (!updated) return false;
    const urls = callUrls(ctx.publicUrl, updated);
    publishCallEvent(ctx, call, "call.ended", { status: ending.status, end_reason: ending.endReason, duration_ms: durationMs, transcript_url: urls.transcript_url, recording_url: urls.recording_url });
    enqueueJob(ctx, { type: FINALIZE_JOB, payload: { call_id: callId, slots: ending.slots ?? {} }, uniqueKey: `${FINALIZE_JOB}:${callId}`, workspaceId: call.workspaceId, maxAttempts: 5 });
    for (const hook of callEndHooks.of(ctx)) hook(ctx, updated);
    return true;
  }).immediate();
  // Counted after its transaction: one the database refused threw, and is counted when the journal writes it again.
  if (ended) countCallEnd(ctx, ending.status, ending.endReason);
  return ended;
}

/**
 * At start no call can be live in this process yet. SQLite: one process per data dir (its serve lock),
 * so every other node that never said it stopped died with its process (declared lost now), and every
 * call left ringing or in progress lost its audio with it: end it, with its terminal events. PostgreSQL:
 * other nodes may be alive and hold their calls; the loss sweep ends those of a node that falls silent,
 * so here only calls no node is named for (rows from before nodes were recorded), when no other node lives.
 */
export function endCallsOfPreviousRun(ctx: AppContext): number {
  const registry = liveCalls(ctx);
  if (ctx.dialect === "sqlite") {
    declareOthersLost(ctx);
    return endOrphanedCalls(ctx, (id) => registry.has(id));
  }
  if (liveNodes(ctx).some((node) => node.id !== ctx.nodeId)) return 0;
  return endOrphanedCalls(ctx, (id) => registry.has(id), isNull(calls.nodeId));
}

/** After a restart no call can still be live: end them (of those `where` picks), with their terminal events. */
export function endOrphanedCalls(ctx: AppContext, isLive: (callId: string) => boolean, where?: SQL): number {
  // Queued calls still have their placing job; ringing and answered ones lost their process.
  const orphans = ctx.db.select().from(calls).where(and(inArray(calls.status, ["ringing", "in_progress"]), where)).all();
  let ended = 0;
  for (const call of orphans) {
    if (isLive(call.id)) continue;
    if (endCall(ctx, call.id, { status: call.status === "in_progress" ? "failed" : "canceled", endReason: "error", durationMs: lostCallDuration(ctx, call) })) ended++;
  }
  return ended;
}

/** A call whose process was lost talked until its last write or as far as it was charged, not through the outage until now. */
export function lostCallDuration(ctx: AppContext, call: CallRow): number {
  const reached = Math.max(call.updatedAt, ...[...lostCallReach.of(ctx)].map((hook) => hook(ctx, call) ?? 0));
  return call.answeredAt === null ? 0 : Math.max(0, reached - call.answeredAt);
}

export function liveCallIn(ctx: AppContext, workspaceId: string, callId: string): CallRow | undefined {
  return ctx.db.select().from(calls).where(and(eq(calls.workspaceId, workspaceId), eq(calls.id, callId), inArray(calls.status, LIVE_STATUSES))).get();
}
