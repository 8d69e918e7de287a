import { and, desc, eq, gt, inArray, type SQL } from "drizzle-orm";
import { isSupportedCountry } from "libphonenumber-js/max";
import type { AppContext } from "../../core/context.ts";
import type { CarrierReach } from "../../telephony/reach.ts";
import { campaignContacts, campaigns, workspaces, type CallingWindow, type CampaignStatus, type ContactStatus, type RetryPolicy } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { isValidTimeZone, parseIso } from "../../lib/time.ts";
import { wakeDispatcher } from "./dispatcher.ts";
import type { CampaignRow, ContactRow } from "./models.ts";
import { campaignsPorts } from "./ports.ts";
import { contactCounts } from "./repo.ts";

const DAY_NUMBERS: Record<string, number> = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 7 };

/** Campaigns still calling with an agent (it cannot be deleted under them). */
export const campaignsUsingAgent = (ctx: AppContext, workspaceId: string, agentId: string): string[] =>
  ctx.db
    .select({ id: campaigns.id, name: campaigns.name, status: campaigns.status })
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.agentId, agentId), inArray(campaigns.status, ["draft", "running", "paused"])))
    .all()
    .map((row) => `campaign ${row.id} "${row.name}" (${row.status}) calls with it`);

export interface CampaignInput {
  name?: string;
  agent_id?: string;
  from_number_id?: string | null;
  concurrency?: number;
  calls_per_minute?: number;
  window?: { days: (number | string)[]; start: string; end: string; timezone: string; contact_timezone?: boolean } | null;
  retry?: RetryPolicy;
  default_country?: string;
  do_not_call?: string[];
  start_at?: string | null;
  end_at?: string | null;
  metadata?: Record<string, unknown>;
  simulation?: Record<string, unknown> | null;
}

const DEFAULT_RETRY: RetryPolicy = { on: ["no_answer", "busy"], max_attempts: 2, delay_minutes: 60 };

function windowOf(input: NonNullable<CampaignInput["window"]>): CallingWindow {
  if (!isValidTimeZone(input.timezone)) throw invalid("window.timezone", `unknown time zone ${input.timezone}`);
  const start = input.start;
  const end = input.end;
  if (start >= end) throw invalid("window.end", "must be later than window.start (a window cannot cross midnight; use two days)");
  const days = [...new Set(input.days.map((day) => (typeof day === "number" ? day : DAY_NUMBERS[day])))].sort();
  return { days, start, end, timezone: input.timezone, contact_timezone: input.contact_timezone ?? true };
}

function instant(field: string, value: string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  const ms = parseIso(value);
  if (ms === null) throw invalid(field, "must be an ISO 8601 date-time");
  return ms;
}

/** Checks references (agent, caller id) in this workspace; unknown ones are 422 naming the field. */
function checkReferences(ctx: AppContext, workspaceId: string, input: CampaignInput): void {
  if (input.agent_id !== undefined) campaignsPorts(ctx).referencedAgent(workspaceId, input.agent_id);
  if (input.from_number_id && !campaignsPorts(ctx).numberById(workspaceId, input.from_number_id)) {
    throw invalid("from_number_id", `no phone number ${input.from_number_id} in this workspace`);
  }
}

function settingsOf(input: CampaignInput): Partial<CampaignRow> {
  const changes: Partial<CampaignRow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.agent_id !== undefined) changes.agentId = input.agent_id;
  if (input.from_number_id !== undefined) changes.fromNumberId = input.from_number_id;
  if (input.concurrency !== undefined) changes.concurrency = input.concurrency;
  if (input.calls_per_minute !== undefined) changes.callsPerMinute = input.calls_per_minute;
  if (input.window !== undefined) changes.window = input.window === null ? null : windowOf(input.window);
  if (input.retry !== undefined) changes.retry = input.retry;
  if (input.default_country !== undefined) {
    // "UK" or "EU" pass the two-letter pattern but would make every national number invalid on upload.
    if (!isSupportedCountry(input.default_country)) throw invalid("default_country", `${input.default_country} is not a country with a numbering plan (ISO 3166-1 alpha-2, e.g. GB)`);
    changes.defaultCountry = input.default_country;
  }
  if (input.do_not_call !== undefined) changes.doNotCall = [...new Set(input.do_not_call)];
  const startAt = instant("start_at", input.start_at);
  if (startAt !== undefined) changes.startAt = startAt;
  const endAt = instant("end_at", input.end_at);
  if (endAt !== undefined) changes.endAt = endAt;
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  if (input.simulation !== undefined) changes.simulation = input.simulation;
  return changes;
}

