import { t } from "elysia";
import { NullableTimestamp, OneOf, Timestamp } from "../../../http/models.ts";
import { listQuery } from "../../../http/pagination.ts";
import { nameSchemas } from "../../../lib/schema-names.ts";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

export const PAYMENT_STATUSES = ["pending", "succeeded", "failed", "expired"] as const;

export const Payment = t.Object({
  object: t.Literal("payment"),
  id: t.String({ description: "`txn_…`" }),
  workspace_id: t.String(),
  provider: OneOf(["stripe", "offline"], { description: "`stripe`: by card through Stripe Checkout; `offline`: settled by the operator (an invoice, a bank transfer)" }),
  kind: OneOf(["topup", "auto_recharge", "credit"], { description: "Asked for by a user, started by a low balance, or recorded by the operator" }),
  status: OneOf(PAYMENT_STATUSES, { description: "`pending → succeeded | failed | expired`" }),
  amount: t.Integer({ description: "What is paid, in minor units of `currency` (cents)" }),
  currency: t.String({ description: "ISO 4217, the instance's" }),
  credit: t.Integer({ description: "What success adds to the wallet, micro-units" }),
  checkout_url: Nullable(t.String({ description: "Where the payer completes a Stripe Checkout (while pending)" })),
  failure_reason: Nullable(t.String()),
  ledger_entry_id: Nullable(t.String({ description: "The wallet entry success wrote (`led_…`)" })),
  created_at: Timestamp,
  updated_at: Timestamp,
  expires_at: NullableTimestamp,
  completed_at: NullableTimestamp,
});

export const TopupRequest = t.Object(
  {
    amount: t.Integer({ minimum: 1, maximum: 100_000_000, description: "Minor units of the currency (cents): 2500 is 25.00 USD" }),
    currency: t.Optional(t.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217; must be the instance's (the default)" })),
    provider: t.Optional(OneOf(["stripe", "offline"], { description: "Default `stripe` where the operator configured it, else `offline` (a request the operator settles)" })),
  },
  { additionalProperties: false },
);

export const PaymentQuery = t.Object({
  ...listQuery,
  status: t.Optional(OneOf(PAYMENT_STATUSES, { description: "Only payments in this state" })),
});

export const AutoRecharge = t.Object({
  object: t.Literal("auto_recharge"),
  enabled: t.Boolean(),
  threshold: Nullable(t.Integer({ description: "Micro-units: a top-up starts when the balance falls below it" })),
  amount: Nullable(t.Integer({ description: "Minor units charged each time (cents), as in a top-up" })),
  currency: t.String(),
  card: Nullable(t.Object({ provider: t.String(), saved_at: Timestamp }, { description: "The card saved at a Stripe Checkout top-up, which recharges are charged to" })),
});

export const AutoRechargeUpdate = t.Object(
  {
    enabled: t.Optional(t.Boolean()),
    threshold: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: "Micro-units" })),
    amount: t.Optional(t.Integer({ minimum: 1, maximum: 100_000_000, description: "Minor units (cents)" })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PaymentWebhookAck = t.Object({
  received: t.Literal(true),
  duplicate: t.Boolean({ description: "The event id was handled before: nothing changed" }),
  outcome: t.String({ description: "What the event did: `applied`, or why it changed nothing" }),
});

export const ProviderParam = t.Object({ provider: t.String({ maxLength: 32, description: "`stripe`" }) });

nameSchemas({ Payment, TopupRequest, AutoRecharge, AutoRechargeUpdate, PaymentWebhookAck });
