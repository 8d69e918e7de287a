import { t, type Static } from "elysia";
import { Email, NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";
import { toIso } from "../../lib/time.ts";
import { WHITE_LABEL_LIMITS } from "./limits.ts";
import { LOGO_TYPES } from "./logo.ts";
import type { BrandDomainRow } from "./repo.ts";

const Colour = (description: string) => t.String({ pattern: "^#[0-9a-fA-F]{6}$", description: `#rrggbb: ${description}` });
export const COLOR_KEYS = ["primary", "accent", "background", "text"] as const;
const colourFields = {
  primary: Colour("buttons, links and highlights"),
  accent: Colour("secondary highlights"),
  background: Colour("page background"),
  text: Colour("body text"),
};

/** Parley's own colours: what a brand that sets none (or only some) shows. */
export const DEFAULT_COLORS = { primary: "#2563eb", accent: "#7c3aed", background: "#ffffff", text: "#111827" };

const ColorsInput = t.Partial(t.Object(colourFields), { additionalProperties: false, description: "Named colours; a key left out shows Parley's default" });
const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T, description: string) => t.Union([schema, t.Null()], { description });

const brandFields = {
  product_name: Nullable(t.String({ minLength: 1, maxLength: 60 }), "What the product is called on your domains (default: the instance's name)"),
  logo_url: Nullable(
    t.String({ minLength: 1, maxLength: 2048 }),
    "An https URL of your logo; or the `logo_url` GET returned for an uploaded logo, which keeps it. Give this or `logo`, not both",
  ),
  support_email: Nullable(Email, "Where your customers write for help"),
  custom_css: Nullable(
    t.String(),
    `At most ${WHITE_LABEL_LIMITS.customCssBytes / 1024} KB. Stored sanitised: comments, \`<\`, \`@import\`, \`url()\` other than data: images (png, jpeg, gif, webp, avif), ` +
      "URL-taking functions (`image-set()`, …), `expression()`, `javascript:`, `behavior:` and `-moz-binding` are removed",
  ),
  email_sender_name: Nullable(t.String({ minLength: 1, maxLength: 60 }), "The display name of e-mails to your customers"),
  key_prefix_slug: Nullable(
    t.String({ pattern: "^[a-z][a-z0-9]{0,19}$", description: "1-20 lowercase letters or digits, starting with a letter" }),
    "Keys created on your verified domains start `sk_<slug>_live_` where the operator allows it (`key_prefixes_enabled`)",
  ),
};

export const WhiteLabelUpdate = t.Object(
  {
    product_name: t.Optional(brandFields.product_name),
    logo_url: t.Optional(brandFields.logo_url),
    logo: t.Optional(
      Nullable(
        t.Object(
          {
            content_type: t.String({ maxLength: 100, description: `One of ${Object.keys(LOGO_TYPES).join(", ")} (SVG is refused); must match the bytes` }),
            data_base64: t.String({ description: `The image, base64; at most ${WHITE_LABEL_LIMITS.logoBytes / 1024} KB decoded (413 beyond)` }),
          },
          { additionalProperties: false },
        ),
        "Upload a logo; Parley serves it at a public, content-addressed URL",
      ),
    ),
    colors: t.Optional(ColorsInput),
    support_email: t.Optional(brandFields.support_email),
    custom_css: t.Optional(brandFields.custom_css),
    email_sender_name: t.Optional(brandFields.email_sender_name),
    key_prefix_slug: t.Optional(brandFields.key_prefix_slug),
  },
  { additionalProperties: false, description: "The whole brand: a field left out is cleared" },
);
export type WhiteLabelUpdateInput = Static<typeof WhiteLabelUpdate>;

export const BrandDomain = t.Object({
  object: t.Literal("brand_domain"),
  domain: t.String({ description: "Lower case, punycode" }),
  status: OneOf(["pending", "verified"], { description: "Only a verified domain picks your brand" }),
  verification: t.Object(
    {
      type: t.Literal("TXT"),
      name: t.String({ description: "The record's name" }),
      value: t.String({ description: "Its value" }),
    },
    { description: "The DNS record that proves the domain is yours; then call verify" },
  ),
  verified_at: NullableTimestamp,
  verified_by: t.Union([OneOf(["dns", "operator"]), t.Null()], { description: "operator: the instance skips the DNS check (--domain-verification skip)" }),
  last_checked_at: NullableTimestamp,
  last_error: t.Union([t.String(), t.Null()], { description: "What the last verification found instead of the record" }),
  created_at: Timestamp,
});

export const WhiteLabel = t.Object({
  object: t.Literal("white_label"),
  product_name: brandFields.product_name,
  logo_url: t.Union([t.String(), t.Null()], { description: "The logo pages show: your https URL, or where Parley serves your upload" }),
  logo: t.Union([t.Object({ content_type: t.String(), sha256: t.String(), url: t.String() }), t.Null()], { description: "The uploaded logo, if any" }),
  colors: t.Partial(t.Object(colourFields)),
  support_email: t.Union([t.String(), t.Null()]),
  custom_css: t.Union([t.String(), t.Null()], { description: "As stored: sanitised" }),
  email_sender_name: t.Union([t.String(), t.Null()]),
  key_prefix_slug: t.Union([t.String(), t.Null()]),
  key_prefixes_enabled: t.Boolean({ description: "Whether this instance lets keys carry `key_prefix_slug` (--white-label-key-prefixes)" }),
  domains: t.Array(BrandDomain),
  updated_at: NullableTimestamp,
});

export const DomainCreate = t.Object(
  { domain: t.String({ minLength: 1, maxLength: 300, description: "e.g. `app.example.com`; a scheme, port or path is dropped" }) },
  { additionalProperties: false },
);

export const DomainParam = t.Object({ domain: t.String({ minLength: 1, maxLength: 300 }) });
export const LogoParam = t.Object({ file: t.String({ minLength: 1, maxLength: 100, description: "`<sha256>.<ext>`, as `logo_url` gives it" }) });

/** What any page may read about a domain's brand: nothing private (no workspace, no tokens). */
export const Branding = t.Object({
  object: t.Literal("branding"),
  domain: t.String({ description: "The domain asked about, normalised" }),
  source: OneOf(["domain", "instance"], { description: "domain: a verified custom domain's brand; instance: the instance's default (unknown or unverified domain)" }),
  product_name: t.String(),
  logo_url: t.Union([t.String(), t.Null()]),
  colors: t.Object(colourFields),
  support_email: t.Union([t.String(), t.Null()]),
  custom_css: t.Union([t.String(), t.Null()]),
  email_sender_name: t.String(),
});

export function domainJson(row: BrandDomainRow, recordName: string) {
  return {
    object: "brand_domain" as const,
    domain: row.domain,
    status: row.status,
    verification: { type: "TXT" as const, name: recordName, value: row.verificationToken },
    verified_at: toIso(row.verifiedAt),
    verified_by: row.verifiedBy as "dns" | "operator" | null,
    last_checked_at: toIso(row.lastCheckedAt),
    last_error: row.lastError,
    created_at: toIso(row.createdAt),
  };
}

nameSchemas({ WhiteLabel, WhiteLabelUpdate, BrandDomain, BrandDomainCreate: DomainCreate, Branding });
