import { Elysia, status } from "elysia";
import type { HttpContext } from "../../../http/context.ts";
import { authPlugin } from "../../../http/auth.ts";
import { RawBody } from "../../../http/body-parser.ts";
import { docsFor } from "../../../http/docs.ts";
import { ApiError, notFound } from "../../../http/errors.ts";
import { IdParam } from "../../../http/models.ts";
import { ListOf, pageRequest, toPage } from "../../../http/pagination.ts";
import { walletOf } from "../ledger.ts";
import { autoRechargeJson, updateAutoRecharge } from "./auto-recharge.ts";
import { paymentJson } from "./json.ts";
import { AutoRecharge, AutoRechargeUpdate, Payment, PaymentQuery, PaymentWebhookAck, ProviderParam, TopupRequest } from "./models.ts";
import { listPayments, paymentOf } from "./repo.ts";
import { applyStripeEvent, type StripeEvent } from "./stripe-events.ts";
import { stripeSignatureProblem } from "./stripe-signature.ts";
import { startTopup } from "./topup.ts";

const doc = docsFor("Payments");
const wallet = docsFor("Wallet");

/** Top-ups (138-141) and automatic recharges (137). */
export function paymentRoutes(ctx: HttpContext) {
  return new Elysia()
    .use(authPlugin(ctx))
    .get("/v1/wallet/auto-recharge", ({ principal }) => autoRechargeJson(ctx, walletOf(ctx, principal.workspaceId)), {
      auth: "read",
      response: { 200: AutoRecharge },
      detail: wallet("getAutoRecharge", "Automatic top-up settings", "The threshold and amount, and whether a card is saved for recharges."),
    })
    .patch("/v1/wallet/auto-recharge", ({ principal, body }) => updateAutoRecharge(ctx, principal.workspaceId, body), {
      auth: "admin",
      body: AutoRechargeUpdate,
      response: { 200: AutoRecharge },
      detail: wallet(
        "updateAutoRecharge",
        "Threshold and amount for automatic top-ups",
        "When the balance falls below `threshold` (micro-units), the card saved at the workspace's last Stripe Checkout top-up is charged `amount` (minor units) off-session: a payment of kind `auto_recharge`. Enabling needs both values, Stripe on the instance and a saved card (409 otherwise). After a declined charge the card is not tried again for 6 hours.",
      ),
    })
    .post("/v1/payments/topup", async ({ principal, body }) => status(201, paymentJson(await startTopup(ctx, { workspaceId: principal.workspaceId, userId: principal.userId, body }))), {
      auth: "admin",
      body: TopupRequest,
      response: { 201: Payment },
      detail: doc(
        "createTopup",
        "Initiate a top-up",
        "A pending payment. With Stripe, open its `checkout_url` to pay; the wallet is credited when Stripe confirms the payment (its webhook), and `payment.succeeded` is sent. An unpaid checkout expires after an hour. With `offline`, the operator settles the payment when your invoice is paid (or it lapses after 30 days). 502 when Stripe refuses or cannot be reached.",
      ),
    })
    .get(
      "/v1/payments/history",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(listPayments(ctx, principal.workspaceId, page, query.status), page, (row) => ({ at: row.createdAt, id: row.id }), paymentJson);
      },
      {
        auth: "read",
        query: PaymentQuery,
        response: { 200: ListOf(Payment) },
        detail: doc("listPayments", "List transactions", "Top-ups, automatic recharges and the operator's credits, newest first."),
      },
    )
    .get(
      "/v1/payments/:id",
      ({ principal, params }) => {
        const row = paymentOf(ctx, principal.workspaceId, params.id);
        if (!row) throw notFound("payment");
        return paymentJson(row);
      },
      { auth: "read", params: IdParam, response: { 200: Payment }, detail: doc("getPayment", "One transaction", "Its state, amounts and, once it succeeded, the wallet entry it wrote.") },
    )
    .post(
      "/v1/payments/webhook/:provider",
      ({ params, request, body }) => {
        // Like every carrier callback, an unproven one is 403: no Parley credential stands in for the signature.
        const secret = params.provider === "stripe" ? ctx.config.stripeWebhookSecret : "";
        const text = body instanceof RawBody ? body.text : "";
        const problem = secret ? stripeSignatureProblem(secret, request.headers.get("stripe-signature"), text, Date.now()) : `this instance takes no payments through "${params.provider}"`;
        if (problem) throw new ApiError("forbidden", `not a Stripe event for this instance: ${problem}`);
        return { received: true as const, ...applyStripeEvent(ctx, parseStripeEvent(text)) };
      },
      {
        carrier: true,
        params: ProviderParam,
        response: { 200: PaymentWebhookAck },
        detail: {
          ...doc(
            "paymentWebhook",
            "Payment provider callback",
            "Stripe's webhook endpoint (`/v1/payments/webhook/stripe`): subscribe it to `checkout.session.completed`, `checkout.session.async_payment_succeeded`, `checkout.session.async_payment_failed`, `checkout.session.expired`, `payment_intent.succeeded` and `payment_intent.payment_failed`. Verified with `Stripe-Signature` (the endpoint's signing secret, 5 minutes' tolerance): a forged or stale event is 403 and changes nothing. Each event id is applied once: a replay answers `duplicate: true`.",
          ),
          "x-body-types": ["application/json"],
          "x-body-raw": true,
        },
      },
    );
}

function parseStripeEvent(text: string): StripeEvent {
  let event: any;
  try {
    event = JSON.parse(text);
  } catch {
    throw new ApiError("malformed_json", "the event is not JSON");
  }
  if (typeof event?.id !== "string" || typeof event.type !== "string" || typeof event.data?.object !== "object" || event.data.object === null) {
    throw new ApiError("bad_request", "not a Stripe event: it needs id, type and data.object");
  }
  return event;
}
