import { Elysia } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam } from "../../http/models.ts";
import { walletOf } from "./ledger.ts";
import { CreditRequest, CreditResult, Pricing, PricingUpdate, UsageQuery, Wallet, WalletUsage } from "./models.ts";
import { priceListAt, priceListJson, setPrices, upcomingPriceLists } from "./pricing.ts";
import { creditWorkspace, walletJson } from "./service.ts";
import { walletUsage } from "./usage.ts";

const wallet = docsFor("Wallet");
const pricing = docsFor("Pricing");
const operator = docsFor("Operator");

/** Wallet (135, 136), pricing (142, 151) and the operator's credit to a tenant (150). */
export function walletRoutes(ctx: HttpContext) {
  const currentPricing = () => {
    const now = ctx.clock.now();
    return { object: "pricing" as const, current: priceListJson(priceListAt(ctx, now), ctx.config.currency), upcoming: upcomingPriceLists(ctx, now).map((row) => priceListJson(row, ctx.config.currency)) };
  };
  return new Elysia()
    .use(authPlugin(ctx))
    .get("/v1/wallet", ({ principal }) => walletJson(ctx, walletOf(ctx, principal.workspaceId)), {
      auth: "read",
      response: { 200: Wallet },
      detail: wallet("getWallet", "Current balance", "In integer micro-units of the instance currency (1 USD = 1,000,000), with the amount in currency units beside it."),
    })
    .get("/v1/wallet/usage", ({ principal, query }) => walletUsage(ctx, principal.workspaceId, query), {
      auth: "read",
      query: UsageQuery,
      response: { 200: WalletUsage },
      detail: wallet("getWalletUsage", "Spend by day, agent and category", "Charges in [from, to), at most 366 days; days are UTC."),
    })
    .get("/v1/pricing", () => currentPricing(), {
      public: true,
      response: { 200: Pricing },
      detail: pricing("getPricing", "Current pricing", "The prices in force now and any set for later. Until the operator sets prices, everything is free."),
    })
    .put(
      "/v1/admin/pricing",
      ({ principal, body }) => {
        setPrices(ctx, body, principal.userId);
        return currentPricing();
      },
      {
        auth: "operator",
        body: PricingUpdate,
        response: { 200: Pricing },
        detail: pricing("setPricing", "Set the instance's prices", "A complete price list, in force from `effective_at` (now by default; a later date schedules it). Lists before it stay: charges keep the prices they were made at."),
      },
    )
    .post("/v1/admin/workspaces/:id/credit", ({ principal, params, body }) => creditWorkspace(ctx, params.id, body, principal.userId), {
      auth: "operator",
      params: IdParam,
      body: CreditRequest,
      response: { 200: CreditResult },
      detail: operator("creditWorkspace", "Credit or debit a tenant wallet", "Offline billing: a positive amount credits the tenant and is recorded as a succeeded offline payment (`payment.succeeded` is sent); with `payment_id` it settles the tenant's pending offline top-up. A negative amount debits the tenant (402 `insufficient_funds` below zero). One ledger entry, with your note."),
    });
}
