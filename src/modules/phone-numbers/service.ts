import { and, desc, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { phoneNumbers } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { availableNumbers, isFictional } from "../../telephony/simulated/inventory.ts";
import { referencedAgent } from "../agents/service.ts";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

/** Numbers whose calls an agent answers. */
export const numbersUsingAgent = (ctx: AppContext, workspaceId: string, agentId: string): string[] =>
  ctx.db
    .select({ number: phoneNumbers.number })
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.agentId, agentId)))
    .all()
    .map((row) => `phone number ${row.number} is assigned to it`);

function checkCarrier(carrierId: string | undefined, field: string): string {
  if (carrierId === undefined || carrierId === "simulated") return "simulated";
  throw invalid(field, "only the built-in simulated carrier is available until a carrier connection is added");
}

const taken = (ctx: AppContext) => (number: string) => Boolean(ctx.db.select({ id: phoneNumbers.id }).from(phoneNumbers).where(eq(phoneNumbers.number, number)).get());

export function searchAvailable(ctx: AppContext, query: { area_code?: string; contains?: string; carrier_id?: string; limit?: number }) {
  checkCarrier(query.carrier_id, "carrier_id");
  return availableNumbers({ areaCode: query.area_code, contains: query.contains, limit: query.limit ?? 20 }, taken(ctx)).map((number) => ({
    object: "available_number" as const,
    number,
    carrier: "simulated",
    region: `US ${number.slice(2, 5)}`,
  }));
}

function insertNumber(ctx: AppContext, workspaceId: string, number: string, carrier: string, label: string | undefined): PhoneNumberRow {
  const now = ctx.clock.now();
  const row: PhoneNumberRow = { id: newId("pn"), workspaceId, number, carrier, label: label ?? null, agentId: null, inbound: { enabled: true, variables: {} }, createdAt: now, updatedAt: now };
  try {
    ctx.db.insert(phoneNumbers).values(row).run();
  } catch (error) {
    if (String((error as Error).message).includes("UNIQUE")) throw new ApiError("number_unavailable", `${number} is already taken`, { errors: [{ field: "number", message: "is already taken" }] });
    throw error;
  }
  return row;
}

/** A number from the carrier's inventory: the one asked for, or the first free one in the area code. */
export function buyNumber(ctx: AppContext, workspaceId: string, input: { number?: string; area_code?: string; carrier_id?: string; label?: string }): PhoneNumberRow {
  const carrier = checkCarrier(input.carrier_id, "carrier_id");
  let number = input.number;
  if (number) {
    if (!isFictional(number)) throw invalid("number", "the simulated carrier sells only numbers of the fictional 555-01XX range (e.g. +14155550123)");
  } else {
    [number] = availableNumbers({ areaCode: input.area_code, limit: 1 }, taken(ctx));
    if (!number) throw new ApiError("number_unavailable", `no numbers left in area code ${input.area_code}`);
  }
  return insertNumber(ctx, workspaceId, number, carrier, input.label);
}

/** Bring your own number: registers it for inbound routing and outbound caller id. */
export function importNumber(ctx: AppContext, workspaceId: string, input: { number: string; carrier?: string; label?: string }): PhoneNumberRow {
  return insertNumber(ctx, workspaceId, input.number, checkCarrier(input.carrier, "carrier"), input.label);
}

export function getPhoneNumber(ctx: AppContext, workspaceId: string, id: string): PhoneNumberRow {
  const row = ctx.db.select().from(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).get();
  if (!row) throw notFound("phone number");
  return row;
}

export function listPhoneNumbers(ctx: AppContext, workspaceId: string, page: PageRequest): PhoneNumberRow[] {
  return ctx.db
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.workspaceId, workspaceId), afterCursor(phoneNumbers.createdAt, phoneNumbers.id, page.after)))
    .orderBy(desc(phoneNumbers.createdAt), desc(phoneNumbers.id))
    .limit(page.limit + 1)
    .all();
}

export function updatePhoneNumber(ctx: AppContext, workspaceId: string, id: string, input: { label?: string | null; inbound?: { enabled?: boolean; variables?: Record<string, unknown> } }): PhoneNumberRow {
  const current = getPhoneNumber(ctx, workspaceId, id);
  const changes: Partial<PhoneNumberRow> = { updatedAt: ctx.clock.now() };
  if (input.label !== undefined) changes.label = input.label;
  if (input.inbound) changes.inbound = { ...(current.inbound as object), ...input.inbound };
  ctx.db.update(phoneNumbers).set(changes).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).run();
  return getPhoneNumber(ctx, workspaceId, id);
}

export function assignNumber(ctx: AppContext, workspaceId: string, id: string, agentId: string | null): PhoneNumberRow {
  getPhoneNumber(ctx, workspaceId, id);
  if (agentId) {
    referencedAgent(ctx, workspaceId, agentId);
  }
  ctx.db.update(phoneNumbers).set({ agentId, updatedAt: ctx.clock.now() }).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).run();
  return getPhoneNumber(ctx, workspaceId, id);
}

export function releaseNumber(ctx: AppContext, workspaceId: string, id: string): void {
  getPhoneNumber(ctx, workspaceId, id);
  ctx.db.delete(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).run();
}

/** The agent's own number: the caller id of its outbound calls when none is given. */
export function numberOfAgent(ctx: AppContext, workspaceId: string, agentId: string): PhoneNumberRow | undefined {
  return ctx.db.select().from(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.agentId, agentId))).orderBy(phoneNumbers.createdAt).get();
}

export function findNumberById(ctx: AppContext, workspaceId: string, id: string): PhoneNumberRow | undefined {
  return ctx.db.select().from(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).get();
}

export function findOwnedNumber(ctx: AppContext, workspaceId: string, number: string): PhoneNumberRow | undefined {
  return ctx.db.select().from(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.number, number))).get();
}

/** Inbound routing: whose number is this, across the instance. */
export function findNumberAnywhere(ctx: AppContext, number: string): PhoneNumberRow | undefined {
  return ctx.db.select().from(phoneNumbers).where(eq(phoneNumbers.number, number)).get();
}
