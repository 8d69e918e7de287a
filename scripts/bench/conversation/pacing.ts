// One 20 ms clock for all the benchmark's callers: each tick sends every caller's next frame, so 100
// callers cost one timer rather than 100 loops of their own. How late the ticks ran tells whether the
// bench process kept pace (it also timestamps the agent's audio, on the same event loop).
import { FRAME_MS } from "../../../src/voice/media/frames.ts";

export interface PacedCaller {
  /** Sends this caller's next frame (silence when it has nothing to say). */
  sendFrame(): void;
}

export class FramePacer {
  private readonly callers = new Set<PacedCaller>();
  private running = false;
  /** How late each tick ran after it was due, ms. */
  readonly lateMs: number[] = [];

  add(caller: PacedCaller): void {
    this.callers.add(caller);
    if (!this.running) void this.run();
  }

  remove(caller: PacedCaller): void {
    this.callers.delete(caller);
  }

  private async run(): Promise<void> {
    this.running = true;
    const started = performance.now();
    for (let tick = 0; this.callers.size > 0; tick++) {
      this.lateMs.push(Math.max(0, performance.now() - (started + tick * FRAME_MS)));
      for (const caller of this.callers) caller.sendFrame();
      // A late tick is caught up at once, so each caller's audio keeps to wall time.
      const wait = started + (tick + 1) * FRAME_MS - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
    this.running = false;
  }
}

/** The process's callers share this one. */
export const framePacer = new FramePacer();
