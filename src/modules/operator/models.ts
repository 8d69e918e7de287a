import { t } from "elysia";
import { NullableTimestamp, Timestamp } from "../../http/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export const Tenant = t.Object({
  object: t.Literal("tenant"),
  id: t.String({ description: "`ws_…`" }),
  name: t.String(),
  is_operator: t.Boolean({ description: "The operator's own workspace" }),
  members: t.Integer(),
  currency: t.String(),
  balance: t.Integer({ description: "Wallet balance, micro-units" }),
  usage_30d: t.Object({
    calls: t.Integer({ description: "Calls created in the last 30 days" }),
    seconds: t.Integer({ description: "Their talk time" }),
    spend: t.Integer({ description: "Micro-units charged in the last 30 days" }),
  }),
  suspended_at: NullableTimestamp,
  suspended_reason: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
});

export const SuspendRequest = t.Object(
  { reason: t.String({ minLength: 1, maxLength: 500, description: "Why, for the operator's records (unpaid invoice, abuse report …)" }) },
  { additionalProperties: false },
);

nameSchemas({ Tenant, SuspendRequest });
