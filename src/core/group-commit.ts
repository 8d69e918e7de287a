import type { Sqlite } from "../db/connection.ts";

interface Pending {
  task: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Durable writes that may wait a moment to share a commit: tasks queued in the same turn of the
 * event loop run in one transaction, each in its own savepoint (one failing rolls back only itself),
 * and each caller's promise settles once that transaction has committed. Many concurrent jobs
 * finishing together (webhook deliveries) then pay for one commit instead of one each.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(private readonly sqlite: Sqlite, private readonly maxBatch = 256) {}

  run<T>(task: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ task, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.sqlite.transaction(() => {
        for (const { task } of batch) {
          try {
            outcomes.push({ ok: true, value: this.sqlite.transaction(task)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    batch.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  }
}
