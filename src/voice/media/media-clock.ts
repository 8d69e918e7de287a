/** One 20 ms tick for every live call: a single timer, so hundreds of calls cost one wake-up. */
export const FRAME_MS = 20;

export type TickHandler = (tick: { scheduledAt: number; lateMs: number }) => void;
/** Told when its handler throws (the clock goes on ticking for every other subscriber). */
export type TickErrorHandler = (error: unknown) => void;

/**
 * Ticks every 20 ms of real time, catching up when the event loop was busy (each missed tick still
 * runs, with its lateness reported) so audio keeps its pace instead of drifting.
 */
export class MediaClock {
  private handlers = new Map<TickHandler, TickErrorHandler | undefined>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private next = 0;
  /** Lateness of every tick since the last reset (benchmarks read it). */
  readonly lateness: number[] = [];
  measure = false;

  subscribe(handler: TickHandler, onError?: TickErrorHandler): () => void {
    this.handlers.set(handler, onError);
    if (!this.timer) this.start();
    return () => {
      this.handlers.delete(handler);
      if (this.handlers.size === 0) this.stop();
    };
  }

  get subscribers(): number {
    return this.handlers.size;
  }

  private start(): void {
    this.next = performance.now() + FRAME_MS;
    this.schedule();
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.run(), Math.max(0, this.next - performance.now()));
  }

  private run(): void {
    let now = performance.now();
    // Catch up at most a second: after a long stall, skipping beats a burst of stale audio.
    if (now - this.next > 1000) this.next = now - FRAME_MS;
    while (this.next <= now && this.handlers.size) {
      const scheduledAt = this.next;
      const lateMs = now - scheduledAt;
      if (this.measure) this.lateness.push(lateMs);
      for (const [handler, onError] of this.handlers) {
        try {
          handler({ scheduledAt, lateMs });
        } catch (error) {
          // One call's failure must not stop every other call's audio.
          onError?.(error);
        }
      }
      this.next += FRAME_MS;
      now = performance.now();
    }
    if (this.handlers.size) this.schedule();
    else this.timer = null;
  }
}

/** The process-wide clock all calls share. */
export const mediaClock = new MediaClock();
