import { DAY, HOUR, MINUTE, SECOND } from "../../lib/time.ts";

/**
 * What one anonymous visitor of the public site may send, in one place. The per-IP public rate limit
 * (PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE) comes first; these bound what the front door stores or costs.
 */
export const FRONT_DOOR_LIMITS = {
  /** A form sent sooner than this after it was shown (`form_started_at`) was not filled in by a person. */
  minFormMs: 3 * SECOND,
  /** Bodies of the forms (contact, newsletter, demo): far above what their longest fields need. */
  formBodyBytes: 32 * 1024,
  /** Characters of each contact form field. */
  nameChars: 100,
  companyChars: 100,
  messageChars: 5000,
  /** Contact messages one visitor (client IP) may send per `contactWindowMs`. */
  contactsPerVisitor: 5,
  contactWindowMs: HOUR,
  /** How long a newsletter confirmation link works. */
  confirmationLifetimeMs: 7 * DAY,
  /** Client events in one batch, bytes of one event's `properties` (as JSON), and of the whole body. */
  eventsPerBatch: 50,
  eventPropertyBytes: 4 * 1024,
  eventBodyBytes: 256 * 1024,
  /** An event's `occurred_at` may be this far in the future (clock skew) or the past (queued offline). */
  eventFutureSkewMs: 10 * MINUTE,
  eventMaxAgeMs: 30 * DAY,
  /** Demo calls (verification calls included) to one number, and from one visitor, per `demoWindowMs`. */
  demoCallsPerNumber: 3,
  demoCallsPerVisitor: 5,
  demoWindowMs: DAY,
  /** A spoken verification code: its digits, how long it is good for, and wrong guesses allowed. */
  demoCodeDigits: 6,
  demoCodeLifetimeMs: 10 * MINUTE,
  demoCodeAttempts: 5,
} as const;
