// What a handler can say besides "done" (return) and "failed, retry with backoff" (throw anything else).

/** Try again at `runAt` without spending an attempt (e.g. an open circuit breaker). */
export class JobSnooze extends Error {
  constructor(readonly runAt: number, reason = "snoozed") {
    super(reason);
  }
}

/** Give up for good: no retry will help (e.g. the target was deleted). */
export class JobDiscard extends Error {}

/** A failure that must not be retried before `notBefore` (e.g. Retry-After). */
export class JobRetryLater extends Error {
  constructor(message: string, readonly notBefore: number) {
    super(message);
  }
}
