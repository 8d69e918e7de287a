import { t } from "elysia";
import { Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import type { phoneNumbers } from "../../db/schema/index.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

export const E164 = t.String({ pattern: "^\\+[1-9]\\d{6,14}$", description: "E.164, e.g. +14155550123" });

const Inbound = t.Object(
  {
    enabled: t.Boolean({ description: "false: inbound calls are rejected even with an agent assigned" }),
    variables: t.Record(t.String(), t.Unknown(), { description: "{{variables}} every inbound call on this number starts with" }),
  },
  { additionalProperties: false },
);

export const PhoneNumber = t.Object({
  id: t.String({ description: "`pn_…`" }),
  object: t.Literal("phone_number"),
  number: E164,
  carrier: t.String({ description: "`simulated`, or the carrier connection that serves it" }),
  label: t.Union([t.String(), t.Null()]),
  agent_id: t.Union([t.String(), t.Null()], { description: "The agent that answers inbound calls and whose outbound calls come from this number" }),
  inbound: Inbound,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AvailableNumber = t.Object({ object: t.Literal("available_number"), number: E164, carrier: t.String(), region: t.Union([t.String(), t.Null()]) });

export const AvailableQuery = t.Object({
  area_code: t.Optional(t.String({ pattern: "^[2-9]\\d\\d$" })),
  contains: t.Optional(t.String({ pattern: "^\\d{1,10}$" })),
  carrier_id: t.Optional(t.String()),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const BuyBody = t.Object(
  { number: t.Optional(E164), area_code: t.Optional(t.String({ pattern: "^[2-9]\\d\\d$" })), carrier_id: t.Optional(t.String()), label: t.Optional(t.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

export const ImportBody = t.Object(
  { number: E164, carrier: t.Optional(t.String({ description: "`simulated` (default) or a carrier connection id" })), label: t.Optional(t.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

export const PhoneNumberUpdate = t.Partial(t.Object({ label: t.Union([t.String({ maxLength: 100 }), t.Null()]), inbound: t.Partial(Inbound) }), { additionalProperties: false });

export const AssignBody = t.Object({ agent_id: t.String() }, { additionalProperties: false });

export function phoneNumberJson(row: PhoneNumberRow) {
  const inbound = row.inbound as { enabled?: boolean; variables?: Record<string, unknown> };
  return {
    id: row.id,
    object: "phone_number" as const,
    number: row.number,
    carrier: row.carrier,
    label: row.label,
    agent_id: row.agentId,
    inbound: { enabled: inbound.enabled ?? true, variables: inbound.variables ?? {} },
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

nameSchemas({ PhoneNumber, AvailableNumber, BuyPhoneNumberRequest: BuyBody, ImportPhoneNumberRequest: ImportBody, PhoneNumberUpdate, AssignPhoneNumberRequest: AssignBody });
