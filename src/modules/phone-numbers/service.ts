import { and, desc, eq, type SQL } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { phoneNumbers } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { SIMULATED_CONNECTION_ID } from "../../telephony/connections.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import { checkReach, type CarrierReach } from "../../telephony/reach.ts";
import type { Carrier } from "../../telephony/types.ts";
import { referencedAgent } from "../agents/service.ts";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

/** The workspace's numbers matching a condition, each as a sentence saying why it matters. */
const numbersDescribed = (ctx: AppContext, workspaceId: string, condition: SQL, says: string): string[] =>
  ctx.db
    .select({ number: phoneNumbers.number })
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.workspaceId, workspaceId), condition))
    .all()
    .map((row) => `phone number ${row.number} ${says}`);

/** Numbers whose calls an agent answers. */
export const numbersUsingAgent = (ctx: AppContext, workspaceId: string, agentId: string): string[] =>
  numbersDescribed(ctx, workspaceId, eq(phoneNumbers.agentId, agentId), "is assigned to it");

/** Numbers on a carrier connection, one sentence each (it cannot be removed while any is left). */
export const numbersOnCarrier = (ctx: AppContext, workspaceId: string, connectionId: string): string[] =>
  numbersDescribed(ctx, workspaceId, eq(phoneNumbers.carrier, connectionId), "is on it");

/** The workspace's carrier connection a request names (the built-in simulated one by default). */
function carrierNamed(carriers: CarrierRegistry, workspaceId: string, id: string | undefined, field: string, reach: CarrierReach): Carrier {
  const carrier = carriers.carrier(workspaceId, id ?? SIMULATED_CONNECTION_ID);
  if (!carrier) throw invalid(field, `no carrier connection ${id} in this workspace (GET /v1/telephony/carriers lists them)`);
  checkReach(carrier, reach);
  return carrier;
}

const taken = (ctx: AppContext) => (number: string) => Boolean(ctx.db.select({ id: phoneNumbers.id }).from(phoneNumbers).where(eq(phoneNumbers.number, number)).get());

function refuseTaken(ctx: AppContext, number: string): void {
  if (taken(ctx)(number)) throw new ApiError("number_unavailable", `${number} is already taken`, { errors: [{ field: "number", message: "is already taken" }] });
}

export async function searchAvailable(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, query: { area_code?: string; contains?: string; carrier_id?: string; limit?: number }, reach: CarrierReach = "any") {
  const carrier = carrierNamed(carriers, workspaceId, query.carrier_id, "carrier_id", reach);
  const found = await carrier.numbers.search({ areaCode: query.area_code, contains: query.contains, limit: query.limit ?? 20 }, taken(ctx));
  return found.map((available) => ({ object: "available_number" as const, number: available.number, carrier: carrier.connectionId, region: available.region }));
}

function insertNumber(ctx: AppContext, workspaceId: string, number: string, carrier: string, label: string | undefined, origin: "bought" | "imported"): PhoneNumberRow {
  const now = ctx.clock.now();
  const row: PhoneNumberRow = { id: newId("pn"), workspaceId, number, carrier, label: label ?? null, origin, agentId: null, inbound: { enabled: true, variables: {} }, createdAt: now, updatedAt: now };
  try {
    ctx.db.insert(phoneNumbers).values(row).run();
  } catch (error) {
    if (String((error as Error).message).includes("UNIQUE")) refuseTaken(ctx, number);
    throw error;
  }
  return row;
}

/** A number from the carrier's inventory: the one asked for, or the first free one in the area code. */
export async function buyNumber(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, input: { number?: string; area_code?: string; carrier_id?: string; label?: string }, reach: CarrierReach = "any"): Promise<PhoneNumberRow> {
  const carrier = carrierNamed(carriers, workspaceId, input.carrier_id, "carrier_id", reach);
  if (input.number) refuseTaken(ctx, input.number);
  const number = await carrier.numbers.buy({ number: input.number, areaCode: input.area_code }, taken(ctx));
  return insertNumber(ctx, workspaceId, number, carrier.connectionId, input.label, "bought");
}

/** Bring your own number: the carrier confirms it (and points its calls here); then it routes inbound calls and is a caller id. */
export async function importNumber(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, input: { number: string; carrier?: string; label?: string }, reach: CarrierReach = "any"): Promise<PhoneNumberRow> {
  const carrier = carrierNamed(carriers, workspaceId, input.carrier, "carrier", reach);
  refuseTaken(ctx, input.number);
  await carrier.numbers.adopt(input.number);
  return insertNumber(ctx, workspaceId, input.number, carrier.connectionId, input.label, "imported");
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

/** The carrier gets the number back first: a number Parley forgot but still paid for would be worse. */
export async function releaseNumber(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, id: string): Promise<void> {
  const row = getPhoneNumber(ctx, workspaceId, id);
  await carriers.carrier(workspaceId, row.carrier)?.numbers.release(row.number, row.origin);
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
