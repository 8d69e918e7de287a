import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { isUniqueViolation } from "../../db/unique-violation.ts";
import type { AppContext } from "../../core/context.ts";
import { hookPoint } from "../../core/hooks.ts";
import { phoneNumbers } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { SIMULATED_CONNECTION_ID } from "../../telephony/connections.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import { checkReach, type CarrierReach } from "../../telephony/reach.ts";
import type { Carrier } from "../../telephony/types.ts";
import { phoneNumbersPorts } from "./ports.ts";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

/** A number about to be bought or imported: a check throws an ApiError to refuse it (the wallet's 402) before the carrier is asked. */
export interface NumberAdd {
  workspaceId: string;
  /** `simulated`, `sip`, `twilio` or `telnyx`. */
  carrierKind: string;
}
export type NumberAddCheck = (ctx: AppContext, add: NumberAdd) => void;
/** Work that commits with a number's row (its first month's fee) or with its release. */
export type NumberAddedHook = (ctx: AppContext, number: PhoneNumberRow, carrierKind: string) => void;
export type NumberReleasedHook = (ctx: AppContext, number: PhoneNumberRow) => void;
const addChecks = hookPoint<NumberAddCheck>();
const addedHooks = hookPoint<NumberAddedHook>();
const releasedHooks = hookPoint<NumberReleasedHook>();

/** Installed by the composition root: who may add a number, and what commits with adding or releasing one. */
export function onNumberChanges(ctx: AppContext, hooks: { check?: NumberAddCheck; added?: NumberAddedHook; released?: NumberReleasedHook }): void {
  if (hooks.check) addChecks.add(ctx, hooks.check);
  if (hooks.added) addedHooks.add(ctx, hooks.added);
  if (hooks.released) releasedHooks.add(ctx, hooks.released);
}

function checkNumberAdd(ctx: AppContext, workspaceId: string, carrier: Carrier): void {
  for (const check of addChecks.of(ctx)) check(ctx, { workspaceId, carrierKind: carrier.kind });
}

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
  if (taken(ctx)(number)) throw takenError(number);
}

function takenError(number: string): ApiError {
  return new ApiError("number_unavailable", `${number} is already taken`, { errors: [{ field: "number", message: "is already taken" }] });
}

export async function searchAvailable(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, query: { area_code?: string; contains?: string; carrier_id?: string; limit?: number }, reach: CarrierReach = "any") {
  const carrier = carrierNamed(carriers, workspaceId, query.carrier_id, "carrier_id", reach);
  const found = await carrier.numbers.search({ areaCode: query.area_code, contains: query.contains, limit: query.limit ?? 20 }, taken(ctx));
  return found.map((available) => ({ object: "available_number" as const, number: available.number, carrier: carrier.connectionId, region: available.region }));
}

/** The number's row and what commits with it (its first month's fee), in one transaction. */
function insertNumber(ctx: AppContext, workspaceId: string, number: string, carrier: Carrier, label: string | undefined, origin: "bought" | "imported"): PhoneNumberRow {
  const now = ctx.clock.now();
  const row: PhoneNumberRow = { id: newId("pn"), workspaceId, number, carrier: carrier.connectionId, label: label ?? null, origin, agentId: null, inbound: { enabled: true, variables: {} }, createdAt: now, updatedAt: now };
  ctx.sqlite
    .transaction(() => {
      try {
        ctx.db.insert(phoneNumbers).values(row).run();
      } catch (error) {
        // Taken since it was checked (another request, another node): phone_numbers_number_unique says so.
        if (isUniqueViolation(error)) throw takenError(number);
        throw error;
      }
      for (const hook of addedHooks.of(ctx)) hook(ctx, row, carrier.kind);
    })
    .immediate();
  return row;
}

/** A number from the carrier's inventory: the one asked for, or the first free one in the area code. */
export async function buyNumber(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, input: { number?: string; area_code?: string; carrier_id?: string; label?: string }, reach: CarrierReach = "any"): Promise<PhoneNumberRow> {
  const carrier = carrierNamed(carriers, workspaceId, input.carrier_id, "carrier_id", reach);
  if (input.number) refuseTaken(ctx, input.number);
  checkNumberAdd(ctx, workspaceId, carrier);
  const number = await carrier.numbers.buy({ number: input.number, areaCode: input.area_code }, taken(ctx));
  return insertNumber(ctx, workspaceId, number, carrier, input.label, "bought");
}

/** Bring your own number: the carrier confirms it (and points its calls here); then it routes inbound calls and is a caller id. */
export async function importNumber(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, input: { number: string; carrier?: string; label?: string }, reach: CarrierReach = "any"): Promise<PhoneNumberRow> {
  const carrier = carrierNamed(carriers, workspaceId, input.carrier, "carrier", reach);
  refuseTaken(ctx, input.number);
  checkNumberAdd(ctx, workspaceId, carrier);
  await carrier.numbers.adopt(input.number);
  return insertNumber(ctx, workspaceId, input.number, carrier, input.label, "imported");
}

export function getPhoneNumber(ctx: AppContext, workspaceId: string, id: string): PhoneNumberRow {
  const row = ctx.db.select().from(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).get();
  if (!row) throw notFound("phone number");
  return row;
}

const numberPages = pagedList(phoneNumbers.createdAt, phoneNumbers.id, (db, after) =>
  db
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(phoneNumbers.createdAt), desc(phoneNumbers.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listPhoneNumbers(ctx: AppContext, workspaceId: string, page: PageRequest): PhoneNumberRow[] {
  return numberPages(ctx.db, { workspaceId }, page);
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
    phoneNumbersPorts(ctx).referencedAgent(workspaceId, agentId);
  }
  ctx.db.update(phoneNumbers).set({ agentId, updatedAt: ctx.clock.now() }).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).run();
  return getPhoneNumber(ctx, workspaceId, id);
}

/** The carrier gets the number back first: a number Parley forgot but still paid for would be worse. */
export async function releaseNumber(ctx: AppContext, carriers: CarrierRegistry, workspaceId: string, id: string): Promise<void> {
  const row = getPhoneNumber(ctx, workspaceId, id);
  await carriers.carrier(workspaceId, row.carrier)?.numbers.release(row.number, row.origin);
  ctx.sqlite
    .transaction(() => {
      const released = ctx.db.delete(phoneNumbers).where(and(eq(phoneNumbers.workspaceId, workspaceId), eq(phoneNumbers.id, id))).run().changes;
      if (released) for (const hook of releasedHooks.of(ctx)) hook(ctx, row);
    })
    .immediate();
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
