import { and, desc, eq, gt, gte, isNull, lt, notInArray, or, type SQL } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { callEvents, calls, LIVE_STATUSES, type CallStatus } from "../../db/schema/index.ts";
import { assertNotSuspended } from "../../http/suspensions.ts";
import { ApiError, invalid, notFound, type FieldError } from "../../http/errors.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { parseIso } from "../../lib/time.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { liveCalls } from "../../voice/runtime/registry.ts";
import { agentReadinessProblems } from "../../voice/readiness.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import { checkReach, type CarrierReach } from "../../telephony/reach.ts";
import type { Carrier } from "../../telephony/types.ts";
import { configOf } from "../agents/models.ts";
import type { PhoneNumberRow } from "../phone-numbers/models.ts";
import { addTimelineEvent, checkCallStart, endCall, findCall, type CallRow } from "./lifecycle.ts";
import { callsPorts } from "./ports.ts";
import { eraseRecording } from "./recording-store.ts";

export const PLACE_JOB = "calls.place";
/**
 * A placing job that dies before its call rings (a crash between claim and dial) must run again, or
 * the call stays queued for ever (and its campaign never completes). Retrying is safe: the job only
 * dials a call that is still queued, and marks it ringing in the transaction that completes the job.
 */
export const PLACE_ATTEMPTS = 5;

export interface OutboundInput {
  agent_id: string;
  to: string;
  from?: string;
  variables?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  simulation?: Record<string, unknown>;
  /** The caller id by number id (campaigns pick theirs this way); `from` by number otherwise. */
  fromNumberId?: string | null;
}

/**
 * Checks everything a call needs before it is queued (an agent that can talk, a caller id the
 * workspace owns), records it as `queued`, and queues the job that dials it.
 */
export function createOutboundCall(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, input: OutboundInput, extra: { campaignId?: string; contactId?: number; reach?: CarrierReach } = {}): CallRow {
  // Every outbound call (API, campaign, schedule, demo) starts here: a suspended workspace places none.
  assertNotSuspended(ctx, workspaceId);
  const ports = callsPorts(ctx);
  const agent = ports.referencedAgent(workspaceId, input.agent_id);
  const number = input.fromNumberId
    ? ports.numberById(workspaceId, input.fromNumberId)
    : input.from
      ? ports.ownedNumber(workspaceId, input.from)
      : ports.numberOfAgent(workspaceId, agent.id);
  if (input.fromNumberId && !number) throw invalid("from_number_id", `no phone number ${input.fromNumberId} in this workspace`);
  if (input.from && !number) throw invalid("from", `${input.from} is not a number of this workspace`);
  if (!number) throw new ApiError("agent_not_ready", "the agent has no phone number: assign one (POST /v1/phone-numbers/{id}/assign) or pass `from`");
  const carrier = carrierOfNumber(carriers, number);
  checkReach(carrier, extra.reach ?? "any");
  const problems = agentReadinessProblems(ctx, workspaceId, configOf(agent), { simulatedRecognition: carrier.scriptedRecognition("outbound", input.simulation ?? null) });
  if (problems.length) throw notReady(problems);
  const optionsProblem = input.simulation ? carrier.checkDialOptions(input.simulation) : null;
  if (optionsProblem) throw invalid(optionsProblem.field, optionsProblem.message);
  checkCallStart(ctx, { workspaceId, carrierKind: carrier.kind, direction: "outbound", agent: configOf(agent) });
  const row = newCallRow(ctx, {
    workspaceId,
    agent,
    direction: "outbound",
    from: number.number,
    to: input.to,
    phoneNumberId: number.id,
    carrier: number.carrier,
    variables: input.variables ?? {},
    metadata: { ...(input.metadata ?? {}), ...(extra.campaignId ? { campaign_id: extra.campaignId, contact_id: extra.contactId } : {}) },
    carrierOptions: input.simulation ?? null,
    status: "queued",
    campaignId: extra.campaignId ?? null,
  });
  ctx.sqlite.transaction(() => {
    ctx.db.insert(calls).values(row).run();
    addTimelineEvent(ctx, row, "status", { status: "queued" });
    enqueueJob(ctx, { type: PLACE_JOB, payload: { call_id: row.id }, uniqueKey: `${PLACE_JOB}:${row.id}`, workspaceId: row.workspaceId, maxAttempts: PLACE_ATTEMPTS });
  })();
  return row;
}

