import { DAY, HOUR } from "../../lib/time.ts";

/**
 * What one anonymous visitor may do with a widget, in one place. The per-IP public rate limit
 * (PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE) comes first; these bound what a single page can cost its owner.
 */
export const WIDGET_LIMITS = {
  /** Characters of one chat message, after trimming. */
  messageChars: 2000,
  /** Visitor messages in one chat session; then the widget starts a new session. */
  messagesPerSession: 50,
  /** New chat sessions one visitor (client IP) may open on one widget per `newSessionWindowMs`. */
  newSessionsPerVisitor: 20,
  newSessionWindowMs: HOUR,
  /** A chat session lives this long from its first message. */
  sessionLifetimeMs: DAY,
  /** Entries of `allowed_origins`. */
  allowedOrigins: 50,
} as const;
