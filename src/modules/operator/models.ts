import { t } from "elysia";
import { Timestamp } from "../../http/models.ts";
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
  created_at: Timestamp,
});

nameSchemas({ Tenant });