export function notReady(problems: FieldError[]): ApiError {
  return new ApiError("agent_not_ready", `the agent cannot take calls yet: ${problems.map((p) => `${p.field}: ${p.message}`).join("; ")}`, { errors: problems });
}

export interface NewCall {
  workspaceId: string;
  agent: { id: string; version: number };
  direction: CallRow["direction"];
  from: string | null;
  to: string | null;
  phoneNumberId: string | null;
  carrier: string;
  variables: Record<string, unknown>;
  metadata: Record<string, unknown>;
  carrierOptions: Record<string, unknown> | null;
  status: "queued" | "ringing";
  campaignId?: string | null;
  testRunId?: string | null;
}

function newCallRow(ctx: AppContext, call: NewCall): CallRow {
  const now = ctx.clock.now();
  return {
    id: newId("call"),
    workspaceId: call.workspaceId,
    agentId: call.agent.id,
    agentVersion: call.agent.version,
    direction: call.direction,
    fromNumber: call.from,
    toNumber: call.to,
    phoneNumberId: call.phoneNumberId,
    carrier: call.carrier,
    campaignId: call.campaignId ?? null,
    testRunId: call.testRunId ?? null,
    status: call.status,
    endReason: null,
    variables: call.variables,
    metadata: call.metadata,
    carrierOptions: call.carrierOptions,
    transcript: null,
    extracted: null,
    summary: null,
    transferredTo: null,
    recordingPath: null,
    // A call created ringing (inbound, browser) has its leg on this node already; a queued one gets its node as it is dialled.
    nodeId: call.status === "ringing" ? ctx.nodeId : null,
    erasedAt: null,
    createdAt: now,
    ringingAt: call.status === "ringing" ? now : null,
    answeredAt: null,
    endedAt: null,
    durationMs: null,
    updatedAt: now,
  };
}

/** Whether a call to this number would be answered, and by which agent; 409 saying why not. */
/** The live carrier of a number's connection (a connection with numbers cannot be removed). */
export function carrierOfNumber(carriers: CarrierRegistry, number: PhoneNumberRow): Carrier {
  const carrier = carriers.carrier(number.workspaceId, number.carrier);
  if (!carrier) throw new ApiError("number_unavailable", `${number.number} is on carrier connection ${number.carrier}, which no longer exists`);
  return carrier;
}

export function checkInboundAllowed(ctx: AppContext, workspaceId: string, number: PhoneNumberRow, simulatedRecognition: boolean, carrierKind: string) {
  assertNotSuspended(ctx, workspaceId);
  if ((number.inbound as { enabled?: boolean }).enabled === false) throw new ApiError("number_unavailable", `inbound calls to ${number.number} are switched off`);
  if (!number.agentId) throw new ApiError("number_unavailable", `no agent answers ${number.number}: assign one first`);
  const agent = callsPorts(ctx).getAgent(workspaceId, number.agentId);
  const problems = agentReadinessProblems(ctx, workspaceId, configOf(agent), { simulatedRecognition });
  if (problems.length) throw notReady(problems);
  checkCallStart(ctx, { workspaceId, carrierKind, direction: "inbound", agent: configOf(agent) });
  return agent;
}

/**
 * A call arriving on one of the workspace's numbers: routed to the number's agent, refused (409)
 * when no agent answers there, inbound calls are switched off, or the agent cannot talk yet.
 */
export function createInboundCall(ctx: AppContext, workspaceId: string, number: PhoneNumberRow, from: string | null, carrierOptions: Record<string, unknown> | null, simulatedRecognition: boolean, carrierKind: string): CallRow {
  const inbound = number.inbound as { enabled?: boolean; variables?: Record<string, unknown> };
  const agent = checkInboundAllowed(ctx, workspaceId, number, simulatedRecognition, carrierKind);
  return insertRingingCall(ctx, {
    workspaceId,
    agent,
    direction: "inbound",
    from,
    to: number.number,
    phoneNumberId: number.id,
    carrier: number.carrier,
    variables: { ...(inbound.variables ?? {}), ...(from ? { caller_number: from } : {}) },
    metadata: {},
    carrierOptions,
    status: "ringing",
  });
}

