import { t } from "elysia";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";
import { Payment } from "./payments/models.ts";

/** Money in the API: integer micro-units of the instance currency (1 USD = 1,000,000). */
const Micros = (description: string) => t.Integer({ minimum: 0, maximum: 1_000_000_000, description });
const Direction = t.Object({ inbound: Micros("per minute of an inbound call"), outbound: Micros("per minute of an outbound call") }, { additionalProperties: false });
const ByEngine = (what: string) => t.Object({ builtin: Micros(`per minute, ${what} by the built-in offline engines`), provider: Micros(`per minute, ${what} by a provider connection`) }, { additionalProperties: false });
const ByCarrier = <T extends ReturnType<typeof Micros> | typeof Direction>(item: T) =>
  t.Object({ simulated: item, sip: item, twilio: item, telnyx: item }, { additionalProperties: false });

export const PerMinute = t.Object(
  {
    telephony: ByCarrier(Direction),
    browser_voice: Micros("per minute of a browser voice session"),
    speech: ByEngine("recognition and synthesis"),
    llm: ByEngine("the agent's language model"),
  },
  { additionalProperties: false, description: "Per-minute rates by category, each in micro-units; a call pays its carrier's line plus speech and LLM" },
);

export const Prices = t.Object(
  {
    per_minute: PerMinute,
    number_monthly: ByCarrier(Micros("per phone number per month")),
  },
  { additionalProperties: false },
);

export const PricingUpdate = t.Composite(
  [
    Prices,
    t.Object({
      effective_at: t.Optional(t.String({ format: "date-time", description: "When the prices apply (default now; never in the past)" })),
    }),
  ],
  { additionalProperties: false },
);

export const PriceList = t.Composite([
  t.Object({
    object: t.Literal("price_list"),
    id: t.Union([t.String({ description: "`prc_…`" }), t.Null()], { description: "null for the built-in prices of an instance whose operator set none (everything free)" }),
    currency: t.String({ description: "ISO 4217; the instance's (`--currency`)" }),
    effective_at: NullableTimestamp,
  }),
  Prices,
]);

export const Pricing = t.Object({
  object: t.Literal("pricing"),
  current: PriceList,
  upcoming: t.Array(PriceList, { description: "Price lists already set for a later date, soonest first" }),
});

export const Wallet = t.Object({
  object: t.Literal("wallet"),
  workspace_id: t.String(),
  currency: t.String(),
  balance: t.Integer({ description: "Micro-units of `currency`" }),
  balance_formatted: t.String({ description: "The balance in currency units, two decimals, e.g. `12.50`" }),
  card_payments: t.Boolean({ description: "Whether this instance takes top-ups by card (its operator set up Stripe); false: a top-up is a request the operator settles (`provider: offline`)" }),
  updated_at: Timestamp,
});

export const LedgerEntry = t.Object({
  object: t.Literal("ledger_entry"),
  id: t.String({ description: "`led_…`" }),
  workspace_id: t.String(),
  amount: t.Integer({ description: "Micro-units; credits positive, charges negative" }),
  balance_after: t.Integer(),
  cause: OneOf(["topup", "call_usage", "number_fee", "operator_credit", "operator_debit", "refund", "adjustment"]),
  category: t.Union([t.String(), t.Null()]),
  ref_type: t.Union([t.String(), t.Null()]),
  ref_id: t.Union([t.String(), t.Null()]),
  note: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
});

export const CreditRequest = t.Object(
  {
    amount: t.Integer({ minimum: -1_000_000_000_000, maximum: 1_000_000_000_000, description: "Micro-units: positive credits the tenant, negative debits it (never below zero)" }),
    note: t.String({ minLength: 1, maxLength: 500, description: "Why: an invoice number, a goodwill credit, a correction" }),
    payment_id: t.Optional(t.String({ maxLength: 64, description: "A pending offline top-up (`txn_…`) of the tenant that this credit settles: `amount` must be its `credit`" })),
  },
  { additionalProperties: false },
);

export const CreditResult = t.Object({ entry: LedgerEntry, wallet: Wallet, payment: t.Union([Payment, t.Null()], { description: "The offline payment a credit is recorded as (null for a debit)" }) });

const Amount = { amount: t.Integer({ description: "Micro-units spent" }) };
const Spend = { ...Amount, seconds: t.Integer({ description: "Call seconds those charges paid for" }) };

export const WalletUsage = t.Object({
  object: t.Literal("wallet_usage"),
  currency: t.String(),
  from: Timestamp,
  to: Timestamp,
  total: t.Integer({ description: "Micro-units spent in the period" }),
  by_day: t.Array(t.Object({ day: t.String({ description: "YYYY-MM-DD, UTC" }), ...Amount })),
  by_agent: t.Array(t.Object({ agent_id: t.Union([t.String(), t.Null()]), ...Amount })),
  by_category: t.Array(t.Object({ category: t.String(), ...Spend })),
});

export const UsageQuery = t.Object({
  from: t.Optional(t.String({ format: "date-time", description: "Start (inclusive); default 30 days ago" })),
  to: t.Optional(t.String({ format: "date-time", description: "End (exclusive); default now" })),
});

nameSchemas({ PerMinute, Prices, PricingUpdate, PriceList, Pricing, Wallet, LedgerEntry, CreditRequest, CreditResult, WalletUsage });