/** The workspace's country for national numbers (its `default_country`), else US. */
function workspaceCountry(ctx: AppContext, workspaceId: string): string {
  const country = ctx.db.select({ country: workspaces.defaultCountry }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()?.country;
  return country && isSupportedCountry(country) ? country : "US";
}

export function createCampaign(ctx: AppContext, workspaceId: string, input: CampaignInput & { name: string; agent_id: string }): CampaignRow {
  checkReferences(ctx, workspaceId, input);
  const now = ctx.clock.now();
  const row: CampaignRow = {
    id: newId("cmp"),
    workspaceId,
    name: input.name,
    agentId: input.agent_id,
    fromNumberId: null,
    // Set by whoever starts it.
    reach: "any",
    status: "draft",
    concurrency: 5,
    callsPerMinute: 30,
    window: null,
    retry: DEFAULT_RETRY,
    defaultCountry: workspaceCountry(ctx, workspaceId),
    doNotCall: [],
    columns: [],
    startAt: null,
    endAt: null,
    nextDialAt: 0,
    lastError: null,
    metadata: {},
    simulation: null,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
    ...settingsOf(input),
  };
  if (row.startAt && row.endAt && row.endAt <= row.startAt) throw invalid("end_at", "must be after start_at");
  ctx.db.insert(campaigns).values(row).run();
  return row;
}

export function getCampaign(ctx: AppContext, workspaceId: string, id: string): CampaignRow {
  const row = ctx.db.select().from(campaigns).where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id))).get();
  if (!row) throw notFound("campaign");
  return row;
}

export function listCampaigns(ctx: AppContext, workspaceId: string, page: PageRequest, status?: CampaignStatus): CampaignRow[] {
  const conditions: (SQL | undefined)[] = [eq(campaigns.workspaceId, workspaceId), afterCursor(campaigns.createdAt, campaigns.id, page.after)];
  if (status) conditions.push(eq(campaigns.status, status));
  return ctx.db.select().from(campaigns).where(and(...conditions)).orderBy(desc(campaigns.createdAt), desc(campaigns.id)).limit(page.limit + 1).all();
}

const FINAL_STATES: CampaignStatus[] = ["completed", "canceled"];

function conflict(row: CampaignRow, action: string): ApiError {
  return new ApiError("invalid_state", `a ${row.status} campaign cannot ${action}`, { errors: [{ field: "status", message: `is ${row.status}` }] });
}

/** Settings change at any time before the end; a running campaign's dispatcher applies them at once. */
export function updateCampaign(ctx: AppContext, workspaceId: string, id: string, input: CampaignInput): CampaignRow {
  const row = getCampaign(ctx, workspaceId, id);
  if (FINAL_STATES.includes(row.status)) throw conflict(row, "be changed");
  checkReferences(ctx, workspaceId, input);
  const changes = settingsOf(input);
  const startAt = changes.startAt !== undefined ? changes.startAt : row.startAt;
  const endAt = changes.endAt !== undefined ? changes.endAt : row.endAt;
  if (startAt && endAt && endAt <= startAt) throw invalid("end_at", "must be after start_at");
  ctx.sqlite.transaction(() => {
    const now = ctx.clock.now();
    ctx.db.update(campaigns).set({ ...changes, updatedAt: now }).where(eq(campaigns.id, id)).run();
    // Numbers put on the do-not-call list after their upload are not called either.
    for (let i = 0; i < (changes.doNotCall?.length ?? 0); i += 500) {
      ctx.db
        .update(campaignContacts)
        .set({ status: "skipped", lastEndReason: "do_not_call", nextAttemptAt: null, updatedAt: now })
        .where(and(eq(campaignContacts.campaignId, id), inArray(campaignContacts.status, ["pending", "retry_scheduled"]), inArray(campaignContacts.phone, changes.doNotCall!.slice(i, i + 500))))
        .run();
    }
    if (row.status === "running") wakeDispatcher(ctx, row);
  })();
  return getCampaign(ctx, workspaceId, id);
}

