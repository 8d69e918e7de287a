import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

/** A reseller workspace's brand: what its tenants see on its domains. */
export const brandings = sqliteTable("brandings", {
  workspaceId: text("workspace_id").primaryKey().references(() => workspaces.id, { onDelete: "cascade" }),
  productName: text("product_name"),
  /** An external logo URL; an uploaded logo is in `brand_logos` and served by Parley. */
  logoUrl: text("logo_url"),
  colors: text("colors", { mode: "json" }).$type<Record<string, string>>(),
  supportEmail: text("support_email"),
  /** Already sanitised when stored. */
  customCss: text("custom_css"),
  emailSenderName: text("email_sender_name"),
  /** The slug shown in API key prefixes to this brand's tenants, where the operator allows it. */
  keyPrefixSlug: text("key_prefix_slug"),
  updatedAt: integer("updated_at").notNull(),
});

/** An uploaded logo, served at a content-addressed URL. */
export const brandLogos = sqliteTable("brand_logos", {
  workspaceId: text("workspace_id").primaryKey().references(() => workspaces.id, { onDelete: "cascade" }),
  contentType: text("content_type").notNull(),
  sha256: text("sha256").notNull(),
  bytes: blob("bytes", { mode: "buffer" }).notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Custom domains: the brand applies to requests whose Host is a verified domain of the workspace. */
export const brandDomains = sqliteTable("brand_domains", {
  domain: text("domain").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  /** The value of the DNS TXT record that proves ownership. */
  verificationToken: text("verification_token").notNull(),
  status: text("status", { enum: ["pending", "verified"] }).notNull(),
  verifiedAt: integer("verified_at"),
  /** `dns` when the TXT record was seen, `operator` when the operator skipped the check (air-gapped). */
  verifiedBy: text("verified_by"),
  lastCheckedAt: integer("last_checked_at"),
  lastError: text("last_error"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("brand_domains_workspace_idx").on(t.workspaceId, t.createdAt)]);