/** The carrier column of calls held in a browser (they have no carrier connection). */
export const BROWSER_CARRIER = "browser";

/** A browser voice session: the agent must be able to hold a live call with a real recogniser. */
export function checkWebCallAllowed(ctx: AppContext, workspaceId: string, agentId: string) {
  assertNotSuspended(ctx, workspaceId);
  const agent = callsPorts(ctx).referencedAgent(workspaceId, agentId);
  const problems = agentReadinessProblems(ctx, workspaceId, configOf(agent), { simulatedRecognition: false });
  if (problems.length) throw notReady(problems);
  checkCallStart(ctx, { workspaceId, carrierKind: BROWSER_CARRIER, direction: "web", agent: configOf(agent) });
  return agent;
}

/** A call held in a browser (WebSocket audio): no numbers, `web` direction, ringing until the socket's answer. */
export function createWebCall(ctx: AppContext, workspaceId: string, request: { agentId: string; variables: Record<string, unknown>; metadata: Record<string, unknown> }): CallRow {
  const agent = checkWebCallAllowed(ctx, workspaceId, request.agentId);
  return insertRingingCall(ctx, {
    workspaceId,
    agent,
    direction: "web",
    from: null,
    to: null,
    phoneNumberId: null,
    carrier: BROWSER_CARRIER,
    variables: request.variables,
    metadata: request.metadata,
    carrierOptions: null,
    status: "ringing",
  });
}

/** Records a call that is ringing already (its leg is here: inbound, browser, an agent test's). */
export function insertRingingCall(ctx: AppContext, call: NewCall & { status: "ringing" }): CallRow {
  const row = newCallRow(ctx, call);
  ctx.sqlite.transaction(() => {
    ctx.db.insert(calls).values(row).run();
    addTimelineEvent(ctx, row, "status", { status: "ringing" });
  })();
  return row;
}

export function getCall(ctx: AppContext, workspaceId: string, id: string): CallRow {
  const row = ctx.db.select().from(calls).where(and(eq(calls.workspaceId, workspaceId), eq(calls.id, id))).get();
  if (!row) throw notFound("call");
  return row;
}

export interface CallFilter {
  agent_id?: string;
  campaign_id?: string;
  status?: CallStatus;
  direction?: "inbound" | "outbound" | "web";
  number?: string;
  from?: string;
  to?: string;
  include_tests?: boolean;
  test_run_id?: string;
}

export function callConditions(workspaceId: string, filter: CallFilter): SQL[] {
  const conditions: SQL[] = [eq(calls.workspaceId, workspaceId)];
  if (filter.agent_id) conditions.push(eq(calls.agentId, filter.agent_id));
  if (filter.campaign_id) conditions.push(eq(calls.campaignId, filter.campaign_id));
  // An agent test's calls are kept apart: listed when asked for, by their run or all of them.
  if (filter.test_run_id) conditions.push(eq(calls.testRunId, filter.test_run_id));
  else if (!filter.include_tests) conditions.push(isNull(calls.testRunId));
  if (filter.status) conditions.push(eq(calls.status, filter.status));
  if (filter.direction) conditions.push(eq(calls.direction, filter.direction));
  if (filter.number) conditions.push(or(eq(calls.fromNumber, filter.number), eq(calls.toNumber, filter.number))!);
  for (const [field, op] of [["from", gte], ["to", lt]] as const) {
    const value = filter[field];
    if (value === undefined) continue;
    const ms = parseIso(value);
    if (ms === null) throw invalid(field, "must be an ISO 8601 date-time");
    conditions.push(op(calls.createdAt, ms));
  }
  return conditions;
}

