// The brand a request is served under, picked by its Host header: a reseller's verified custom domain
// gets the reseller's brand and links on that domain; any other host gets the instance's own.
import type { AppContext } from "../core/context.ts";

/** What the Host of a request says about the brand answering it. */
export interface HostBrand {
  /** The verified custom domain the request arrived on; null on any other host. */
  domain: string | null;
  /** The product name to show (the instance default off custom domains). */
  productName: string;
  /** The slug a key created on this domain may carry (`sk_<slug>_live_`), when the brand set one. */
  keyPrefixSlug: string | null;
}

/** The brand of a normalised host name; the white-label feature answers it (installed by the composition root). */
export type HostBrandLookup = (host: string) => HostBrand;

export interface HostBrands {
  lookup: HostBrandLookup;
}

/** Until a feature installs its lookup, every host is the instance's own. */
export function instanceHostBrands(ctx: AppContext): HostBrands {
  return { lookup: () => ({ domain: null, productName: ctx.brand.name, keyPrefixSlug: null }) };
}

/** `Host` in the form domains are stored in: lower case, without port or trailing dot (null when absent). */
export function hostOf(request: Request): string | null {
  const header = request.headers.get("host")?.trim().toLowerCase();
  if (!header) return null;
  const host = header.startsWith("[") ? header.slice(0, header.indexOf("]") + 1) : header.replace(/:\d*$/, "");
  return host.replace(/\.$/, "") || null;
}

/** The context these helpers read (the HTTP context, named structurally: it imports this file). */
type Branded = AppContext & { hostBrands: HostBrands };

const seen = new WeakMap<Request, HostBrand>();

/** The brand of this request, looked up once per request. */
export function requestBrand(ctx: Branded, request: Request): HostBrand {
  let brand = seen.get(request);
  if (!brand) {
    // No Host (HTTP/1.0) matches no custom domain: the instance's brand.
    brand = ctx.hostBrands.lookup(hostOf(request) ?? "");
    seen.set(request, brand);
  }
  return brand;
}

/** The base of links handed out in answers to this request: its custom domain (always https), else the public URL. */
export function linkBase(ctx: Branded, request: Request): string {
  const { domain } = requestBrand(ctx, request);
  return domain ? `https://${domain}` : ctx.publicUrl;
}

/** A link built from the public URL (http or ws form), moved onto this request's base. */
export function rebaseLink(ctx: Branded, request: Request, url: string): string {
  const base = linkBase(ctx, request);
  if (base === ctx.publicUrl) return url;
  for (const [from, to] of [[ctx.publicUrl, base], [ctx.publicUrl.replace(/^http/, "ws"), base.replace(/^http/, "ws")]]) {
    if (url === from || url.startsWith(`${from}/`) || url.startsWith(`${from}?`)) return to + url.slice(from.length);
  }
  return url;
}

/** The slug of keys created by this request: the brand's, where the operator allows it (--white-label-key-prefixes). */
export function keySlugFor(ctx: Branded, request: Request): string {
  const brand = requestBrand(ctx, request);
  return (ctx.config.whiteLabelKeyPrefixes && brand.keyPrefixSlug) || ctx.brand.slug;
}
