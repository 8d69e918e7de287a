import { t, type Static } from "elysia";
import type { clientEvents, contactMessages, demoCalls, newsletterSubscriptions } from "../../db/schema/index.ts";
import { Email, NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { listQuery } from "../../http/pagination.ts";
import { nameSchemas } from "../../lib/schema-names.ts";
import { toIso } from "../../lib/time.ts";
import { E164 } from "../phone-numbers/models.ts";
import { FRONT_DOOR_LIMITS as LIMITS } from "./limits.ts";

export type ContactMessageRow = typeof contactMessages.$inferSelect;
export type NewsletterRow = typeof newsletterSubscriptions.$inferSelect;
export type ClientEventRow = typeof clientEvents.$inferSelect;
export type DemoCallRow = typeof demoCalls.$inferSelect;

export const NEWSLETTER_STATUSES = ["pending", "confirmed", "unsubscribed"] as const;

/** The spam defences every public form carries (no third party involved). */
const formFields = {
  form_started_at: t.Integer({
    minimum: 0,
    description: `When the page showed the form, epoch milliseconds (\`Date.now()\`). A form sent less than ${LIMITS.minFormMs / 1000} s later is refused (422 on this field): people take longer.`,
  }),
  website: t.Optional(
    t.String({
      maxLength: 200,
      description: "Honeypot: render it hidden (`tabindex=\"-1\"`, `autocomplete=\"off\"`) and send it empty; a filled one is refused (422 on this field), since only bots fill it.",
    }),
  ),
};

export const ContactBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: LIMITS.nameChars }),
    email: Email,
    company: t.Optional(t.String({ maxLength: LIMITS.companyChars })),
    message: t.String({ minLength: 1, maxLength: LIMITS.messageChars, description: `1-${LIMITS.messageChars} characters` }),
    ...formFields,
  },
  { additionalProperties: false },
);
export type ContactInput = Static<typeof ContactBody>;

export const ContactReceipt = t.Object({
  id: t.String({ description: "`msg_…`" }),
  object: t.Literal("contact_message"),
  created_at: Timestamp,
});

export const NewsletterSubscribeBody = t.Object(
  {
    email: Email,
    source: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Where the visitor signed up (a page, a campaign): kept with the subscription" })),
    ...formFields,
  },
  { additionalProperties: false },
);
export type NewsletterSubscribeInput = Static<typeof NewsletterSubscribeBody>;

export const NewsletterTokenBody = t.Object(
  { token: t.String({ minLength: 1, maxLength: 200, description: "The `token` of the link the person received" }) },
  { additionalProperties: false },
);

export const NewsletterState = t.Object({
  object: t.Literal("newsletter_subscription"),
  email: t.String(),
  status: OneOf(NEWSLETTER_STATUSES),
});

const EventInput = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9][A-Za-z0-9 _.:/-]*$", description: "Letters, digits, spaces and `_ . : / -`, e.g. `page_view` or `Signup Clicked`" }),
    properties: t.Optional(t.Record(t.String(), t.Unknown(), { description: `Any JSON object, at most ${LIMITS.eventPropertyBytes} bytes as JSON` })),
    anonymous_id: t.Optional(t.String({ minLength: 1, maxLength: 128, description: "The site's own visitor id (a cookie, local storage)" })),
    url: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "The page (http or https)" })),
    occurred_at: t.Optional(t.String({ format: "date-time", description: "When it happened (default: when it was received); at most 10 minutes ahead and 30 days back" })),
  },
  { additionalProperties: false },
);
export type ClientEventInput = Static<typeof EventInput>;

export const EventBatchBody = t.Object(
  { events: t.Array(EventInput, { minItems: 1, maxItems: LIMITS.eventsPerBatch, description: `1-${LIMITS.eventsPerBatch} events; the whole batch is stored or refused` }) },
  { additionalProperties: false },
);

export const EventBatchReceipt = t.Object({ object: t.Literal("event_batch"), accepted: t.Integer({ description: "Events stored" }) });

export const DemoVerifyBody = t.Object({ to: E164, ...formFields }, { additionalProperties: false });

