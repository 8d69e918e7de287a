// How late a WebSocket leg's frames arrive. TCP loses nothing but holds audio back behind a lost
// segment or a slow link, then delivers it in a burst, so a frame is measured against its place in
// the stream: frame n is due 20 ms × n after the stream's start, as seen from the earliest-arriving
// frame so far.

import { FRAME_MS } from "../voice/media/frames.ts";
import type { MediaCounts } from "./types.ts";

/**
 * Later than this is late: the caller's speech reaches turn-taking a noticeable beat behind. A pause this
 * long between a media stream's messages is also what its leg counts as a stall.
 */
export const LATE_FRAME_MS = 200;
/** The sender's clock may run this much slower than ours (0.1 %) before its frames count as late. */
const DRIFT_ALLOWANCE = 0.001;
/** A second of frames all late with no burst catching up: the sender paused and resumed, and its stream starts afresh. */
const RESTART_AFTER_FRAMES = 50;

export class FramePacing {
  private received = 0;
  private late = 0;
  private lateRun = 0;
  /** When frame 0 would have arrived, had every frame come as early as the earliest did. */
  private origin: number | null = null;

  /** One frame came at `now` (performance.now()). */
  frame(now: number): void {
    if (this.origin === null) this.origin = now;
    const lateness = now - (this.origin + this.received * FRAME_MS);
    // The earliest frame so far sets the stream's timeline; a sender's slow clock moves it a little.
    this.origin += lateness < 0 ? lateness : Math.min(lateness, FRAME_MS * DRIFT_ALLOWANCE);
    if (lateness <= LATE_FRAME_MS) this.lateRun = 0;
    else {
      this.late++;
      if (++this.lateRun >= RESTART_AFTER_FRAMES) {
        this.origin = now - this.received * FRAME_MS;
        this.lateRun = 0;
      }
    }
    this.received++;
  }

  counts(): MediaCounts {
    return { transport: "websocket", received: this.received, lost: 0, late: this.late };
  }
}
