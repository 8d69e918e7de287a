import type { AppContext } from "../../core/context.ts";
import { ApiError, type FieldError } from "../../http/errors.ts";
import { toIso } from "../../lib/time.ts";
import { sanitizeCss } from "./css.ts";
import { brandOfDomain, forgetBrandDirectory, instanceBrand, type OperatorWorkspace, type StoredBrand } from "./directory.ts";
import { normalizeDomain, verificationRecordName } from "./domain-names.ts";
import { WHITE_LABEL_LIMITS } from "./limits.ts";
import { decodeLogo, logoPath, type Logo } from "./logo.ts";
import { COLOR_KEYS, DEFAULT_COLORS, domainJson, type WhiteLabelUpdateInput } from "./models.ts";
import * as repo from "./repo.ts";
import type { BrandingRow, LogoRef } from "./repo.ts";

/** Where pages find a brand's logo: the served upload (on `base`), else its external URL. */
function logoUrlOf(brand: BrandingRow | null, logo: LogoRef | null, base: string): string | null {
  return logo ? `${base}${logoPath(logo)}` : (brand?.logoUrl ?? null);
}

/** The workspace's brand as its admins see it (GET and PUT /v1/white-label), links on `base`. */
export function whiteLabelJson(ctx: AppContext, workspaceId: string, base: string) {
  const brand = repo.findBranding(ctx.db, workspaceId) ?? null;
  const logo = repo.findLogoRef(ctx.db, workspaceId) ?? null;
  return {
    object: "white_label" as const,
    product_name: brand?.productName ?? null,
    logo_url: logoUrlOf(brand, logo, base),
    logo: logo ? { content_type: logo.contentType, sha256: logo.sha256, url: `${base}${logoPath(logo)}` } : null,
    colors: brand?.colors ?? {},
    support_email: brand?.supportEmail ?? null,
    custom_css: brand?.customCss ?? null,
    email_sender_name: brand?.emailSenderName ?? null,
    key_prefix_slug: brand?.keyPrefixSlug ?? null,
    key_prefixes_enabled: ctx.config.whiteLabelKeyPrefixes,
    domains: repo.listDomains(ctx.db, workspaceId).map((row) => domainJson(row, verificationRecordName(ctx.config.brandSlug, row.domain))),
    updated_at: toIso(brand?.updatedAt),
  };
}

/** Replaces the whole brand: a field left out is cleared. Every bad field is named at once (422); an oversized logo is 413. */
export function replaceBrand(ctx: AppContext, workspaceId: string, input: WhiteLabelUpdateInput): void {
  const errors: FieldError[] = [];
  const current = repo.findLogoRef(ctx.db, workspaceId) ?? null;
  let logo: Logo | "keep" | null = null;
  let logoUrl: string | null = null;
  if (input.logo && input.logo_url) errors.push({ field: "logo", message: "give logo (an upload) or logo_url, not both" });
  else if (input.logo) logo = fieldErrors(errors, () => decodeLogo(input.logo!)) ?? null;
  else if (input.logo_url) {
    if (current && pathOf(input.logo_url) === logoPath(current)) logo = "keep";
    else logoUrl = checkLogoUrl(input.logo_url, errors);
  }
  const row: repo.BrandingRow = {
    workspaceId,
    productName: text(input.product_name, "product_name", errors),
    logoUrl,
    colors: colorsOf(input.colors),
    supportEmail: input.support_email?.trim() || null,
    customCss: css(input.custom_css, errors),
    emailSenderName: senderName(input.email_sender_name, errors),
    keyPrefixSlug: input.key_prefix_slug ?? null,
    updatedAt: ctx.clock.now(),
  };
  if (errors.length) throw new ApiError("validation_failed", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });
  repo.replaceBranding(ctx.db, row, logo);
  forgetBrandDirectory(ctx);
}

/** Runs a check that throws a field-level 422, collecting its errors instead (other errors, e.g. 413, go on up). */
function fieldErrors<T>(errors: FieldError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "validation_failed" || !error.extra.errors) throw error;
    errors.push(...error.extra.errors);
    return undefined;
  }
}

function pathOf(url: string): string | null {
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

function checkLogoUrl(value: string, errors: FieldError[]): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    errors.push({ field: "logo_url", message: "must be an absolute https URL" });
    return null;
  }
  if (url.protocol !== "https:") errors.push({ field: "logo_url", message: "must be an https URL (pages on your domain are https, and mixed content is blocked)" });
  else if (url.username || url.password) errors.push({ field: "logo_url", message: "must not contain a user name or password" });
  return url.toString();
}

function text(value: string | null | undefined, field: string, errors: FieldError[]): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  if (!trimmed) errors.push({ field, message: "must not be blank (send null to clear it)" });
  return trimmed || null;
}

/** A display name for the From header: no line breaks or characters that would end the name. */
function senderName(value: string | null | undefined, errors: FieldError[]): string | null {
  const name = text(value, "email_sender_name", errors);
  if (name && /[\u0000-\u001f\u007f<>"@\\]/.test(name)) errors.push({ field: "email_sender_name", message: 'must not contain line breaks, control characters or any of < > " @ \\' });
  return name;
}

function css(value: string | null | undefined, errors: FieldError[]): string | null {
  if (!value) return null;
  const size = Buffer.byteLength(value, "utf8");
  if (size > WHITE_LABEL_LIMITS.customCssBytes) {
    errors.push({ field: "custom_css", message: `is ${size} bytes; the most allowed is ${WHITE_LABEL_LIMITS.customCssBytes}` });
    return null;
  }
  return sanitizeCss(value) || null;
}

function colorsOf(input: WhiteLabelUpdateInput["colors"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of COLOR_KEYS) if (input?.[key]) out[key] = input[key]!.toLowerCase();
  return out;
}

/**
 * GET /v1/branding/{domain}: a verified domain's brand, else the instance's default (the operator's
 * brand where it set one, else the configured name), with Parley's colours under whatever is unset.
 */
export function publicBranding(ctx: AppContext, operatorWorkspace: OperatorWorkspace, asked: string, base: string) {
  const normalized = normalizeDomain(asked);
  const domain = "domain" in normalized ? normalized.domain : asked.trim().toLowerCase();
  const custom = "domain" in normalized ? brandOfDomain(ctx, operatorWorkspace, normalized.domain) : null;
  const instance = instanceBrand(ctx, operatorWorkspace);
  const { brand, logo }: StoredBrand = custom ?? instance;
  const productName = brand?.productName ?? instance.brand?.productName ?? ctx.brand.name;
  return {
    object: "branding" as const,
    domain,
    source: custom ? ("domain" as const) : ("instance" as const),
    product_name: productName,
    logo_url: logoUrlOf(brand, logo, base),
    colors: { ...DEFAULT_COLORS, ...(brand?.colors ?? {}) },
    support_email: brand?.supportEmail ?? null,
    custom_css: brand?.customCss ?? null,
    email_sender_name: brand?.emailSenderName ?? productName,
  };
}
