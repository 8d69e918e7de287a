// Custom domains: attached pending, proven by a DNS TXT record (or at once where the operator skips
// the check), detached at will. Only verified domains pick a brand.
import type { AppContext } from "../../core/context.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { randomBase62 } from "../../lib/random.ts";
import { lookupTxt } from "./dns-check.ts";
import { forgetBrandDirectory } from "./directory.ts";
import { normalizeDomain, verificationRecordName } from "./domain-names.ts";
import { WHITE_LABEL_LIMITS } from "./limits.ts";
import * as repo from "./repo.ts";
import type { BrandDomainRow } from "./repo.ts";

/** The host names of the instance's own URLs: no workspace may claim them. */
function ownHosts(ctx: AppContext): string[] {
  return [ctx.publicUrl, ctx.config.publicUrl, ctx.config.dashboardUrl].flatMap((url) => {
    try {
      return url ? [new URL(url).hostname.toLowerCase()] : [];
    } catch {
      return [];
    }
  });
}

/** Attaches a domain (201), or answers the one this workspace already attached (200); 409 when another workspace holds it. */
export function attachDomain(ctx: AppContext, workspaceId: string, raw: string): { row: BrandDomainRow; created: boolean } {
  const normalized = normalizeDomain(raw);
  if ("error" in normalized) throw invalid("domain", normalized.error);
  const { domain } = normalized;
  if (ownHosts(ctx).includes(domain)) throw invalid("domain", `${domain} is this instance's own address; attach a domain of yours`);
  const existing = repo.findDomain(ctx.db, domain);
  if (existing?.workspaceId === workspaceId) return { row: existing, created: false };
  if (existing) throw new ApiError("conflict", `${domain} is attached to another workspace`);
  if (repo.countDomains(ctx.db, workspaceId) >= WHITE_LABEL_LIMITS.domainsPerWorkspace) {
    throw new ApiError("invalid_state", `this workspace has ${WHITE_LABEL_LIMITS.domainsPerWorkspace} domains, the most allowed; detach one first`);
  }
  const now = ctx.clock.now();
  const skip = ctx.config.domainVerification === "skip";
  const row: BrandDomainRow = {
    domain,
    workspaceId,
    verificationToken: `${ctx.config.brandSlug}-verify-${randomBase62(32)}`,
    status: skip ? "verified" : "pending",
    verifiedAt: skip ? now : null,
    verifiedBy: skip ? "operator" : null,
    lastCheckedAt: null,
    lastError: null,
    createdAt: now,
  };
  try {
    repo.insertDomain(ctx.db, row);
  } catch (error) {
    // Two workspaces attaching the same name at once: the primary key lets one in.
    if (repo.findDomain(ctx.db, domain)) throw new ApiError("conflict", `${domain} is attached to another workspace`);
    throw error;
  }
  if (skip) forgetBrandDirectory(ctx);
  return { row, created: true };
}

/** This workspace's domain by the name a path gives, or 404 (another workspace's domains do not exist here). */
export function ownDomain(ctx: AppContext, workspaceId: string, raw: string): BrandDomainRow {
  const normalized = normalizeDomain(raw);
  const row = "domain" in normalized ? repo.findOwnDomain(ctx.db, workspaceId, normalized.domain) : undefined;
  if (!row) throw notFound("domain");
  return row;
}

/**
 * Looks the TXT record up and marks the domain verified when one value is its token; otherwise 409
 * `domain_not_verified` saying what DNS answered (kept as `last_error`). Already verified: unchanged.
 */
export async function verifyDomain(ctx: AppContext, workspaceId: string, raw: string): Promise<BrandDomainRow> {
  const row = ownDomain(ctx, workspaceId, raw);
  if (row.status === "verified") return row;
  if (ctx.config.domainVerification === "skip") return markVerified(ctx, workspaceId, row, "operator");
  const name = verificationRecordName(ctx.config.brandSlug, row.domain);
  const answer = await lookupTxt(ctx.config.dnsServers, name);
  if (answer.found === "records" && answer.values.some((value) => value.trim() === row.verificationToken)) return markVerified(ctx, workspaceId, row, "dns");
  const found =
    answer.found === "records"
      ? `the TXT records there are ${answer.values.slice(0, 5).map((value) => JSON.stringify(value.slice(0, 100))).join(", ")}, none of them the token`
      : answer.found === "nothing"
        ? "there is no TXT record there"
        : `DNS did not answer (${answer.code}); try again later`;
  const lastError = `looked up TXT ${name}: ${found}`;
  repo.updateDomain(ctx.db, workspaceId, row.domain, { lastCheckedAt: ctx.clock.now(), lastError });
  throw new ApiError("domain_not_verified", `${lastError}. Create a TXT record named ${name} with the value ${row.verificationToken}, then verify again`);
}

function markVerified(ctx: AppContext, workspaceId: string, row: BrandDomainRow, by: "dns" | "operator"): BrandDomainRow {
  const now = ctx.clock.now();
  repo.updateDomain(ctx.db, workspaceId, row.domain, { status: "verified", verifiedAt: now, verifiedBy: by, lastCheckedAt: by === "dns" ? now : row.lastCheckedAt, lastError: null });
  forgetBrandDirectory(ctx);
  // Detached while DNS was asked: gone.
  return ownDomain(ctx, workspaceId, row.domain);
}

/** Detaches a domain: its requests get the instance's brand from the next one on. */
export function detachDomain(ctx: AppContext, workspaceId: string, raw: string): void {
  const row = ownDomain(ctx, workspaceId, raw);
  repo.deleteDomain(ctx.db, workspaceId, row.domain);
  forgetBrandDirectory(ctx);
}