export function listCalls(ctx: AppContext, workspaceId: string, filter: CallFilter, page: PageRequest): CallRow[] {
  const limit = page.limit + 1;
  const cursor = afterCursor(calls.createdAt, calls.id, page.after);
  const read = (side?: SQL) =>
    ctx.db
      .select()
      .from(calls)
      .where(and(...callConditions(workspaceId, { ...filter, number: undefined }), side, cursor))
      .orderBy(desc(calls.createdAt), desc(calls.id))
      .limit(limit)
      .all();
  if (!filter.number) return read();
  // A number on either side: each side read in order from its own index, then merged. As one OR, SQLite
  // walked the whole workspace for a rare number, or merged both indexes and sorted for a common one.
  const merged = new Map<string, CallRow>();
  for (const row of [...read(eq(calls.fromNumber, filter.number)), ...read(eq(calls.toNumber, filter.number))]) merged.set(row.id, row);
  return [...merged.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, limit);
}

/** Oldest first, strictly after `after` (keyset paging: rows added meanwhile neither repeat nor shift pages). */
export function callsInOrder(ctx: AppContext, conditions: SQL[], after: { at: number; id: string } | null, limit: number): CallRow[] {
  const where = after ? [...conditions, or(gt(calls.createdAt, after.at), and(eq(calls.createdAt, after.at), gt(calls.id, after.id)))!] : conditions;
  return ctx.db.select().from(calls).where(and(...where)).orderBy(calls.createdAt, calls.id).limit(limit).all();
}

export function callTimeline(ctx: AppContext, call: CallRow) {
  return ctx.db.select().from(callEvents).where(eq(callEvents.callId, call.id)).orderBy(callEvents.id).all();
}

/** Live-call controls answer 409 for a call that is not live (here). */
export function requireLive(ctx: AppContext, workspaceId: string, id: string) {
  const call = getCall(ctx, workspaceId, id);
  const live = liveCalls(ctx).get(id);
  if (!live || call.status !== "in_progress") throw new ApiError("invalid_state", `the call is ${call.status}; only a call in progress can be controlled`);
  return { call, live };
}

/** Timeline entries that say nothing of what was said, pressed or learned: they survive an erase. */
const KEPT_ON_ERASE = ["status", "engines", "latency", "amd", "voicemail", "transfer", "error", "carrier", "media", "extracted", "erased"];

/**
 * Erases what the caller said and what was learned (recording, transcript, extracted data,
 * summary, and the timeline entries that quote them); the row with its times, status and numbers
 * stays for billing and statistics. Erasing again changes nothing.
 */
export async function eraseCall(ctx: AppContext, workspaceId: string, id: string): Promise<CallRow> {
  const call = getCall(ctx, workspaceId, id);
  if (liveCalls(ctx).has(id) || LIVE_STATUSES.includes(call.status)) throw new ApiError("invalid_state", "a live call cannot be erased; hang it up first");
  if (call.erasedAt !== null) return call;
  await eraseRecording(ctx, call);
  ctx.sqlite.transaction(() => {
    if (findCall(ctx, id)?.erasedAt !== null) return; // a concurrent erase got here first
    const now = ctx.clock.now();
    ctx.db.update(calls).set({ transcript: null, extracted: null, summary: null, recordingPath: null, variables: {}, erasedAt: now, updatedAt: now }).where(eq(calls.id, id)).run();
    ctx.db.delete(callEvents).where(and(eq(callEvents.callId, id), notInArray(callEvents.type, KEPT_ON_ERASE))).run();
    addTimelineEvent(ctx, call, "erased", {});
  })();
  return findCall(ctx, id)!;
}

/** Stops a workspace's calls in this process now (its suspension): live ones hang up with `reason`, queued ones are canceled (controls.ts asks the other nodes). */
export function stopLocalWorkspaceCalls(ctx: AppContext, workspaceId: string, reason: string): number {
  let stopped = 0;
  for (const live of liveCalls(ctx).values()) {
    if (live.workspaceId !== workspaceId) continue;
    live.hangup(reason);
    stopped++;
  }
  const queued = ctx.db.select({ id: calls.id }).from(calls).where(and(eq(calls.workspaceId, workspaceId), eq(calls.status, "queued"))).all();
  for (const call of queued) if (!liveCalls(ctx).has(call.id) && endCall(ctx, call.id, { status: "canceled", endReason: reason })) stopped++;
  return stopped;
}
