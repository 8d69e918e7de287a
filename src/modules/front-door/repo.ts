import { and, asc, desc, eq, gt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import { clientEvents, contactMessages, demoCalls, newsletterSubscriptions } from "../../db/schema/index.ts";
import type { ClientEventRow, ContactMessageRow, DemoCallRow, NewsletterRow } from "./models.ts";

export function insertContactMessage(db: Db, row: ContactMessageRow): void {
  db.insert(contactMessages).values(row).run();
}

/** When each of a visitor's contact messages since `since` was sent, oldest first. */
export function contactTimesSince(db: Db, visitor: string, since: number): number[] {
  return db
    .select({ at: contactMessages.createdAt })
    .from(contactMessages)
    .where(and(eq(contactMessages.visitor, visitor), gt(contactMessages.createdAt, since)))
    .orderBy(asc(contactMessages.createdAt))
    .all()
    .map((row) => row.at);
}

export function listContactMessages(db: Db, page: PageRequest): ContactMessageRow[] {
  return db
    .select()
    .from(contactMessages)
    .where(afterCursor(contactMessages.createdAt, contactMessages.id, page.after))
    .orderBy(desc(contactMessages.createdAt), desc(contactMessages.id))
    .limit(page.limit + 1)
    .all();
}

export function findSubscriptionByEmail(db: Db, email: string): NewsletterRow | undefined {
  return db.select().from(newsletterSubscriptions).where(eq(newsletterSubscriptions.email, email)).get();
}

export function findSubscriptionByTokenHash(db: Db, tokenHash: string): NewsletterRow | undefined {
  return db.select().from(newsletterSubscriptions).where(eq(newsletterSubscriptions.tokenHash, tokenHash)).get();
}

export function findSubscription(db: Db, id: string): NewsletterRow | undefined {
  return db.select().from(newsletterSubscriptions).where(eq(newsletterSubscriptions.id, id)).get();
}

export function insertSubscription(db: Db, row: NewsletterRow): void {
  db.insert(newsletterSubscriptions).values(row).run();
}

export function updateSubscription(db: Db, id: string, changes: Partial<NewsletterRow>): void {
  db.update(newsletterSubscriptions).set(changes).where(eq(newsletterSubscriptions.id, id)).run();
}

export function listSubscriptions(db: Db, filter: { status?: NewsletterRow["status"] }, page: PageRequest): NewsletterRow[] {
  const conditions: (SQL | undefined)[] = [afterCursor(newsletterSubscriptions.createdAt, newsletterSubscriptions.id, page.after)];
  if (filter.status) conditions.push(eq(newsletterSubscriptions.status, filter.status));
  return db
    .select()
    .from(newsletterSubscriptions)
    .where(and(...conditions))
    .orderBy(desc(newsletterSubscriptions.createdAt), desc(newsletterSubscriptions.id))
    .limit(page.limit + 1)
    .all();
}

export function insertClientEvents(db: Db, rows: ClientEventRow[]): void {
  if (rows.length) db.insert(clientEvents).values(rows).run();
}

/** Newest received first (the order they are listed and exported in). */
export function listClientEvents(db: Db, page: PageRequest): ClientEventRow[] {
  return db
    .select()
    .from(clientEvents)
    .where(afterCursor(clientEvents.receivedAt, clientEvents.id, page.after))
    .orderBy(desc(clientEvents.receivedAt), desc(clientEvents.id))
    .limit(page.limit + 1)
    .all();
}

export function insertDemoCall(db: Db, row: DemoCallRow): void {
  db.insert(demoCalls).values(row).run();
}

/** When each demo call to `number` (or from `visitor`) since `since` was placed, oldest first. */
export function demoCallTimesSince(db: Db, by: { number: string } | { visitor: string }, since: number): number[] {
  const who = "number" in by ? eq(demoCalls.number, by.number) : eq(demoCalls.visitor, by.visitor);
  return db
    .select({ at: demoCalls.createdAt })
    .from(demoCalls)
    .where(and(who, gt(demoCalls.createdAt, since)))
    .orderBy(asc(demoCalls.createdAt))
    .all()
    .map((row) => row.at);
}