export function deleteCampaign(ctx: AppContext, workspaceId: string, id: string): void {
  const row = getCampaign(ctx, workspaceId, id);
  if (row.status === "running") throw new ApiError("invalid_state", "a running campaign cannot be deleted: pause or cancel it first", { errors: [{ field: "status", message: "is running" }] });
  if (contactCounts(ctx, id).dialing > 0) throw new ApiError("invalid_state", "the campaign still has calls in progress; delete it when they end");
  ctx.db.delete(campaigns).where(eq(campaigns.id, id)).run();
}

/** draft|paused → running: dialing starts (or resumes) now, or at `start_at`. */
/** `reach`: the carriers the credential starting it may reach; the campaign dials with no more than that. */
export function startCampaign(ctx: AppContext, workspaceId: string, id: string, reach: CarrierReach = "any"): CampaignRow {
  const row = getCampaign(ctx, workspaceId, id);
  if (row.status !== "draft" && row.status !== "paused") throw conflict(row, "be started");
  const counts = contactCounts(ctx, id);
  if (counts.pending + counts.retry_scheduled + counts.dialing === 0) throw new ApiError("invalid_state", "the campaign has no contacts to call: upload a CSV first", { errors: [{ field: "contacts", message: "none waiting" }] });
  const now = ctx.clock.now();
  ctx.sqlite.transaction(() => {
    ctx.db.update(campaigns).set({ status: "running", reach, lastError: null, startedAt: row.startedAt ?? now, updatedAt: now }).where(eq(campaigns.id, id)).run();
    wakeDispatcher(ctx, row);
  })();
  return getCampaign(ctx, workspaceId, id);
}

/** running → paused: no new dials; calls in progress finish. */
export function pauseCampaign(ctx: AppContext, workspaceId: string, id: string): CampaignRow {
  const row = getCampaign(ctx, workspaceId, id);
  if (row.status !== "running") throw conflict(row, "be paused");
  ctx.db.update(campaigns).set({ status: "paused", updatedAt: ctx.clock.now() }).where(eq(campaigns.id, id)).run();
  return getCampaign(ctx, workspaceId, id);
}

/** Any non-final state → canceled, for good: waiting contacts are canceled, calls in progress finish. */
export function cancelCampaign(ctx: AppContext, workspaceId: string, id: string): CampaignRow {
  const row = getCampaign(ctx, workspaceId, id);
  if (FINAL_STATES.includes(row.status)) throw conflict(row, "be canceled");
  const now = ctx.clock.now();
  ctx.sqlite.transaction(() => {
    ctx.db.update(campaigns).set({ status: "canceled", completedAt: now, updatedAt: now }).where(eq(campaigns.id, id)).run();
    ctx.db
      .update(campaignContacts)
      .set({ status: "canceled", nextAttemptAt: null, updatedAt: now })
      .where(and(eq(campaignContacts.campaignId, id), inArray(campaignContacts.status, ["pending", "retry_scheduled"])))
      .run();
  })();
  return getCampaign(ctx, workspaceId, id);
}

export function listContacts(ctx: AppContext, workspaceId: string, id: string, options: { limit: number; after: number | null; status?: ContactStatus }): ContactRow[] {
  getCampaign(ctx, workspaceId, id);
  const conditions: SQL[] = [eq(campaignContacts.campaignId, id)];
  if (options.status) conditions.push(eq(campaignContacts.status, options.status));
  if (options.after !== null) conditions.push(gt(campaignContacts.id, options.after));
  return ctx.db.select().from(campaignContacts).where(and(...conditions)).orderBy(campaignContacts.id).limit(options.limit + 1).all();
}