export const DemoVerification = t.Object({
  id: t.String({ description: "`dver_…`: send it with the code to POST /v1/demo/call" }),
  object: t.Literal("demo_verification"),
  to: E164,
  code_digits: t.Integer({ description: "Digits of the code the call speaks" }),
  attempts: t.Integer({ description: "Wrong codes allowed before the verification is void" }),
  expires_at: Timestamp,
});

export const DemoCallBody = t.Object(
  {
    to: E164,
    verification_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "From POST /v1/demo/verify (required when the instance verifies numbers)" })),
    code: t.Optional(t.String({ minLength: 1, maxLength: 12, description: "The digits the verification call spoke" })),
    ...formFields,
  },
  { additionalProperties: false },
);
export type DemoCallInput = Static<typeof DemoCallBody>;

export const DemoCall = t.Object({
  id: t.String({ description: "`demo_…`" }),
  object: t.Literal("demo_call"),
  to: E164,
  verified: t.Boolean({ description: "The number was proven by a spoken code first" }),
  created_at: Timestamp,
});

// ---- What the operator lists and exports ----

export const ContactMessage = t.Object({
  id: t.String(),
  object: t.Literal("contact_message"),
  name: t.String(),
  email: t.String(),
  company: t.Union([t.String(), t.Null()]),
  message: t.String(),
  visitor: t.String({ description: "The sender's address, keyed-hashed with the instance secret: equal for equal addresses, never the address" }),
  user_agent: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
});

export const NewsletterSubscription = t.Object({
  id: t.String(),
  object: t.Literal("newsletter_subscription"),
  email: t.String(),
  status: OneOf(NEWSLETTER_STATUSES),
  source: t.Union([t.String(), t.Null()]),
  unsubscribe_url: t.Union([t.String(), t.Null()], { description: "Put it in every newsletter sent to a confirmed subscriber (null unless confirmed)" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  confirmed_at: NullableTimestamp,
});

export const ClientEvent = t.Object({
  id: t.String(),
  object: t.Literal("client_event"),
  name: t.String(),
  properties: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
  anonymous_id: t.Union([t.String(), t.Null()]),
  url: t.Union([t.String(), t.Null()]),
  visitor: t.String({ description: "The sender's address, keyed-hashed" }),
  occurred_at: Timestamp,
  received_at: Timestamp,
});

export const NewsletterFilter = { status: t.Optional(OneOf(NEWSLETTER_STATUSES, { description: "Only subscriptions in this state (e.g. `confirmed` for a mailing list)" })) };
export const NewsletterListQuery = t.Object({ ...listQuery, ...NewsletterFilter });

export function contactMessageJson(row: ContactMessageRow) {
  return {
    id: row.id,
    object: "contact_message" as const,
    name: row.name,
    email: row.email,
    company: row.company,
    message: row.message,
    visitor: row.visitor,
    user_agent: row.userAgent,
    created_at: toIso(row.createdAt),
  };
}

export function newsletterJson(row: NewsletterRow, unsubscribeUrl: string | null) {
  return {
    id: row.id,
    object: "newsletter_subscription" as const,
    email: row.email,
    status: row.status,
    source: row.source,
    unsubscribe_url: unsubscribeUrl,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    confirmed_at: toIso(row.confirmedAt),
  };
}

export function clientEventJson(row: ClientEventRow) {
  return {
    id: row.id,
    object: "client_event" as const,
    name: row.name,
    properties: row.properties ?? null,
    anonymous_id: row.anonymousId,
    url: row.url,
    visitor: row.visitor,
    occurred_at: toIso(row.occurredAt),
    received_at: toIso(row.receivedAt),
  };
}

nameSchemas({
  ContactRequest: ContactBody,
  ContactReceipt,
  ContactMessage,
  NewsletterSubscribeRequest: NewsletterSubscribeBody,
  NewsletterTokenRequest: NewsletterTokenBody,
  NewsletterState,
  NewsletterSubscription,
  ClientEventInput: EventInput,
  ClientEventBatch: EventBatchBody,
  ClientEventBatchReceipt: EventBatchReceipt,
  ClientEvent,
  DemoVerificationRequest: DemoVerifyBody,
  DemoVerification,
  DemoCallRequest: DemoCallBody,
  DemoCall,
});
