// Which brand each host stands for, kept in memory: every request's Host is matched against it, so it
// must not cost a query. Any change through this process drops it; it is read again at most a minute
// later in any case (a workspace deleted elsewhere takes its domains with it).
import type { AppContext } from "../../core/context.ts";
import type { HostBrand } from "../../http/host-brand.ts";
import { WHITE_LABEL_LIMITS } from "./limits.ts";
import { findBranding, findLogoRef, verifiedDomainBrands, type BrandingRow, type LogoRef } from "./repo.ts";

/** A brand as pages show it: the stored row (null before one is saved) and its uploaded logo. */
export interface StoredBrand {
  brand: BrandingRow | null;
  logo: LogoRef | null;
}

interface Directory {
  loadedAt: number;
  /** Verified custom domains → their workspace's brand. */
  domains: Map<string, StoredBrand>;
  /** The operator workspace's brand: the instance's default where it set one. */
  instance: StoredBrand;
}

const directories = new WeakMap<AppContext, Directory>();

/** The operator's workspace id, or null before there is one (handed over by the composition root). */
export type OperatorWorkspace = () => string | null;

/** Drop what is cached: the next request reads domains and brands again. */
export function forgetBrandDirectory(ctx: AppContext): void {
  directories.delete(ctx);
}

function directory(ctx: AppContext, operatorWorkspace: OperatorWorkspace): Directory {
  const now = ctx.clock.now();
  let current = directories.get(ctx);
  if (current && now - current.loadedAt < WHITE_LABEL_LIMITS.directoryTtlMs && now >= current.loadedAt) return current;
  const operatorId = operatorWorkspace();
  current = {
    loadedAt: now,
    domains: new Map(verifiedDomainBrands(ctx.db).map(({ domain, brand, logo }) => [domain, { brand, logo }])),
    instance: operatorId ? { brand: findBranding(ctx.db, operatorId) ?? null, logo: findLogoRef(ctx.db, operatorId) ?? null } : { brand: null, logo: null },
  };
  directories.set(ctx, current);
  return current;
}

/** The brand of a verified custom domain, or null for any other host. */
export function brandOfDomain(ctx: AppContext, operatorWorkspace: OperatorWorkspace, domain: string): StoredBrand | null {
  return directory(ctx, operatorWorkspace).domains.get(domain) ?? null;
}

/** The instance's default brand: the operator's, where it saved one. */
export function instanceBrand(ctx: AppContext, operatorWorkspace: OperatorWorkspace): StoredBrand {
  return directory(ctx, operatorWorkspace).instance;
}

/** What the Host of a request picks: a verified domain's brand, else the instance's. */
export function hostBrandLookup(ctx: AppContext, operatorWorkspace: OperatorWorkspace) {
  return (host: string): HostBrand => {
    const instanceName = instanceBrand(ctx, operatorWorkspace).brand?.productName ?? ctx.brand.name;
    const custom = brandOfDomain(ctx, operatorWorkspace, host);
    if (!custom) return { domain: null, productName: instanceName, keyPrefixSlug: null };
    return { domain: host, productName: custom.brand?.productName ?? instanceName, keyPrefixSlug: custom.brand?.keyPrefixSlug ?? null };
  };
}
