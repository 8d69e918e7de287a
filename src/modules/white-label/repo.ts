import { and, asc, count, eq } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { brandDomains, brandings, brandLogos } from "../../db/schema/index.ts";

export type BrandingRow = typeof brandings.$inferSelect;
export type BrandDomainRow = typeof brandDomains.$inferSelect;
/** An uploaded logo without its bytes (what pages and links need). */
export type LogoRef = { sha256: string; contentType: string };

export function findBranding(db: Db, workspaceId: string): BrandingRow | undefined {
  return db.select().from(brandings).where(eq(brandings.workspaceId, workspaceId)).get();
}

export function findLogoRef(db: Db, workspaceId: string): LogoRef | undefined {
  return db.select({ sha256: brandLogos.sha256, contentType: brandLogos.contentType }).from(brandLogos).where(eq(brandLogos.workspaceId, workspaceId)).get();
}

/** A logo's bytes by content hash (any workspace's: the same bytes are the same logo). */
export function findLogoBySha(db: Db, sha256: string): { contentType: string; bytes: Buffer } | undefined {
  return db.select({ contentType: brandLogos.contentType, bytes: brandLogos.bytes }).from(brandLogos).where(eq(brandLogos.sha256, sha256)).get();
}

/** The whole brand in one transaction: the row replaced, the logo replaced, kept (`"keep"`) or removed (null). */
export function replaceBranding(db: Db, row: BrandingRow, logo: { contentType: string; sha256: string; bytes: Buffer } | "keep" | null): void {
  const { workspaceId: _key, ...fields } = row;
  db.transaction((tx) => {
    tx.insert(brandings).values(row).onConflictDoUpdate({ target: brandings.workspaceId, set: fields }).run();
    if (logo === "keep") return;
    tx.delete(brandLogos).where(eq(brandLogos.workspaceId, row.workspaceId)).run();
    if (logo) tx.insert(brandLogos).values({ workspaceId: row.workspaceId, ...logo, updatedAt: row.updatedAt }).run();
  });
}

export function listDomains(db: Db, workspaceId: string): BrandDomainRow[] {
  return db.select().from(brandDomains).where(eq(brandDomains.workspaceId, workspaceId)).orderBy(asc(brandDomains.createdAt), asc(brandDomains.domain)).all();
}

export function countDomains(db: Db, workspaceId: string): number {
  return db.select({ n: count() }).from(brandDomains).where(eq(brandDomains.workspaceId, workspaceId)).get()?.n ?? 0;
}

/** A domain whoever holds it (attaching checks it is free). */
export function findDomain(db: Db, domain: string): BrandDomainRow | undefined {
  return db.select().from(brandDomains).where(eq(brandDomains.domain, domain)).get();
}

export function findOwnDomain(db: Db, workspaceId: string, domain: string): BrandDomainRow | undefined {
  return db.select().from(brandDomains).where(and(eq(brandDomains.domain, domain), eq(brandDomains.workspaceId, workspaceId))).get();
}

export function insertDomain(db: Db, row: BrandDomainRow): void {
  db.insert(brandDomains).values(row).run();
}

export function updateDomain(db: Db, workspaceId: string, domain: string, changes: Partial<BrandDomainRow>): void {
  db.update(brandDomains).set(changes).where(and(eq(brandDomains.domain, domain), eq(brandDomains.workspaceId, workspaceId))).run();
}

export function deleteDomain(db: Db, workspaceId: string, domain: string): boolean {
  return db.delete(brandDomains).where(and(eq(brandDomains.domain, domain), eq(brandDomains.workspaceId, workspaceId))).run().changes > 0;
}

/** Every verified domain with its workspace's brand and logo (for the in-memory directory). */
export function verifiedDomainBrands(db: Db): { domain: string; brand: BrandingRow | null; logo: LogoRef | null }[] {
  return db
    .select({ domain: brandDomains.domain, brand: brandings, sha256: brandLogos.sha256, contentType: brandLogos.contentType })
    .from(brandDomains)
    .leftJoin(brandings, eq(brandings.workspaceId, brandDomains.workspaceId))
    .leftJoin(brandLogos, eq(brandLogos.workspaceId, brandDomains.workspaceId))
    .where(eq(brandDomains.status, "verified"))
    .all()
    .map((row) => ({ domain: row.domain, brand: row.brand, logo: row.sha256 && row.contentType ? { sha256: row.sha256, contentType: row.contentType } : null }));
}
