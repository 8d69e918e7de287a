import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { notFound } from "../../http/errors.ts";
import { linkBase } from "../../http/host-brand.ts";
import { NoContent, noContent } from "../../http/models.ts";
import type { OperatorWorkspace } from "./directory.ts";
import { verificationRecordName } from "./domain-names.ts";
import { attachDomain, detachDomain, verifyDomain } from "./domains.ts";
import { LOGO_TYPES, logoHashOf, logoPath } from "./logo.ts";
import { BrandDomain, Branding, DomainCreate, DomainParam, LogoParam, WhiteLabel, WhiteLabelUpdate, domainJson } from "./models.ts";
import { findLogoBySha, type BrandDomainRow } from "./repo.ts";
import { publicBranding, replaceBrand, whiteLabelJson } from "./service.ts";

const doc = docsFor("White-label");

/** A logo's bytes never change under its URL (the hash names them). */
const LOGO_CACHE_CONTROL = "public, max-age=31536000, immutable";

/** White-label (143-147): a reseller's brand and custom domains, and what any page reads of a domain's brand. */
export function whiteLabelRoutes(ctx: HttpContext, services: { operatorWorkspaceId: OperatorWorkspace }) {
  const domain = (row: BrandDomainRow) => domainJson(row, verificationRecordName(ctx.config.brandSlug, row.domain));
  return new Elysia()
    .use(authPlugin(ctx))
    .get("/v1/white-label", ({ principal, request }) => whiteLabelJson(ctx, principal.workspaceId, linkBase(ctx, request)), {
      auth: "admin",
      response: { 200: WhiteLabel },
      detail: doc("getWhiteLabel", "This workspace's brand", "Product name, logo, colours, support e-mail, custom CSS, e-mail sender name, key prefix slug, and the custom domains with their verification records."),
    })
    .put(
      "/v1/white-label",
      ({ principal, request, body }) => {
        replaceBrand(ctx, principal.workspaceId, body);
        return whiteLabelJson(ctx, principal.workspaceId, linkBase(ctx, request));
      },
      {
        auth: "admin",
        body: WhiteLabelUpdate,
        response: { 200: WhiteLabel },
        detail: doc(
          "setWhiteLabel",
          "Set the brand",
          "Replaces the whole brand: a field left out is cleared (send back what GET returned to keep it; an uploaded logo is kept by sending its `logo_url`). " +
            "A logo is an https `logo_url` or an upload in `logo` (`content_type` and `data_base64`; PNG, JPEG, WebP or GIF, checked by its bytes, at most 256 KB: 413 beyond; SVG is refused). " +
            "Custom CSS is sanitised before it is stored. Every bad field is named in `errors[]`.",
        ),
      },
    )
    .post(
      "/v1/white-label/domains",
      ({ principal, body }) => {
        const { row, created } = attachDomain(ctx, principal.workspaceId, body.domain);
        return status(created ? 201 : 200, domain(row));
      },
      {
        auth: "admin",
        body: DomainCreate,
        response: { 200: BrandDomain, 201: BrandDomain },
        detail: doc(
          "attachWhiteLabelDomain",
          "Attach a custom domain",
          "Answers the DNS TXT record that proves the domain is yours; create it, then call verify. On instances that skip the check (`--domain-verification skip`) the domain is verified at once. " +
            "409 `conflict` when another workspace holds the domain; 200 with the existing domain when this one already does.",
        ),
      },
    )
    .post("/v1/white-label/domains/:domain/verify", async ({ principal, params }) => domain(await verifyDomain(ctx, principal.workspaceId, params.domain)), {
      auth: "admin",
      params: DomainParam,
      response: { 200: BrandDomain },
      detail: doc(
        "verifyWhiteLabelDomain",
        "Verify a custom domain",
        "Looks up the TXT record now; verified when one of its values is the token. Otherwise 409 `domain_not_verified` saying what DNS answered (also kept as `last_error`).",
      ),
    })
    .delete(
      "/v1/white-label/domains/:domain",
      ({ principal, params }) => {
        detachDomain(ctx, principal.workspaceId, params.domain);
        return noContent();
      },
      { auth: "admin", params: DomainParam, response: { 204: NoContent }, detail: doc("detachWhiteLabelDomain", "Detach a custom domain", "Its requests get the instance's brand from the next one on.") },
    )
    .get(
      "/v1/branding/:domain",
      ({ params, request, set }) => {
        set.headers["cache-control"] = "public, max-age=60";
        return publicBranding(ctx, services.operatorWorkspaceId, params.domain, linkBase(ctx, request));
      },
      {
        public: true,
        params: DomainParam,
        response: { 200: Branding },
        detail: doc(
          "getBranding",
          "Branding for a domain",
          "What a page on `domain` shows: the brand of the workspace that verified it, or the instance's default brand when the domain is unknown or unverified. Nothing private.",
        ),
      },
    )
    .get(
      "/v1/branding/logos/:file",
      ({ params, request }) => {
        const sha = logoHashOf(params.file);
        const logo = sha ? findLogoBySha(ctx.db, sha) : undefined;
        if (!sha || !logo || logoPath({ sha256: sha, contentType: logo.contentType }) !== `/v1/branding/logos/${params.file}`) throw notFound("logo");
        const headers = {
          "content-type": logo.contentType,
          "cache-control": LOGO_CACHE_CONTROL,
          etag: `"${sha}"`,
          "x-content-type-options": "nosniff",
          // Opened on its own, the image may run nothing and load nothing.
          "content-security-policy": "default-src 'none'; sandbox",
        };
        if (request.headers.get("if-none-match") === `"${sha}"`) return new Response(null, { status: 304, headers });
        return new Response(new Uint8Array(logo.bytes), { headers });
      },
      {
        public: true,
        params: LogoParam,
        response: { 200: t.String({ description: "The image (ETag; 304 on If-None-Match)" }) },
        detail: {
          ...doc("getBrandLogo", "An uploaded logo", "Public and cached for a year: the URL names the bytes by their SHA-256, so a new logo gets a new URL."),
          "x-response-types": Object.keys(LOGO_TYPES),
        },
      },
    );
}
