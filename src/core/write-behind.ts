import type { Sqlite } from "../db/connection.ts";
import type { Logger } from "./logger.ts";

/**
 * Collects small bookkeeping writes (audit rows, key last-used times) and commits them together,
 * so a request never waits on its own commit for them. Readers call flush() first to see them.
 */
export class WriteBehind {
  private tasks: (() => void)[] = [];
  private flushers = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  // Small batches: a flush blocks the event loop while it writes (~8 µs a row), so a batch of 250
  // stays near 2 ms, inside the latency budget of the requests waiting behind it.
  constructor(private sqlite: Sqlite, private logger: Logger, private delayMs = 100, private maxPending = 250) {}

  /** Queues one write; it runs inside the next flush's transaction. */
  add(task: () => void): void {
    this.tasks.push(task);
    if (this.tasks.length >= this.maxPending) this.flush();
    else this.schedule();
  }

  /** Registers a writer of coalesced state (e.g. a map of last-used times) called on every flush. */
  register(flusher: () => void): void {
    this.flushers.add(flusher);
  }

  schedule(): void {
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.delayMs);
      this.timer.unref?.();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const tasks = this.tasks;
    this.tasks = [];
    try {
      this.sqlite.transaction(() => {
        for (const task of tasks) task();
        for (const flusher of this.flushers) flusher();
      })();
    } catch (error) {
      this.logger.error("write-behind flush failed", { error, rows: tasks.length });
    }
  }
}
